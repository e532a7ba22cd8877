#!/usr/bin/env bash
# Candidates side by side (tune --side-by-side K) against one at a time: the 30 shapes of
# configs/shapes/grid-125-sample30.json tuned from an empty database, the race of 16 with sm90f's
# calibrated factors and the default options, each with K = 1 and 8, in one call on one GPU
# (orders alternated), every measurement logged (CL2_TIMING_LOG) and summarized. Kernels from the
# carried cache (scripts/carry-build.sh with both plans). Writes to $OUT:
# {race16,default}-k{1,8}.{log,sqlite,jsonl.xz}, *-summary.md and times.txt.
set -uo pipefail
cd "$(dirname "$0")/../../.." || exit 2
source scripts/carry-env.sh
S=configs/shapes/grid-125-sample30.json
R16="--family sm80,sm90f --space-file db/results/calibrated-factors/sm90f.space.json --strategy race --max-candidates 16"
for run in race16:1 race16:8 default:8 default:1; do
  v=${run%%:*}; k=${run#*:}; args=""; [ "$v" = race16 ] && args="$R16"
  s0=$(date +%s.%N)
  # shellcheck disable=SC2086
  CL2_TIMING_LOG="$OUT/$v-k$k.jsonl" "$T" tune --shapes $S $args --side-by-side "$k" --db "$OUT/$v-k$k.sqlite" \
    > "$OUT/$v-k$k.log" 2>&1
  s1=$(date +%s.%N)
  echo "$v k=$k: $(python3 -c "print(f'{$s1-$s0:.1f}')") s; $(tail -n 1 "$OUT/$v-k$k.log" | cut -c1-160)" | tee -a "$OUT/times.txt"
  python3 scripts/timing_log_summary.py "$OUT/$v-k$k.jsonl" > "$OUT/$v-k$k-summary.md"
  xz -f "$OUT/$v-k$k.jsonl"
done
