#!/usr/bin/env bash
# On the GPU machine: configs/shapes/large.json tuned by the committed plan (default options) and by
# every variant of xodd (make-spaces.py here), then the two winners of each shape head to head in one
# bench process (ours = xodd's winner, runtime = the plan's), interleaved.
# Prepared on the CPU machine (both plans in the carried kernel cache):
#   python3 db/results/large-oddbn/make-spaces.py
#   scripts/carry-build.sh "--shapes configs/shapes/large.json" \
#     "--shapes configs/shapes/large.json --family xodd --space-file db/results/large-oddbn/xodd.space.json --max-candidates 0"
#   OUT=... db/results/large-oddbn/run.sh
set -uo pipefail
cd "$(dirname "$0")/../../.."
source scripts/carry-env.sh
D=db/results/large-oddbn
S=configs/shapes/large.json
nvidia-smi --query-gpu=name,clocks.sm,power.limit --format=csv > "$OUT/gpu.txt"
$T --version > "$OUT/version.txt"
$T tune --shapes $S --db "$OUT/plan.sqlite" > "$OUT/plan.log" 2>&1
echo "plan: $(tail -2 "$OUT/plan.log" | head -1)"
$T tune --shapes $S --family xodd --space-file $D/xodd.space.json --max-candidates 0 --db "$OUT/xodd.sqlite" \
  > "$OUT/xodd.log" 2>&1
echo "xodd: $(tail -2 "$OUT/xodd.log" | head -1)"
$T bench --shapes $S --db "$OUT/xodd.sqlite" --runtime-db "$OUT/plan.sqlite" --space-file $D/xodd.space.json \
  --providers ours,runtime --mode offline --out "$OUT/head-to-head" > "$OUT/head-to-head.log" 2>&1
echo "head to head: $(tail -1 "$OUT/head-to-head.log")"
