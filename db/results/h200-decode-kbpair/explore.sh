#!/usr/bin/env bash
# On the GPU machine: (1) the xdec exploration: decode shapes with M = 32 to 128 under --l2 rotate,
# the cheapest 150 sm90 variants per shape whose stages hold 2 or 4 k atoms (KB_PAIR 1 or 2), which
# the committed plans allow only for M <= 16 or small tiles; (2) the cluster exploration of
# ../h200-decode-cluster again, now with 128-byte L2 promotion (100 variants per shape); (3) ncu of
# cuBLAS's kernel, our winner and our cuBLAS-shaped 4-CTA tile at 128x11008x4096.
# Writes $OUT/xdec.{sqlite,log}, $OUT/xclu128.{sqlite,log}, $OUT/ncu-*.csv.
set -uo pipefail
cd "$(dirname "$0")/../../.."
source scripts/carry-env.sh
D=db/results/h200-decode-kbpair C=db/results/h200-decode-cluster T=.carry/bin/cuda-l2-tune
nvidia-smi --query-gpu=name,clocks.sm,power.draw,temperature.gpu --format=csv > "$OUT/gpu.txt"
$T tune --shapes $D/shapes.json --family xdec --space-file $D/xdec.space.json --l2 rotate \
  --max-candidates 150 --budget-seconds 240 --db "$OUT/xdec.sqlite" > "$OUT/xdec.log" 2>&1
tail -2 "$OUT/xdec.log"
$T tune --shapes $C/explore-cluster.shapes.json --family xclu --space-file $C/explore-cluster.space.json \
  --l2 rotate --max-candidates 100 --budget-seconds 150 --db "$OUT/xclu128.sqlite" > "$OUT/xclu128.log" 2>&1
tail -2 "$OUT/xclu128.log"
fixed="ACC_CHAINS=1,SPLIT_K=1,PINGPONG=0,WG_KSPLIT=0,STREAM_K=0,SPLIT_DSMEM=0,RASTER=1,PERSISTENT=0,SWAP_AB=0,KB_PAIR=0"
bash scripts/ncu-compare.sh 128 11008 4096 "$fixed,BM=128,BN=96,CONSUMERS=2,CLUSTER_M=1,CLUSTER_N=4,EPI_TMA=0,STAGES=7" "$OUT/ncu-128x11008x4096-cn4"
CUBLAS=0 bash scripts/ncu-compare.sh 128 11008 4096 "$fixed,BM=64,BN=176,CONSUMERS=1,CLUSTER_M=2,CLUSTER_N=1,EPI_TMA=0,STAGES=6" "$OUT/ncu-128x11008x4096-winner"
