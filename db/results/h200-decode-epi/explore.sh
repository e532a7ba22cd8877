#!/usr/bin/env bash
# On the GPU machine: (1) the sm90 variant kinds on their edge shapes (GPU test, TMA stores in 32-,
# 16- and 8-column chunks among them); (2) the explorations of this folder under --l2 rotate, every
# variant of each family timed (README.md here): xwide on the 4 decode shapes with M = 128 and
# wide weights, xsq on 5120x5120 at M = 32, 64, 128; (3) the committed plan (sm90 and sm80) on the
# same 7 shapes, in the same run. Writes $OUT/explore.tgz.
set -uo pipefail
cd "$(dirname "$0")/../../.."
source scripts/carry-env.sh
D=db/results/h200-decode-epi T=.carry/bin/cuda-l2-tune
nvidia-smi --query-gpu=name,clocks.sm,power.draw,temperature.gpu --format=csv > "$OUT/gpu.txt"
CL2_TEST_SHARED_CACHE=$CUDA_L2_TUNE_CACHE CL2_TEST_BINARY=$PWD/$T CL2_TEST_SOURCE_DIR=$PWD timeout 300 .carry/bin/cl2_tests \
  --gtest_filter='GpuTune.Sm90VariantKindsVerifyOnEdgeShapes' > "$OUT/gpu-tests.log" 2>&1
tail -3 "$OUT/gpu-tests.log"
for fam in xwide xsq; do
  $T tune --shapes $D/$fam.shapes.json --family $fam --space-file $D/$fam.space.json --l2 rotate \
    --max-candidates 0 --db "$OUT/$fam.sqlite" > "$OUT/$fam.log" 2>&1
  tail -2 "$OUT/$fam.log"
done
$T tune --shapes $D/shapes.json --l2 rotate --db "$OUT/plan.sqlite" > "$OUT/plan.log" 2>&1
tail -2 "$OUT/plan.log"
cd "$OUT" && tar czf explore.tgz --exclude=explore.tgz ./*
