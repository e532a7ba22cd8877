#!/usr/bin/env bash
# On the GPU machine, for the next steps of issue 8: steady-state time, clock and energy per call of
# the committed decode winners at 128x15360x5120 and 128x11008x4096 against torch.matmul
# (scripts/power-probe.py; .carry/probe/winners.sqlite = ../h200-decode-trials.sqlite without its
# baselines, so that libcl2 runs our winner), and ncu of our winner and cuBLAS's kernel at
# 64x5120x5120 and 128x5120x5120 (scripts/ncu-compare.sh). Writes $OUT/next-probes.tgz.
set -uo pipefail
cd "$(dirname "$0")/../../.."
source scripts/carry-env.sh
export PYTHONPATH=python CL2_LIBRARY=.carry/bin/libcl2.so
for s in "128 15360 5120" "128 11008 4096"; do
  set -- $s
  python3 scripts/power-probe.py "$OUT/power-$1x$2x$3.txt" $1 $2 $3 winner=.carry/probe/winners.sqlite > "$OUT/power-$1x$2x$3.log" 2>&1
  cat "$OUT/power-$1x$2x$3.txt"
done
bash scripts/ncu-compare.sh 64 5120 5120 "ACC_CHAINS=1,BM=64,BN=80,CLUSTER_M=1,CLUSTER_N=1,CONSUMERS=1,EPI_TMA=0,KB_PAIR=1,PERSISTENT=0,PINGPONG=0,RASTER=1,SPLIT_DSMEM=1,SPLIT_K=2,STAGES=6,STREAM_K=0,SWAP_AB=0,WG_KSPLIT=0" "$OUT/ncu-64x5120x5120"
bash scripts/ncu-compare.sh 128 5120 5120 "ACC_CHAINS=1,BM=64,BN=80,CLUSTER_M=2,CLUSTER_N=1,CONSUMERS=1,EPI_TMA=0,KB_PAIR=0,PERSISTENT=0,PINGPONG=0,RASTER=1,SPLIT_DSMEM=0,SPLIT_K=1,STAGES=11,STREAM_K=0,SWAP_AB=0,WG_KSPLIT=0" "$OUT/ncu-128x5120x5120"
cd "$OUT" && tar czf next-probes.tgz --exclude=next-probes.tgz ./*
