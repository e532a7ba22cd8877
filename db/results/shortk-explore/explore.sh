#!/usr/bin/env bash
# On the GPU machine: every variant of an exploration family (FAMILY, default xshort from
# make-space.py; xwrite from make-write-space.py) on SHAPES (default shortk.shapes.json, grid-125's
# short-K shapes, K = 256 and 1024, with many tiles; write.shapes.json for xwrite), and tune's
# default plan on the same shapes before and after it (scripts/explore-family.sh). Prepared on the
# CPU machine: python3 make-space.py, then scripts/carry-build.sh with
#   "--shapes db/results/shortk-explore/shortk.shapes.json" and the same with
#   "--family xshort --space-file db/results/shortk-explore/xshort.space.json --max-candidates 0".
here=db/results/shortk-explore
cd "$(dirname "$0")/../../.." || exit 2
exec bash scripts/explore-family.sh "$here/${FAMILY:-xshort}.space.json" "$here/${SHAPES:-shortk.shapes.json}"
