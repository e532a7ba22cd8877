#!/usr/bin/env bash
# Writes DIR/sm90_hgemm.cuh: templates/sm90_hgemm.cuh with CL2_STAMP hooks at six points of a CTA's
# life (entry, set-up done, first load issued, first data seen, last data seen, done); stamps.cuh
# defines them. Used by build.sh.
set -euo pipefail
cd "$(dirname "$0")/../.."
dir="${1:?usage: stamp-template.sh DIR}"
mkdir -p "$dir"
t=templates/sm90_hgemm.cuh
sync=$(grep -n '^  __syncthreads();' $t | tail -1 | cut -d: -f1)
sed -e 's|^  extern __shared__ unsigned char cl2_smem\[\];|&\n  CL2_STAMP_ENTRY();|' \
    -e "${sync}s|^  __syncthreads();|&\n  if (threadIdx.x == 0) CL2_STAMP(1);|" \
    -e 's|^\(      cl2_load_rows(p, smem_a, bar, stage, work, kb, cn, a_peers);\)$|\1\n      if (it == 0) CL2_STAMP(2);|' \
    -e 's|^\(      cl2_mbar_wait(full + stage \* 8, (it / kStages) \& 1);\)$|\1\n      if (threadIdx.x == 128) { if (it == 0) CL2_STAMP(3); CL2_STAMP(4); }|' \
    -e 's|^  if (kWgSplitK \&\& consumer == 1) cl2_named_sync|  if (threadIdx.x == 128) CL2_STAMP(5);\n&|' \
    $t > "$dir/sm90_hgemm.cuh"
n=$(grep -c CL2_STAMP "$dir/sm90_hgemm.cuh")
[ "$n" = 5 ] || { echo "stamp-template.sh: $n of 5 hooks placed; the template changed, update the anchors" >&2; exit 1; }
