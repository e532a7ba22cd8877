#!/usr/bin/env bash
# On the GPU machine: two variants of each shape (own-clock.txt: M N K A-PINS B-PINS a line), each
# benched alone (bench --providers ours: its calls back to back, nothing interleaved), cuBLASLt-autotune
# alone (after its algorithm search, so on a GPU that search has warmed), and each variant interleaved
# with cuBLASLt-autotune as bench and tune time them (a+lib, b+lib; RUNS: a subset), ROUNDS times in
# alternating order, one process each. clock_windows.py reads each process's clock and power.
# Writes $OUT/own-clock.tsv (round, shape, run, provider, GPU µs per call), $OUT/windows.tsv (each
# bench process's start and end, ms since the epoch) and $OUT/clock.csv (the SM clock and power
# draw every 50 ms, nvidia-smi), to read each process's clock from.
# Prepared on the CPU machine: both variants of each shape in the carried kernel cache (run.sh's
# recipe, with each line's two pin lists).
set -uo pipefail
cd "$(dirname "$0")/../../.."
source scripts/carry-env.sh
here=db/results/large-cluster-ab
printf 'round\tshape\trun\tprovider\tgpu_us\n' > "$OUT/own-clock.tsv"
printf 'round\tshape\trun\tstart_ms\tend_ms\n' > "$OUT/windows.tsv"
nvidia-smi --query-gpu=timestamp,clocks.sm,power.draw --format=csv,noheader -lms 50 > "$OUT/clock.csv" &
sampler=$!
trap 'kill $sampler 2>/dev/null' EXIT
# Rows of bench.csv: "provider<TAB>gpu_us" for each provider timed.
gpu_us() { python3 -c "import csv,sys; [print(x['provider'], x['gpu_us'], sep='\t') for x in csv.DictReader(open(sys.argv[1]))]" "$1/bench.csv"; }
while read -r m n k a b; do
  shape="${m}x${n}x${k}"; echo "[[$m, $n, $k]]" > "$OUT/$shape.json"
  for v in a b; do
    pins=$([ $v = a ] && echo "$a" || echo "$b")
    $T tune --shapes "$OUT/$shape.json" --family sm90 --pin "$pins" --db "$OUT/$shape-$v.sqlite" > "$OUT/$shape-$v-tune.log" 2>&1
  done
  for ((round = 1; round <= ${ROUNDS:-3}; round++)); do
    runs=${RUNS:-a b lib a+lib b+lib}
    ((round % 2 == 0)) && runs=$(printf '%s\n' $runs | tac | tr '\n' ' ')
    for run in $runs; do
      db="$OUT/$shape-${run:0:1}.sqlite"; providers=ours
      [ "$run" = lib ] && { db="$OUT/$shape-a.sqlite"; providers=cublaslt_autotune; }
      [ "${run#*+}" = lib ] && [ "$run" != lib ] && providers=ours,cublaslt_autotune
      out="$OUT/bench-$shape-${run/+/-}-$round"
      start=$(date +%s%3N)
      $T bench --shapes "$OUT/$shape.json" --db "$db" --providers $providers --mode offline --out "$out" > "$out.log" 2>&1
      printf '%s\t%s\t%s\t%s\t%s\n' "$round" "$shape" "$run" "$start" "$(date +%s%3N)" >> "$OUT/windows.tsv"
      gpu_us "$out" | while read -r provider us; do
        printf '%s\t%s\t%s\t%s\t%s\n' "$round" "$shape" "$run" "$provider" "$us" >> "$OUT/own-clock.tsv"
      done
    done
  done
done < "$here/own-clock.txt"
cat "$OUT/own-clock.tsv"
