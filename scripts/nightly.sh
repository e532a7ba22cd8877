#!/usr/bin/env bash
# The nightly tuning job: builds, tunes SHAPES into a fresh database under a time budget, exports
# the best-kernel table and compares it with the previous one. Everything lands in one folder:
#   nightly.sqlite                 the tuning database (every trial)
#   best-kernels.json / .md / .csv the export
#   summary.md, junit.xml          the comparison (compare's Markdown and JUnit XML)
#   previous.json                  the export of the run before, kept when a new run starts
# Exit status: 0 no regression (or nothing to compare with yet), 1 a shape regressed, 2 bad input.
#
#   scripts/nightly.sh SHAPES [--budget-minutes N] [--baseline PATH] [--out DIR] [--tool PATH]
#                             [-- TUNE_ARGS...]
#
# --baseline: export (.json) or database to compare with; default previous.json in DIR, else the
#   committed db/results/h200-<shapes file name without dashes>.json where it exists.
# --tool: a built cuda-l2-tune to use instead of building (scripts/build.sh) first.
# A run that was interrupted (no run-complete marker in DIR) resumes its database when started
# again with the same folder; a completed one is moved aside and a fresh database is tuned.
set -euo pipefail
cd "$(dirname "$0")/.."

usage() { echo "usage: scripts/nightly.sh SHAPES [--budget-minutes N] [--baseline PATH] [--out DIR] [--tool PATH] [-- TUNE_ARGS...]" >&2; exit 2; }
fail() { echo "nightly: $*" >&2; exit 2; }

[ $# -ge 1 ] || usage
shapes=$1
shift
budget_minutes=0 baseline="" out=artifacts/nightly tool=""
tune_args=()
while [ $# -gt 0 ]; do
  case "$1" in
    --budget-minutes) [ $# -ge 2 ] || usage; budget_minutes=$2; shift 2 ;;
    --baseline) [ $# -ge 2 ] || usage; baseline=$2; shift 2 ;;
    --out) [ $# -ge 2 ] || usage; out=$2; shift 2 ;;
    --tool) [ $# -ge 2 ] || usage; tool=$2; shift 2 ;;
    --) shift; tune_args=("$@"); break ;;
    *) usage ;;
  esac
done
[ -f "$shapes" ] || fail "$shapes: no such shapes file"
case "$budget_minutes" in '' | *[!0-9]*) fail "--budget-minutes $budget_minutes: expected a whole number of minutes (0 = no limit)" ;; esac
[ -z "$baseline" ] || [ -f "$baseline" ] || fail "--baseline $baseline: no such file"

if [ -z "$tool" ]; then
  bash scripts/build.sh >&2
  tool=build/cuda-l2-tune
fi
[ -x "$tool" ] || fail "--tool $tool: not an executable"

mkdir -p "$out"
db="$out/nightly.sqlite"
if [ -f "$out/run-complete" ]; then
  # Last night's results become the reference for tonight's.
  mv -f "$out/best-kernels.json" "$out/previous.json"
  rm -f "$out/run-complete" "$out/summary.md" "$out/junit.xml" "$db" "$db-wal" "$db-shm"
elif [ -f "$db" ]; then
  echo "nightly: resuming the interrupted run in $db" >&2
fi

if [ -z "$baseline" ]; then
  committed="db/results/h200-$(basename "$shapes" .json | tr -d -).json"
  if [ -f "$out/previous.json" ]; then baseline="$out/previous.json"
  elif [ -f "$committed" ]; then baseline="$committed"
  fi
fi

tune_rc=0
"$tool" tune --shapes "$shapes" --db "$db" --budget-seconds $((budget_minutes * 60)) ${tune_args[@]+"${tune_args[@]}"} || tune_rc=$?
# 1 means some shape got no verified winner: the comparison reports it as lost. Anything else
# means the run could not be done (bad input, no GPU).
[ "$tune_rc" -le 1 ] || exit "$tune_rc"

for format in json md csv; do
  "$tool" export --db "$db" --format "$format" -o "$out/best-kernels.$format"
done

compare_rc=0
if [ -n "$baseline" ]; then
  "$tool" compare "$baseline" "$out/best-kernels.json" --markdown "$out/summary.md" --junit "$out/junit.xml" ||
    compare_rc=$?
else
  printf '# cuda-l2-tune nightly\n\nNo baseline to compare with yet: this run (%s) becomes the next one'"'"'s reference.\n' \
    "$shapes" > "$out/summary.md"
fi
[ "$compare_rc" -le 1 ] || exit "$compare_rc"
touch "$out/run-complete"
echo "nightly: results in $out (summary.md, junit.xml, best-kernels.*); baseline: ${baseline:-none}" >&2
exit "$compare_rc"
