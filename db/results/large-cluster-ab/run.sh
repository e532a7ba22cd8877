#!/usr/bin/env bash
# On the GPU machine: each variant of variants.txt (M N K PINS a line) tuned alone (tune --pin, a
# fresh database each), so that its final round times it side by side with cuBLASLt-autotune under
# the final rule; ROUNDS rounds (default 2), every other one in reverse order. Writes
# $OUT/r<round>-<line>.log and $OUT/results.tsv (round, M, N, K, pins, µs, ratio to cuBLASLt-autotune).
# Prepared on the CPU machine: each variant compiled into the carried kernel cache
#   while read -r m n k pins; do echo "[[$m,$n,$k]]" > /tmp/s.json
#     CUDA_L2_TUNE_CACHE=.carry/cache build/cuda-l2-tune tune --compile-only --arch sm_90a --shapes /tmp/s.json \
#       --family sm90 --pin "$pins"; done < db/results/large-cluster-ab/variants.txt
set -uo pipefail
cd "$(dirname "$0")/../../.."
source scripts/carry-env.sh
here=db/results/large-cluster-ab
nvidia-smi --query-gpu=name,clocks.sm,power.limit --format=csv > "$OUT/gpu.txt"
$T --version > "$OUT/version.txt"
mapfile -t lines < "$here/variants.txt"
printf 'round\tm\tn\tk\tpins\tus\tvs_cublaslt_autotune\n' > "$OUT/results.tsv"
for ((round = 1; round <= ${ROUNDS:-2}; round++)); do
  order=$(seq 0 $((${#lines[@]} - 1)))
  ((round % 2 == 0)) && order=$(echo "$order" | tac)
  for i in $order; do
    read -r m n k pins <<< "${lines[i]}"
    echo "[[$m, $n, $k]]" > "$OUT/shape.json"
    log="$OUT/r$round-$i.log"
    $T tune --shapes "$OUT/shape.json" --family sm90 --pin "$pins" --db "$OUT/scratch.sqlite" > "$log" 2>&1
    rm -f "$OUT/scratch.sqlite"*
    read -r us ratio < <(sed -n 's/.* winner \([0-9.]*\) us: \([0-9.]*\)x vs cuBLASLt-autotune.*/\1 \2/p' "$log")
    printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$round" "$m" "$n" "$k" "$pins" "${us:--}" "${ratio:--}" >> "$OUT/results.tsv"
  done
  echo "round $round done"
done
