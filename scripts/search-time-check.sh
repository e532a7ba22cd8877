#!/usr/bin/env bash
# Issue 11 on the GPU machine, one device call: how long tuning takes, where the time goes and what
# it reaches. Tunes SHAPES (default configs/shapes/grid-1000-sample100.json, 100 shapes drawn from
# the 1000-shape grid) from an empty database with TOOL (the carried build), and, given OLD_TOOL (a
# build of an earlier commit, scripts/carry-build.sh puts one in .carry/old with OLD_COMMIT set),
# with that one too, old first; the kernel cache is filled beforehand, so both times are the GPU's.
# Then `compare` says per shape how the winners moved between the two databases.
# Prepared on the CPU machine:
#   OLD_COMMIT=9cb86db scripts/carry-build.sh "--shapes configs/shapes/grid-1000-sample100.json"
# then: OUT=/some/folder [OLD_TOOL=.carry/old/cuda-l2-tune] scripts/search-time-check.sh
# The new run logs every measurement (CL2_TIMING_LOG, summarized by scripts/timing_log_summary.py).
# Writes $OUT/{old,new}.sqlite and .log, $OUT/timing-new.jsonl and $OUT/search-time.md.
set -uo pipefail
cd "$(dirname "$0")/.." || exit 2
if [ -n "${OLD_TOOL:-}" ] && [ ! -x "$OLD_TOOL" ]; then
  echo "OLD_TOOL=$OLD_TOOL: no such program; build one with OLD_COMMIT=<rev> scripts/carry-build.sh, or leave OLD_TOOL out" >&2
  exit 2
fi
source scripts/carry-env.sh
SHAPES=${SHAPES:-configs/shapes/grid-1000-sample100.json}
OLD_TOOL=${OLD_TOOL:-}

# tune_timed NAME TOOL: tunes SHAPES into $OUT/NAME.sqlite; prints the wall seconds.
tune_timed() {
  local start end
  rm -f "$OUT/$1.sqlite"*
  start=$(date +%s.%N)
  "$2" tune --shapes "$SHAPES" --db "$OUT/$1.sqlite" ${TUNE_EXTRA:-} > "$OUT/$1.log" 2>&1
  end=$(date +%s.%N)
  python3 -c "print(f'{$end - $start:.1f}')"
}

{
  echo "# Tuning time on $(basename "$SHAPES" .json) ($(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -1), $("$T" --version))"
  echo
  echo "Each run tunes $SHAPES from an empty database with the default options${TUNE_EXTRA:+ and $TUNE_EXTRA};"
  echo "the kernel cache was filled beforehand. Wall time of the whole command."
  echo
  if [ -n "$OLD_TOOL" ]; then
    old_seconds=$(tune_timed old "$OLD_TOOL")
    echo "- old ($OLD_TOOL): $old_seconds s. $(grep '^done in' "$OUT/old.log")"
  fi
  rm -f "$OUT/timing-new.jsonl"
  new_seconds=$(CL2_TIMING_LOG="$OUT/timing-new.jsonl" tune_timed new "$T")
  echo "- new ($T): $new_seconds s. $(grep '^done in' "$OUT/new.log")"
  echo "  $(grep '^time by stage' "$OUT/new.log")"
  echo
  echo "## The new run's measurements by stopping rule"
  echo
  python3 scripts/timing_log_summary.py "$OUT/timing-new.jsonl"
  if [ -n "$OLD_TOOL" ]; then
    echo
    echo "## Winners, new against old"
    echo
    "$T" compare "$OUT/old.sqlite" "$OUT/new.sqlite" 2>&1 | head -60
  fi
} > "$OUT/search-time.md"
cat "$OUT/search-time.md"
