#!/usr/bin/env bash
# On the GPU machine: every variant of an exploration family (FAMILY, default xshort from
# make-space.py; xwrite from make-write-space.py) on SHAPES (default shortk.shapes.json, grid-125's
# short-K shapes, K = 256 and 1024, with many tiles; write.shapes.json for xwrite), and tune's
# default plan on the same shapes before and after it, each from an empty database, so the plan's
# figure is taken twice around the exploration. Prepared on the CPU machine: python3 make-space.py, then scripts/carry-build.sh with
#   "--shapes db/results/shortk-explore/shortk.shapes.json" and the same with
#   "--family xshort --space-file db/results/shortk-explore/xshort.space.json --max-candidates 0".
# Writes $OUT/plan-1.sqlite, $FAMILY.sqlite, plan-2.sqlite, their logs, gpu.txt and version.txt.
set -uo pipefail
here=db/results/shortk-explore
cd "$(dirname "$0")/../../.." || exit 2
source scripts/carry-env.sh
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,power.limit --format=csv > "$OUT/gpu.txt"
"$T" --version > "$OUT/version.txt"
explored=${FAMILY:-xshort}
shapes=$here/${SHAPES:-shortk.shapes.json}
for run in plan-1 "$explored" plan-2; do
  family=()
  [ "$run" = "$explored" ] && family=(--family "$explored" --space-file "$here/$explored.space.json" --max-candidates 0)
  "$T" tune --shapes "$shapes" "${family[@]}" --db "$OUT/$run.sqlite" > "$OUT/$run.log" 2>&1
  echo "$run (exit $?): $(grep -o 'geomean speedup [0-9.]*x vs cuBLASLt-autotune' "$OUT/$run.log" | tail -1)"
done
