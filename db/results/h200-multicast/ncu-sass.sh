#!/usr/bin/env bash
# On the GPU machine: the TMA, bulk-copy and barrier instructions of cuBLAS's kernel for
# 128x15360x5120 (nvjet_..._128x128_64x6_4x1) and of ours with the same tile and cluster, from
# scripts/ncu-compare.sh's SASS mode. Writes $OUT/sass-cublas.txt and $OUT/sass-ours.txt.
set -uo pipefail
cd "$(dirname "$0")/../../.."
source scripts/carry-env.sh
scratch=$(mktemp -d)
pins="ACC_CHAINS=1,BM=128,BN=128,CONSUMERS=2,EPI_TMA=1,STAGES=6,SWAP_AB=0,KB_PAIR=0,SPLIT_K=1,PINGPONG=0,WG_KSPLIT=0,STREAM_K=0,SPLIT_DSMEM=0,RASTER=1,PERSISTENT=0,CLUSTER_M=1,CLUSTER_N=4"
SASS=1 bash scripts/ncu-compare.sh 128 15360 5120 "$pins" "$scratch/sass"
for who in ours cublas; do
  grep -E "UTMALDG|UBLKCP|UTMASTG|UTMACCTL|MULTICAST|SYNCS|UCGABAR|FENCE|Kernel Name|nvjet|cl2_gemm" "$scratch/sass-$who.csv" |
    cut -c1-300 | head -200 > "$OUT/sass-$who.txt"
done
rm -rf "$scratch"
