#!/usr/bin/env bash
# On the GPU machine: the TMA, bulk-copy and barrier instructions of cuBLAS's kernel for
# 128x15360x5120 (nvjet_..._128x128_64x6_4x1) and of ours with the same tile and cluster, read from
# ncu's SASS source page (cuBLAS's nvjet kernels are not in libcublasLt's fatbins, so cuobjdump
# cannot show them). Writes $OUT/sass-cublas.txt and $OUT/sass-ours.txt.
set -uo pipefail
cd "$(dirname "$0")/../../.."
source scripts/carry-env.sh
scratch=$(mktemp -d)
echo "[[128, 15360, 5120]]" > "$scratch/shape.json"
pins="ACC_CHAINS=1,BM=128,BN=128,CONSUMERS=2,EPI_TMA=1,STAGES=6,SWAP_AB=0,KB_PAIR=0,SPLIT_K=1,PINGPONG=0,WG_KSPLIT=0,STREAM_K=0,SPLIT_DSMEM=0,RASTER=1,PERSISTENT=0,CLUSTER_M=1,CLUSTER_N=4"
for who in ours cublas; do
  regex=$([ $who = ours ] && echo '^cl2_gemm$' || echo nvjet)
  ncu --target-processes all -k "regex:$regex" -c 1 --section SourceCounters --page source --print-source sass --csv \
    .carry/bin/cuda-l2-tune tune --family sm90 --max-candidates 0 --pin "$pins" --shapes "$scratch/shape.json" \
    --db "$scratch/t.sqlite" > "$scratch/$who.csv" 2> "$scratch/$who.log"
  rm -f "$scratch/t.sqlite"*
  grep -E "UTMALDG|UBLKCP|UTMASTG|UTMACCTL|MULTICAST|SYNCS|UCGABAR|FENCE|Kernel Name|nvjet|cl2_gemm" "$scratch/$who.csv" | cut -c1-300 | head -200 > "$OUT/sass-$who.txt"
  wc -l "$scratch/$who.csv" "$OUT/sass-$who.txt"; tail -n 3 "$scratch/$who.log"
done
rm -rf "$scratch"
