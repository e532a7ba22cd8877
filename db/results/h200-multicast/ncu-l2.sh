#!/usr/bin/env bash
# On the GPU machine: L2 traffic by source (scripts/ncu-compare.sh) for our 128x128 tile (2
# consumers, 6 stages, TMA-store epilogue) alone and in clusters that multicast A or B, next to
# cuBLAS's own kernel (the first nvjet launch of cuBLAS GemmEx): at 4096^3 (persistent; clusters of
# 2 along N and along M) and at 128x15360x5120 (clusters of 2 and 4 along N, multicasting the
# activations). Writes $OUT/ncu-square-*.csv and $OUT/ncu-decode-*.csv.
set -uo pipefail
cd "$(dirname "$0")/../../.."
source scripts/carry-env.sh
tile="ACC_CHAINS=1,BM=128,BN=128,CONSUMERS=2,EPI_TMA=1,STAGES=6,SWAP_AB=0,KB_PAIR=0,SPLIT_K=1,PINGPONG=0,WG_KSPLIT=0,STREAM_K=0,SPLIT_DSMEM=0,RASTER=1"
for c in "1 1" "1 2" "2 1"; do
  set -- $c
  CUBLAS=$([ "$1$2" = 11 ] && echo 1 || echo 0) bash scripts/ncu-compare.sh 4096 4096 4096 "$tile,PERSISTENT=1,CLUSTER_M=$1,CLUSTER_N=$2" "$OUT/ncu-square-cm$1-cn$2"
done
for cn in 1 2 4; do
  CUBLAS=$([ "$cn" = 1 ] && echo 1 || echo 0) bash scripts/ncu-compare.sh 128 15360 5120 "$tile,PERSISTENT=0,CLUSTER_M=1,CLUSTER_N=$cn" "$OUT/ncu-decode-cn$cn"
done
