#!/usr/bin/env bash
# On the GPU machine, with mc-whole.patch applied (git apply; the template on main has no MC_WHOLE,
# since it bought nothing): does a cluster's multicast cut L2 reads, with each CTA multicasting its share
# of a tile (MC_WHOLE=0, the template's way) or one CTA multicasting the whole tile (MC_WHOLE=1)?
# ncu's L2 bytes for 128x15360x5120 (128x128 tiles, 2 consumers, 6 stages, TMA-store epilogue) with
# 1, 2 and 4 CTAs along N, then the same tiles with every cluster shape timed side by side under
# the final rule on two decode shapes and 4096^3 (persistent there). Writes $OUT/mc.tar.
set -uo pipefail
cd "$(dirname "$0")/../../.."
source scripts/carry-env.sh
D=db/results/h200-multicast
export FAMILY_ARGS="--family xmc --space-file $D/mc-whole.space.json"
tile="ACC_CHAINS=1,BM=128,BN=128,CONSUMERS=2,EPI_TMA=1,STAGES=6,SWAP_AB=0,KB_PAIR=0,SPLIT_K=1,PINGPONG=0,WG_KSPLIT=0,STREAM_K=0,SPLIT_DSMEM=0,RASTER=1"
for v in "1 0" "2 0" "2 1" "4 0" "4 1"; do
  set -- $v
  CUBLAS=0 bash scripts/ncu-compare.sh 128 15360 5120 "$tile,PERSISTENT=0,CLUSTER_M=1,CLUSTER_N=$1,MC_WHOLE=$2" "$OUT/ncu-cn$1-mc$2"
done
tool=.carry/bin/cuda-l2-tune
$tool tune --shapes $D/decode.shapes.json --l2 rotate $FAMILY_ARGS --max-candidates 0 --finalists 12 \
  --pin "$tile,PERSISTENT=0" --db "$OUT/mc-decode.sqlite" --verbose > "$OUT/mc-decode.log" 2>&1
$tool tune --shapes $D/square.shapes.json $FAMILY_ARGS --max-candidates 0 --finalists 12 \
  --pin "$tile,PERSISTENT=1" --db "$OUT/mc-square.sqlite" --verbose > "$OUT/mc-square.log" 2>&1
cd "$OUT" && tar cf mc.tar ncu-* mc-* && rm -f ncu-* mc-*
