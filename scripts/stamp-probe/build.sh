#!/usr/bin/env bash
# The stamp probe (issue 8's diagnosis of decode calls): where the time of one call of an sm90
# kernel goes, CTA by CTA, next to a read-only stream of the same bytes. It stamps %globaltimer
# and clock64 at six points of each CTA's life in back-to-back launches over rotating operand
# copies (as bench --l2 rotate times) and prints, per launch (median of the steady-state ones): the
# gap after the previous launch, the entry spread, and per CTA the set-up, the time to its first
# load, to its first data, the streaming, the tail, and how far apart the CTAs' first and last data
# came. Non-split, non-cluster, non-persistent swapped (SWAP_AB=1) TN kernels only.
#   cuda-l2-tune export --db DB --format bundle -o BUNDLE          # the winners' sources
#   scripts/stamp-probe/build.sh BUNDLE/kernels/<hash>-sm_90a.cu ...  # needs nvcc (sm_90a)
#   build/stamp-probe/probe-<hash8> M N K [ours|read|both|panels [CTAS]]
# `read` streams the weights with 132, 264 and 528 blocks of a plain read kernel, and with 132 and
# 264 launched with programmatic dependent launch (read-pdl: each call reads 0, 1, 2 or 4 steps of
# 32 KB a CTA, four loads in flight per thread, before it waits for the call before, which lets it
# launch with as many steps left, as our PDL kernels overlap two calls); `panels` reads them as
# contiguous per-CTA panels (CTAS of them, and 132), statically or from a shared chunk counter.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$here/../.."
# Absolute, since the generated sources #include from it wherever nvcc runs.
out="$(realpath -m "${OUT_DIR:-$root/build/stamp-probe}")"
[ $# -gt 0 ] || { sed -n '2,15p' "$0" | sed 's/^# \{0,1\}//'; exit 2; }
bash "$here/stamp-template.sh" "$out/gen"
for source in "$@"; do
  [ -f "$source" ] || { echo "build.sh: $source: no such file; give kernel sources of an exported bundle" >&2; exit 2; }
  grep -q '^#define CL2_SWAP_AB 1' "$source" || echo "build.sh: $source: not a swapped kernel; the probe's launch assumes SWAP_AB=1" >&2
  name=$(basename "$source" | cut -c1-8)
  { sed '/^#line/,$d' "$source"; echo '#include "cl2_abi.cuh"'; echo "#include \"$here/stamps.cuh\"";
    echo "#include \"$out/gen/sm90_hgemm.cuh\""; echo "#include \"$here/probe_host.cuh\""; } > "$out/gen/probe-$name.cu"
  nvcc -std=c++17 -O3 -gencode=arch=compute_90a,code=sm_90a -I"$root/templates" -diag-suppress 128 \
    -o "$out/probe-$name" "$out/gen/probe-$name.cu" -lcuda
  echo "$out/probe-$name"
done
