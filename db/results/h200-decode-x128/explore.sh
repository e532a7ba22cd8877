#!/usr/bin/env bash
# On the GPU machine (binaries and kernel cache in .carry/, scripts/carry-build.sh): the committed
# plan at 128x5120x5120, every x128 variant, then the plan again, each from an empty database under
# --l2 rotate, so the plan's ratio to cuBLASLt-autotune is taken twice around the exploration's.
# Writes $OUT/x128/{plan-1,x128,plan-2}.{sqlite,log}.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
cd "$here/../../.." || exit 2
source scripts/carry-env.sh
out="$OUT/x128"
mkdir -p "$out"
for run in plan-1 x128 plan-2; do
  family=()
  [ "$run" = x128 ] && family=(--family x128 --space-file "$here/x128.space.json" --max-candidates 0)
  "$T" tune --shapes "$here/x128.shapes.json" --l2 rotate "${family[@]}" --db "$out/$run.sqlite" > "$out/$run.log" 2>&1
  echo "$run (exit $?): $(grep -o 'geomean speedup [0-9.]*x vs cuBLASLt-autotune' "$out/$run.log" | tail -1)"
done
