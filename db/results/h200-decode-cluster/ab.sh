#!/usr/bin/env bash
# A/B of the plans for decode shapes with M = 32 to 128 (explore-cluster.shapes.json), on the GPU
# machine, one after the other in one session: the committed sm90 plan and the three variants
# beside this script (pacc: ACC_CHAINS=1 where the kernel streams weights from DRAM; pclu: no
# cluster penalty there for clusters that multicast the activations; pboth: both). Each writes
# $OUT/ab-<plan>.sqlite; compare their winners' ratios to cuBLASLt-autotune. PLANS (default all
# four) picks some.
set -uo pipefail
cd "$(dirname "$0")/../../.."
source scripts/carry-env.sh
D=db/results/h200-decode-cluster
for plan in ${PLANS:-sm90 pacc pclu pboth}; do
  extra=(); [ "$plan" = sm90 ] || extra=(--space-file "$D/$plan.space.json")
  .carry/bin/cuda-l2-tune tune --shapes $D/explore-cluster.shapes.json --l2 rotate "${extra[@]}" \
    --family "$plan,sm80" --db "$OUT/ab-$plan.sqlite" > "$OUT/ab-$plan.log" 2>&1
  tail -1 "$OUT/ab-$plan.log"
done
