#!/usr/bin/env bash
# Issue 11's acceptance 2 on the GPU machine: configs/shapes/grid-125-sample30.json (30 grid-125
# shapes across the size classes) tuned by a wide reference search and by the strategy under test,
# then compared per shape (scripts/strategy_compare.py). Every variant the families plan cannot be
# the reference: that is 10^4 to 6x10^4 per grid-125 shape for sm90, and tune refuses plans of more
# than 4096 without a cap. The reference is therefore a wide race (REF_ARGS, default 512 candidates
# a shape from the model, the best 64 screened) and the comparison says so.
# Prepared on the CPU machine:
#   scripts/carry-build.sh "--shapes configs/shapes/grid-125-sample30.json --strategy race --max-candidates 128" \
#     "--shapes configs/shapes/grid-125-sample30.json"
# then: OUT=/some/folder [STRATEGY_ARGS="--strategy race"] [REF_ARGS=...] [REF_DB=...] scripts/strategy-check.sh
# Writes $OUT/reference.sqlite, strategy.sqlite, their logs, head-to-head/ (bench of the two winners
# of each shape, interleaved) and comparison.md. REF_DB: the reference of an earlier run on this GPU
# (its reference.sqlite, REF_ARGS as then), copied in place of tuning it again, so that several
# strategies are set against one reference. SEED_DB: a database of other shapes tuned on this GPU
# that the strategy's database starts from (scripts/seed_db_copy.py drops SHAPES from the copy), for
# --strategy seeded.
set -uo pipefail
cd "$(dirname "$0")/.." || exit 2
if [ -n "${REF_DB:-}" ] && [ ! -f "$REF_DB" ]; then
  echo "REF_DB=$REF_DB: no such file; give an earlier run's reference.sqlite, or leave REF_DB out" >&2
  exit 2
fi
if [ -n "${SEED_DB:-}" ] && [ ! -f "$SEED_DB" ]; then
  echo "SEED_DB=$SEED_DB: no such file; give a database tuned on this GPU, or leave SEED_DB out" >&2
  exit 2
fi
source scripts/carry-env.sh
SHAPES=${SHAPES:-configs/shapes/grid-125-sample30.json}
REF_ARGS=${REF_ARGS:---strategy race --max-candidates 128}
STRATEGY_ARGS=${STRATEGY_ARGS:-}
if [ -n "${REF_DB:-}" ]; then
  cp "$REF_DB" "$OUT/reference.sqlite"
  echo "reference ($REF_ARGS): $REF_DB, tuned earlier" | tee "$OUT/reference.log"
else
  # shellcheck disable=SC2086
  "$T" tune --shapes "$SHAPES" --db "$OUT/reference.sqlite" $REF_ARGS > "$OUT/reference.log" 2>&1
  echo "reference ($REF_ARGS): $(tail -2 "$OUT/reference.log")"
fi
rm -f "$OUT/strategy.sqlite"*
if [ -n "${SEED_DB:-}" ]; then python3 scripts/seed_db_copy.py "$SEED_DB" "$SHAPES" "$OUT/strategy.sqlite" || exit 2; fi
# shellcheck disable=SC2086
"$T" tune --shapes "$SHAPES" --db "$OUT/strategy.sqlite" $STRATEGY_ARGS > "$OUT/strategy.log" 2>&1
echo "strategy (${STRATEGY_ARGS:-defaults}${SEED_DB:+, seeded from $SEED_DB}): $(tail -2 "$OUT/strategy.log")"
# Both winners of each shape head to head in one process: ours from the strategy's database, the
# runtime dispatching the reference's. The runtime runs cuBLASLt where the reference recorded it
# faster than its winner (14 of the 30 shapes on an H100), which left those shapes to the runs'
# ratios; so it dispatches from a copy without the library's times, and runs the reference's own
# winner on every shape.
cp "$OUT/reference.sqlite" "$OUT/reference-kernels.sqlite"
python3 -c 'import sqlite3, sys; db = sqlite3.connect(sys.argv[1]); db.execute("UPDATE winners SET cublaslt_autotune_us = NULL"); db.commit()' \
  "$OUT/reference-kernels.sqlite" || exit 2
# Winners of a family from a space file need that file again: each --space-file of either side, once.
mapfile -t space_files < <(for args in "$REF_ARGS" "$STRATEGY_ARGS"; do
  read -ra words <<< "$args"
  for ((i = 0; i + 1 < ${#words[@]}; i++)); do [ "${words[i]}" = --space-file ] && echo "${words[i + 1]}"; done
done | sort -u)
space_args=()
for file in "${space_files[@]}"; do space_args+=(--space-file "$file"); done
"$T" bench --shapes "$SHAPES" --db "$OUT/strategy.sqlite" --runtime-db "$OUT/reference-kernels.sqlite" "${space_args[@]}" \
  --providers ours,runtime --mode offline --out "$OUT/head-to-head" > "$OUT/head-to-head.log" 2>&1
echo "head to head: $(tail -1 "$OUT/head-to-head.log")"
# A reference tuned with older templates cannot be run again, so every shape is judged by the two
# runs' ratios to the library instead, which swing with the library's time in each run.
if grep -q "template changed since" "$OUT/head-to-head.log"; then
  echo "head to head: the reference's kernels were tuned with templates that have changed since; leave REF_DB out" \
       "to tune a reference with these, or read the comparison as judged by the runs' ratios alone"
fi
head_to_head=()
[ -f "$OUT/head-to-head/bench.csv" ] && head_to_head=("$OUT/head-to-head/bench.csv")
{
  echo "# Strategy check: ${STRATEGY_ARGS:-the default options}${SEED_DB:+ (its database starting from $SEED_DB without these shapes)} against a reference of $REF_ARGS"
  echo "($SHAPES, $(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -1), $("$T" --version))"
  echo
  python3 scripts/strategy_compare.py "$OUT/reference.sqlite" "$OUT/strategy.sqlite" "${head_to_head[@]}"
} > "$OUT/comparison.md"
cat "$OUT/comparison.md"
