#!/usr/bin/env bash
# On the GPU machine: does walking the tiles column-major pay on large shapes (README.md here)?
#  1. sweep: each winner of WINNERS (an export JSON; default the H100 large.json winners of
#     ../h100-2578af5/) with every parameter pinned but RASTER, so that its raster groups 1, 4, 8
#     and 16 are timed side by side with cuBLASLt-autotune (pins lift the planning rules);
#  2. ab: scripts/space-ab.sh, ROUNDS times (default 2), the committed plans (families sm80,sm90)
#     then the plans with the relaxed raster rule (sm80,sm90r: sm90r.space.json, from make-space.py)
#     on configs/shapes/large.json and on the grid-125 shapes whose plans the rule changes
#     (grid125-changed.shapes.json).
# Prepared on the CPU machine: python3 make-space.py, then scripts/carry-build.sh with
#   "--shapes configs/shapes/large.json" "--shapes configs/shapes/grid-125.json" and the same two
#   with "--family sm80,sm90r --space-file db/results/large-explore/raster/sm90r.space.json".
# STEPS=sweep,ab picks the parts; D (seconds, default 540) bounds the whole run: a tune that would
# start with less than a minute left is skipped, saying so. Writes under $OUT: sweep-<shape>.sqlite
# and .log, {sm90,sm90r}-{large,grid125-changed}-R.sqlite and .log, gpu.txt, version.txt, summary.txt.
set -uo pipefail
here=db/results/large-explore/raster
cd "$(dirname "$0")/../../../.." || exit 2
source scripts/carry-env.sh
source scripts/bounded-tune.sh
winners=${WINNERS:-db/results/large-explore/h100-2578af5/h100-large.json}
steps=",${STEPS:-sweep,ab},"
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,power.limit --format=csv > "$OUT/gpu.txt"
"$T" --version > "$OUT/version.txt"

if [[ "$steps" == *,sweep,* ]]; then
  python3 - "$winners" > "$OUT/sweep-pins.txt" <<'PY'
import json, sys
for device in json.load(open(sys.argv[1]))["devices"]:
    for kernel in device["kernels"]:
        params = {k: v for k, v in kernel["config"]["params"].items() if k != "RASTER"}
        print(kernel["m"], kernel["n"], kernel["k"], ",".join(f"{k}={v}" for k, v in params.items()))
PY
  while read -r m n k pins; do
    echo "[[$m, $n, $k]]" > "/tmp/sweep-$m-$n-$k.json"
    bounded_tune "sweep-${m}x${n}x${k}" --shapes "/tmp/sweep-$m-$n-$k.json" --family sm90 --pin "$pins" \
      --max-candidates 0 --finalists 4 --verbose
  done < "$OUT/sweep-pins.txt"
fi

if [[ "$steps" == *,ab,* ]]; then
  D=$((${D:-540} - (SECONDS - BOUNDED_START))) bash scripts/space-ab.sh "$here/sm90r.space.json" configs/shapes/large.json \
    "$here/grid125-changed.shapes.json"
fi
echo "raster-ab: done after $((SECONDS - BOUNDED_START)) s" | tee -a "$OUT/summary.txt"
