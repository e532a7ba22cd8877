#!/usr/bin/env bash
# On the GPU machine: sm90 (PDL=1, one ring of weights before the wait) against sm90l1 and sm90l2
# (one or two more rings into the L2) on pdl-l2.shapes.json under --l2 rotate, scripts/space-ab.sh
# with two rounds each (sm90 first against sm90l1, sm90l2 first against sm90), into $OUT/sm90l1/
# and $OUT/sm90l2/. The kernel cache: scripts/carry-build.sh "--shapes S --l2 rotate" and
# "--shapes S --l2 rotate --family sm80,F --space-file db/results/h200-decode-pdl-l2/F.space.json"
# for F in sm90l1, sm90l2 (S = db/results/h200-decode-pdl-l2/pdl-l2.shapes.json).
#   OUT=... [D=200 per family] db/results/h200-decode-pdl-l2/run.sh
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
out=${OUT:?set OUT}
first=base
for family in sm90l1 sm90l2; do
  mkdir -p "$out/$family"
  OUT="$out/$family" D=${D:-200} ROUNDS=2 FIRST=$first TUNE_ARGS="--l2 rotate" \
    bash "$here/../../../scripts/space-ab.sh" "$here/$family.space.json" "$here/pdl-l2.shapes.json"
  first=space
done
