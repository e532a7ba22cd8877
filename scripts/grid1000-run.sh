#!/usr/bin/env bash
# Issue 11's acceptance on the GPU machine: configs/shapes/grid-1000.json tuned with the default
# options from an empty database and an empty kernel cache, in as many device calls as the
# per-command limit asks, as one machine would run it with a pause: each call runs tune for at
# most LIMIT seconds (default 560), resuming from the previous call's database, kernel cache and
# times where they are given (DB, CACHE, TIME_FILE: its $OUT/grid1000.sqlite,
# grid1000-cache.tar.xz and grid1000-time.txt, carried back in), and appends its wall seconds to
# $OUT/grid1000-time.txt; the figure is their sum. When the run has completed: the total, and
# $OUT/<gpu>-grid1000.json and .md (export; <gpu> h200, h100, ... from the GPU's name, so that
# an export says which card it was measured on).
#   OUT=/some/folder [DB=.carry/grid1000.sqlite CACHE=.carry/grid1000-cache.tar.xz \
#     TIME_FILE=.carry/grid1000-time.txt] [LIMIT=560] scripts/grid1000-run.sh
set -uo pipefail
cd "$(dirname "$0")/.." || exit 2
source scripts/carry-env.sh
for given in DB CACHE TIME_FILE; do
  if [ -n "${!given:-}" ] && [ ! -f "${!given}" ]; then
    echo "$given=${!given}: no such file; give the previous call's, or leave $given out to start afresh" >&2
    exit 2
  fi
done
export CUDA_L2_TUNE_CACHE="$OUT/grid1000-cache"  # not the carried one: the run compiles everything
rm -rf "$CUDA_L2_TUNE_CACHE"
mkdir -p "$CUDA_L2_TUNE_CACHE"
if [ -n "${CACHE:-}" ]; then tar xJf "$CACHE" -C "$CUDA_L2_TUNE_CACHE"; fi
db="$OUT/grid1000.sqlite"
times="$OUT/grid1000-time.txt"
if [ -n "${DB:-}" ]; then cp "$DB" "$db"; else rm -f "$db"*; fi
if [ -n "${TIME_FILE:-}" ]; then cp "$TIME_FILE" "$times"; else : > "$times"; fi
start=$(date +%s.%N)
# shellcheck disable=SC2086  # TUNE_EXTRA: e.g. --fake-gpu, for a dry run without a GPU
timeout --signal=KILL "${LIMIT:-560}" "$T" tune --shapes configs/shapes/grid-1000.json --db "$db" ${TUNE_EXTRA:-} \
  >> "$OUT/grid1000.log" 2>&1
status=$?
end=$(date +%s.%N)
# Whatever the WAL holds goes into the database file, the one file the next call is given.
python3 -c "import sqlite3, sys; sqlite3.connect(sys.argv[1]).execute('PRAGMA wal_checkpoint(TRUNCATE)')" "$db"
python3 -c "print(f'{$end - $start:.1f}')" >> "$times"
tar cJf "$OUT/grid1000-cache.tar.xz" -C "$CUDA_L2_TUNE_CACHE" . && rm -rf "$CUDA_L2_TUNE_CACHE"
total=$(python3 -c "import sys; print(f'{sum(float(x) for x in open(sys.argv[1]) if x.strip()):.1f}')" "$times")
if [ "$status" -eq 137 ]; then
  echo "tune stopped at the limit after $(tail -1 "$times") s; $total s so far over $(wc -l < "$times") calls:" \
       "carry $db, $OUT/grid1000-cache.tar.xz and $times into the next call (DB=..., CACHE=..., TIME_FILE=...)"
  tail -3 "$OUT/grid1000.log"
  exit 1
fi
gpu=$(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -1 | grep -oiE '[a-z][0-9]{2,3}' | head -1 |
      tr '[:upper:]' '[:lower:]')
"$T" export --db "$db" --format json > "$OUT/${gpu:-gpu}-grid1000.json"
"$T" export --db "$db" --format md > "$OUT/${gpu:-gpu}-grid1000.md"
echo "grid-1000 tuned in $total s of GPU-machine time over $(wc -l < "$times") calls; tune's exit status $status" \
     "(1: some shape has no verified winner)"
grep -E '^(done in|time by stage)' "$OUT/grid1000.log" | tail -2
