#!/usr/bin/env bash
# On the GPU machine, with l2-promotion-switch.patch applied (git apply; CL2_L2_PROMO=3 is 256 B, 2 is 128 B): the
# committed decode and grid-125 winners benched (offline, ours against cuBLASLt-autotune) with the
# tensor maps' L2 promotion at 256 B (the default) and at 128 B, one after the other.
set -uo pipefail
cd "$(dirname "$0")/../../.."
source scripts/carry-env.sh
tool=.carry/bin/cuda-l2-tune
for promo in 3 2; do
  CL2_L2_PROMO=$promo timeout 120 $tool bench --shapes configs/shapes/decode.json --l2 rotate --db db/results/h200-decode-trials-16013c0.sqlite \
    --mode offline --providers ours,cublaslt_autotune --out "$OUT/decode-p$promo" > "$OUT/decode-p$promo.log" 2>&1
done
for promo in 3 2; do
  CL2_L2_PROMO=$promo timeout 170 $tool bench --shapes configs/shapes/grid-125.json --db db/results/h200-grid125-trials.sqlite \
    --mode offline --providers ours,cublaslt_autotune --out "$OUT/grid-p$promo" > "$OUT/grid-p$promo.log" 2>&1
done
cd "$OUT" && tar cf promo-ab.tar decode-p* grid-p* && rm -rf decode-p* grid-p*
