#!/usr/bin/env bash
# On the GPU machine: the committed plan (sm90 and sm80, 24 candidates) and every workspace split-K
# variant of explore-split.space.json, one after the other, for the 12 shapes of
# explore-split.shapes.json under --l2 rotate; writes $OUT/split-base.sqlite and $OUT/split-x.sqlite.
set -uo pipefail
cd "$(dirname "$0")/../../.."
source scripts/carry-env.sh
D=db/results/h200-decode-split
.carry/bin/cuda-l2-tune tune --shapes $D/explore-split.shapes.json --l2 rotate --db "$OUT/split-base.sqlite" > "$OUT/split-base.log" 2>&1
.carry/bin/cuda-l2-tune tune --shapes $D/explore-split.shapes.json --l2 rotate --family xsplit \
  --space-file $D/explore-split.space.json --max-candidates 0 --db "$OUT/split-x.sqlite" > "$OUT/split-x.log" 2>&1
tail -1 "$OUT/split-base.log" "$OUT/split-x.log"
