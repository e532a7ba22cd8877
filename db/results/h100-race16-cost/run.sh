#!/usr/bin/env bash
# On the GPU machine: what a race of 16 with sm90f's factors costs against the default options on
# configs/shapes/grid-1000-sample100.json from an empty database: each first compiles its plan from
# an empty kernel cache (tune --compile-only: the CPUs' share of a run from scratch), then tunes with
# that cache (the GPU's share). Writes $OUT/times.txt, compile-*.log, tune-*.log and *.sqlite.
#   OUT=/some/folder db/results/h100-race16-cost/run.sh
set -uo pipefail
cd "$(dirname "$0")/../../.." || exit 2
source scripts/carry-env.sh
shapes=configs/shapes/grid-1000-sample100.json
race16="--family sm80,sm90f --space-file db/results/calibrated-factors/sm90f.space.json --strategy race --max-candidates 16"
for v in default race16; do
  args=""; [ $v = race16 ] && args=$race16
  export CUDA_L2_TUNE_CACHE="$OUT/cache-$v"; rm -rf "$CUDA_L2_TUNE_CACHE" "$OUT/$v.sqlite"*; mkdir -p "$CUDA_L2_TUNE_CACHE"
  s0=$(date +%s.%N)
  # shellcheck disable=SC2086
  "$T" tune --shapes $shapes --compile-only $args --db "$OUT/compile-$v.sqlite" > "$OUT/compile-$v.log" 2>&1
  s1=$(date +%s.%N)
  # shellcheck disable=SC2086
  "$T" tune --shapes $shapes $args --db "$OUT/$v.sqlite" > "$OUT/tune-$v.log" 2>&1
  s2=$(date +%s.%N)
  python3 -c "print(f'$v compile {$s1 - $s0:.1f} s, tune {$s2 - $s1:.1f} s')" | tee -a "$OUT/times.txt"
  rm -rf "$CUDA_L2_TUNE_CACHE" "$OUT/compile-$v.sqlite"*
done
