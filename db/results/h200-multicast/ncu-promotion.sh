#!/usr/bin/env bash
# On the GPU machine, with l2-promotion-switch.patch applied (git apply): L2 traffic by source
# (scripts/ncu-compare.sh) of our 128x128 tile with the tensor maps' L2 promotion at none (0) and
# 128 B (2), at 128x15360x5120 (alone and in a 4-CTA cluster along N) and at 4096^3 (persistent,
# alone and in a 2-CTA cluster along N). The 256 B runs (the default) are ncu-l2.sh's.
set -uo pipefail
cd "$(dirname "$0")/../../.."
source scripts/carry-env.sh
tile="ACC_CHAINS=1,BM=128,BN=128,CONSUMERS=2,EPI_TMA=1,STAGES=6,SWAP_AB=0,KB_PAIR=0,SPLIT_K=1,PINGPONG=0,WG_KSPLIT=0,STREAM_K=0,SPLIT_DSMEM=0,RASTER=1"
for promo in 0 2; do for cn in 1 4; do
  CL2_L2_PROMO=$promo CUBLAS=0 bash scripts/ncu-compare.sh 128 15360 5120 "$tile,PERSISTENT=0,CLUSTER_M=1,CLUSTER_N=$cn" "$OUT/ncu-promo$promo-decode-cn$cn"
done; done
for promo in 0 2; do for cn in 1 2; do
  CL2_L2_PROMO=$promo CUBLAS=0 bash scripts/ncu-compare.sh 4096 4096 4096 "$tile,PERSISTENT=1,CLUSTER_M=1,CLUSTER_N=$cn" "$OUT/ncu-promo$promo-square-cn$cn"
done; done
cd $OUT; for f in ncu-promo*-ours.csv; do echo "== $f $(grep -E 'gpu__time|srcunit_tex_op_read|lts__t_bytes|dram__bytes_read' $f | awk -F'","' '{n=split($0,a,"\",\""); printf "%s=%s ", a[n-2], a[n]}')"; done
tar cf promo.tar ncu-promo*; rm -f ncu-promo*
