#!/usr/bin/env bash
# Queues a sharded tuning run on SLURM: a job array of SHARDS tasks (one GPU each) and the merge,
# which starts once every task has succeeded (and is cancelled if one fails). Run it from
# anywhere; the jobs start in the repository root.
#
#   deploy/slurm/submit.sh [SHAPES] [-- EXTRA_SBATCH_ARGS...]
#
# Environment: SHARDS (default 8), OUT (default artifacts/slurm), TOOL (default
# build/cuda-l2-tune), CUDA_L2_TUNE_CACHE (default $OUT/kernel-cache), TUNE_ARGS (extra `tune`
# arguments). Relative paths are taken from the repository root. EXTRA_SBATCH_ARGS (partition,
# account, time limit...) go to both jobs.
set -euo pipefail

here="$(cd "$(dirname "$0")" && pwd)"
repo="$(cd "$here/../.." && pwd)"
cd "$repo"

SHAPES="${SHAPES:-configs/shapes/grid-125.json}"
if [ $# -gt 0 ] && [ "$1" != "--" ]; then
  SHAPES="$1"
  shift
fi
if [ "${1:-}" = "--" ]; then shift; fi
SHARDS="${SHARDS:-8}"
OUT="${OUT:-artifacts/slurm}"
TOOL="${TOOL:-build/cuda-l2-tune}"

fail() { echo "submit: $*" >&2; exit 2; }
case "$SHARDS" in
  '' | *[!0-9]* | 0) fail "SHARDS must be a positive integer, got '$SHARDS'" ;;
esac
[ -f "$SHAPES" ] || fail "shapes file $SHAPES not found"
[ -x "$TOOL" ] || fail "$TOOL is not executable; build it first (scripts/build.sh) or set TOOL"

# Absolute paths, so that the jobs do not depend on their working directory.
mkdir -p "$OUT"
OUT="$(cd "$OUT" && pwd)"
SHAPES="$(cd "$(dirname "$SHAPES")" && pwd)/$(basename "$SHAPES")"
TOOL="$(cd "$(dirname "$TOOL")" && pwd)/$(basename "$TOOL")"
export CUDA_L2_TUNE_CACHE="${CUDA_L2_TUNE_CACHE:-$OUT/kernel-cache}"
mkdir -p "$CUDA_L2_TUNE_CACHE"

# One run per OUT: the tasks read the run's shard count and shapes file from these files.
for pair in "shards=$SHARDS" "shapes=$SHAPES"; do
  name="${pair%%=*}" value="${pair#*=}"
  if [ -f "$OUT/$name" ]; then
    [ "$(cat "$OUT/$name")" = "$value" ] ||
      fail "$OUT holds a run with $name $(cat "$OUT/$name"), not $value; choose another OUT"
  else
    printf '%s\n' "$value" > "$OUT/$name"
  fi
done
export SHAPES OUT TOOL SHARDS

array_id="$(sbatch --parsable --chdir="$repo" --array="0-$((SHARDS - 1))" \
  --output="$OUT/tune-%A_%a.out" "$@" "$here/tune-array.sbatch")"
array_id="${array_id%%;*}"  # --parsable prints "jobid" or "jobid;cluster"
merge_id="$(sbatch --parsable --chdir="$repo" --dependency="afterok:$array_id" --kill-on-invalid-dep=yes \
  --output="$OUT/merge-%j.out" "$@" "$here/merge.sbatch")"
merge_id="${merge_id%%;*}"

echo "submitted tune array $array_id ($SHARDS shards of $SHAPES) and merge $merge_id"
echo "logs in $OUT; results: $OUT/all.json and $OUT/all.md once job $merge_id has finished"
