#!/usr/bin/env bash
# On the GPU machine, after explore.sh: ncu (scripts/ncu-compare.sh) at 128x11008x4096 of our
# cuBLAS-shaped tile (128x96, 2 consumers, 4-CTA cluster along N) with 2 k atoms per stage, of the
# 128x128 4-CTA tile with direct and TMA-store epilogues, and of the xdec exploration's winner
# there ($OUT/xdec.sqlite). Writes $OUT/ncu-v-*.csv.
set -uo pipefail
cd "$(dirname "$0")/../../.."
source scripts/carry-env.sh
fixed="ACC_CHAINS=1,SPLIT_K=1,PINGPONG=0,WG_KSPLIT=0,STREAM_K=0,SPLIT_DSMEM=0,RASTER=1,PERSISTENT=0,SWAP_AB=0"
v() { CUBLAS=0 bash scripts/ncu-compare.sh 128 11008 4096 "$fixed,$1" "$OUT/ncu-v-$2"; }
v "KB_PAIR=1,BM=128,BN=96,CONSUMERS=2,CLUSTER_M=1,CLUSTER_N=4,EPI_TMA=0,STAGES=4" cn4-96-kb1-s4
v "KB_PAIR=1,BM=128,BN=96,CONSUMERS=2,CLUSTER_M=1,CLUSTER_N=4,EPI_TMA=0,STAGES=3" cn4-96-kb1-s3
v "KB_PAIR=0,BM=128,BN=128,CONSUMERS=2,CLUSTER_M=1,CLUSTER_N=4,EPI_TMA=0,STAGES=6" cn4-128-epi0
v "KB_PAIR=0,BM=128,BN=128,CONSUMERS=2,CLUSTER_M=1,CLUSTER_N=4,EPI_TMA=1,STAGES=6" cn4-128-epi1
win=$(python3 - "$OUT/xdec.sqlite" <<'PY'
import json, sqlite3, sys
db = sqlite3.connect(sys.argv[1])
(c,) = db.execute("select k.config_json from winners w join kernels k on k.id = w.kernel_id"
                  " where w.m = 128 and w.n = 11008 and w.k = 4096").fetchone()
p = json.loads(c); p = p.get("params", p)
print(",".join(f"{k}={v}" for k, v in p.items()))
PY
)
echo "xdec winner at 128x11008x4096: $win"
FAMILY_ARGS="--family xdec --space-file db/results/h200-decode-kbpair/xdec.space.json" CUBLAS=0 \
  bash scripts/ncu-compare.sh 128 11008 4096 "$win" "$OUT/ncu-v-xdec-winner"
