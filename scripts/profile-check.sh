#!/usr/bin/env bash
# The `profile` material for the README (issue 10, acceptance 1), on the GPU machine: the three
# shapes of configs/shapes/profile-check.json tuned where the database lacks them (sm90, a few
# candidates each, with --counters so tune's counter path runs too), then `profile` of each: our
# winner's counters next to cuBLASLt-autotune's, with their limiters. A few minutes on the H200.
# Prepared on the CPU machine (binaries and compiled candidates in .carry/):
#   scripts/carry-build.sh "--shapes configs/shapes/profile-check.json --family sm90 --max-candidates 8"
# then, on the GPU machine:
#   OUT=/some/folder scripts/profile-check.sh [DB]
# DB defaults to $OUT/profile-check.sqlite (a copy of a tuned database may be given instead).
# Writes under $OUT: profile-<M>x<N>x<K>.txt (stdout, then stderr, then the exit status), tune.log,
# show.txt, export.json (its winners' measured clocks), env.txt (GPU, driver, profiling permission).
set -uo pipefail
cd "$(dirname "$0")/.."
OUT="${OUT:-$PWD/out}"
mkdir -p "$OUT"
db="${1:-$OUT/profile-check.sqlite}"
shapes=configs/shapes/profile-check.json
export CUDA_L2_TUNE_CACHE="$PWD/.carry/cache"
if [ ! -d "$CUDA_L2_TUNE_CACHE" ] && [ -f .carry/cache.tar.xz ]; then tar xJf .carry/cache.tar.xz -C .carry; fi
tool="$PWD/.carry/bin/cuda-l2-tune"
[ -x "$tool" ] || tool="$PWD/build/cuda-l2-tune"

{
  nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,clocks_throttle_reasons.active --format=csv
  echo "RmProfilingAdminOnly: $(grep -h RmProfilingAdminOnly /proc/driver/nvidia/params 2>/dev/null || echo unknown)"
  echo "user: $(id -un)"
} > "$OUT/env.txt" 2>&1

# Shapes that already have a winner are skipped by tune itself.
"$tool" tune --shapes "$shapes" --db "$db" --family sm90 --max-candidates 8 --watchdog-seconds 10 --counters \
  > "$OUT/tune.log" 2>&1
echo "tune exit $?" >> "$OUT/tune.log"

for mnk in "64 4096 4096" "1024 1024 12288" "8192 8192 8192"; do
  file="$OUT/profile-${mnk// /x}.txt"
  # shellcheck disable=SC2086
  "$tool" profile $mnk --db "$db" > "$file" 2>> "$file.err"
  status=$?
  cat "$file.err" >> "$file" && rm -f "$file.err"
  echo "exit $status" >> "$file"
  cat "$file"
done

for mnk in "64 4096 4096" "1024 1024 12288" "8192 8192 8192"; do
  # shellcheck disable=SC2086
  "$tool" show --db "$db" $mnk
done > "$OUT/show.txt" 2>&1
"$tool" export --db "$db" --format json -o "$OUT/export.json" 2>> "$OUT/show.txt"
