#!/usr/bin/env bash
# On the GPU machine: the README's decode commands with this commit's sm90 plans (tune under
# --l2 rotate, export, offline bench); then A/B of the plans before the skinny-DRAM rules
# (pre.space.json) and after, one after the other, twice: on the 24 decode shapes with M = 32 to
# 128 (../h200-decode-cluster/explore-cluster.shapes.json, --l2 rotate) and on the 8 grid-125
# shapes whose plans the rules change (warm L2, grid-125's policy). Everything goes to
# $OUT/decode-run.tgz.
set -uo pipefail
cd "$(dirname "$0")/../../.."
source scripts/carry-env.sh
D=db/results/h200-decode-kbpair T=.carry/bin/cuda-l2-tune
cd_out() { (cd "$OUT" && "$@"); }
nvidia-smi --query-gpu=name,clocks.sm,power.draw,temperature.gpu --format=csv > "$OUT/gpu.txt"
$T tune --shapes configs/shapes/decode.json --l2 rotate --db "$OUT/h200-decode.sqlite" > "$OUT/tune.log" 2>&1
tail -1 "$OUT/tune.log"
$T export --db "$OUT/h200-decode.sqlite" --format json > "$OUT/h200-decode.json"
$T export --db "$OUT/h200-decode.sqlite" --format md > "$OUT/h200-decode.md"
$T bench --shapes configs/shapes/decode.json --l2 rotate --db "$OUT/h200-decode.sqlite" --mode offline \
  --out "$OUT/h200-bench-decode" > "$OUT/bench.log" 2>&1
grep -i "geomean\|vs cuBLASLt-autotune" "$OUT/bench.log" | tail -3
ab() {  # name shapes-file extra-tune-args...
  local name=$1 shapes=$2; shift 2
  for round in 1 2; do
    for plan in pre sm90; do
      extra=(); [ "$plan" = sm90 ] || extra=(--space-file $D/pre.space.json)
      $T tune --shapes "$shapes" "$@" "${extra[@]}" --family "$plan,sm80" \
        --db "$OUT/$name-$plan-$round.sqlite" > "$OUT/$name-$plan-$round.log" 2>&1
      echo "$name, $plan plan, round $round: $(tail -1 "$OUT/$name-$plan-$round.log")"
    done
  done
}
ab decode32-128 db/results/h200-decode-cluster/explore-cluster.shapes.json --l2 rotate
ab grid $D/grid125-changed.shapes.json
cd "$OUT" && tar czf decode-run.tgz --exclude=decode-run.tgz ./*
