#!/usr/bin/env bash
# On the GPU machine: sm90 (PDL=1 under --l2 rotate) against sm90q (PDL=0), two rounds of
# tune --l2 rotate on pdl.shapes.json (scripts/space-ab.sh), then each database benched under
# --l2 rotate (ours and cuBLASLt-autotune) where bench can (bench knows the built-in families only,
# so the sm90q databases are not benched), so that tune's and bench's figures of the same winners
# come from one call:  OUT=... [D=300] db/results/h200-decode-pdl/run.sh
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
cd "$here/../../.." || exit 2
start=$SECONDS
TUNE_ARGS="--l2 rotate" ROUNDS=${ROUNDS:-2} D=$(( ${D:-300} * 2 / 3 )) bash scripts/space-ab.sh \
  "$here/sm90q.space.json" "$here/pdl.shapes.json"
source scripts/carry-env.sh
for db in "$OUT"/sm90-*.sqlite; do
  name=$(basename "$db" .sqlite)
  [ $(( ${D:-300} - (SECONDS - start) )) -gt 25 ] || { echo "bench $name: skipped, no time left"; continue; }
  timeout 60 "$T" bench --shapes "$here/pdl.shapes.json" --l2 rotate --db "$db" --mode offline \
    --providers ours,cublaslt_autotune --out "$OUT/bench-$name" > "$OUT/bench-$name.log" 2>&1
  echo "bench $name (exit $?)"
done | tee -a "$OUT/summary.txt"
