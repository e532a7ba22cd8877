#!/usr/bin/env bash
# On the GPU machine: the plans before and after the wide ping-pong planning change (OLD: the CLI
# carried in .carry/old/, built at e38e6f3; NEW: .carry/bin/) on configs/shapes/large.json and the 12
# grid-125 shapes whose plans it changes (grid125-changed.shapes.json), alternating old and new
# ROUNDS times (default 2). Prepared on the CPU machine:
#   OLD_COMMIT=e38e6f3 bash scripts/carry-build.sh "--shapes configs/shapes/large.json" \
#     "--shapes db/results/large-explore/grid125-changed.shapes.json"
#   (and the same two compile-only runs with .carry/old/cuda-l2-tune for the old plans' kernels)
# Writes $OUT/{old,new}-{large,grid125}-R.sqlite and .log; prints each run's geomean.
set -uo pipefail
cd "$(dirname "$0")/../../.."
source scripts/carry-env.sh
D=db/results/large-explore
for tool in .carry/old/cuda-l2-tune .carry/bin/cuda-l2-tune; do
  [ -x $tool ] || { echo "plan-ab: $tool missing; prepare .carry/ as this script's header says" >&2; exit 2; }
done
nvidia-smi --query-gpu=name --format=csv,noheader > "$OUT/gpu.txt"
{ .carry/old/cuda-l2-tune --version; .carry/bin/cuda-l2-tune --version; } > "$OUT/version.txt"
for round in $(seq "${ROUNDS:-2}"); do
  for version in old new; do
    tool=.carry/$([ $version = old ] && echo old || echo bin)/cuda-l2-tune
    for set in large grid125; do
      shapes=configs/shapes/large.json
      [ $set = grid125 ] && shapes=$D/grid125-changed.shapes.json
      run=$OUT/$version-$set-$round
      $tool tune --shapes $shapes --db $run.sqlite > $run.log 2>&1
      echo "$version $set $round: $(tail -2 $run.log | head -1 | grep -o 'geomean speedup [0-9.]*x vs cuBLASLt-autotune')"
    done
  done
done
