#!/usr/bin/env bash
# On the GPU machine: the plans of OLD_TOOL (a cuda-l2-tune built before 32658f1) against $T's on
# the four shapes 32658f1 re-plans, two rounds with the binaries' order reversed in the second:
# h100/rot2.json under --l2 rotate and h100/warm2.json warm, into $OUT/sm90<old|new>-<rot|warm>-<round>.sqlite
# (names scripts/space_ab_table.py reads, given one policy's files at a time).
#   OUT=... OLD_TOOL=... db/results/narrow-kb0/run.sh
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
cd "$here/../../.." || exit 2
source scripts/carry-env.sh
old=${OLD_TOOL:?set OLD_TOOL to a cuda-l2-tune built before 32658f1}
for round in 1 2; do
  order="old new"; [ "$round" = 2 ] && order="new old"
  for version in $order; do
    tool=$T; [ "$version" = old ] && tool=$old
    "$tool" tune --shapes "$here/h100/rot2.json" --l2 rotate --db "$OUT/sm90$version-rot-$round.sqlite" \
      > "$OUT/sm90$version-rot-$round.log" 2>&1
    "$tool" tune --shapes "$here/h100/warm2.json" --db "$OUT/sm90$version-warm-$round.sqlite" \
      > "$OUT/sm90$version-warm-$round.log" 2>&1
  done
done
