#!/usr/bin/env bash
# On the GPU machine: every planned variant of an exploration family (a space file from
# scripts/derive_space.py) on a shapes file, with tune's default plan on the same shapes before and
# after it, each from an empty database, so the plan's figure is taken twice around the exploration:
#   OUT=... [TUNE_ARGS="--l2 rotate"] scripts/explore-family.sh SPACE_FILE SHAPES_FILE
# TUNE_ARGS: tune options every run shares (e.g. the L2 policy).
# Prepare the kernel cache on the CPU machine with scripts/carry-build.sh ("--shapes SHAPES_FILE" and
# "--shapes SHAPES_FILE --family <family> --space-file SPACE_FILE --max-candidates 0").
# Writes $OUT/plan-1.sqlite, <family>.sqlite, plan-2.sqlite, their logs, gpu.txt and version.txt.
set -uo pipefail
[ $# -eq 2 ] || { echo "usage: explore-family.sh SPACE_FILE SHAPES_FILE" >&2; exit 2; }
space=$(realpath "$1") shapes=$(realpath "$2")
cd "$(dirname "$0")/.." || exit 2
source scripts/space-file.sh
explored=$(space_family "$space") || exit 2
source scripts/carry-env.sh
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,power.limit --format=csv > "$OUT/gpu.txt"
"$T" --version > "$OUT/version.txt"
for run in plan-1 "$explored" plan-2; do
  family=()
  [ "$run" = "$explored" ] && family=(--family "$explored" --space-file "$space" --max-candidates 0)
  # shellcheck disable=SC2086  # TUNE_ARGS: options, split on spaces
  "$T" tune --shapes "$shapes" "${family[@]}" ${TUNE_ARGS:-} --db "$OUT/$run.sqlite" > "$OUT/$run.log" 2>&1
  echo "$run (exit $?): $(grep -o 'geomean speedup [0-9.]*x vs cuBLASLt-autotune' "$OUT/$run.log" | tail -1)"
done
