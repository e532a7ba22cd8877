# Sourced by the experiment scripts a maintainer runs on a lent GPU machine, after carry-env.sh:
# bounded_tune NAME ARGS... runs `tune ARGS` into $OUT/NAME.sqlite with its log beside it and
# appends its geomean line to $OUT/summary.txt, killed when the D seconds (default 540) counted
# from BOUNDED_START (default: when this file was sourced) run out; a tune that would start with
# less than a minute left is skipped, saying so.
BOUNDED_START=${BOUNDED_START:-$SECONDS}
bounded_tune() {
  local name=$1 left=$((${D:-540} - (SECONDS - BOUNDED_START)))
  shift
  if [ "$left" -lt 60 ]; then echo "$name: skipped, ${left} s left" | tee -a "$OUT/summary.txt"; return; fi
  timeout --signal=KILL "$((left - 5))" "$T" tune "$@" --db "$OUT/$name.sqlite" > "$OUT/$name.log" 2>&1
  echo "$name (exit $?): $(grep -o 'geomean speedup [0-9.]*x vs cuBLASLt-autotune' "$OUT/$name.log" | tail -1)" |
    tee -a "$OUT/summary.txt"
}
