#!/usr/bin/env bash
# On the GPU machine: the committed plans against those of a space file's family, alternately,
# from empty databases with tune's default options (both beside sm80, as tune plans by default):
#   OUT=... [ROUNDS=2] [BASE_FAMILY=sm90] [FIRST=base|space] [D=540] [TUNE_ARGS="--l2 rotate"] \
#     scripts/space-ab.sh SPACE_FILE SHAPES_FILE...
# Each round tunes every shapes file with BASE_FAMILY, then with SPACE_FILE's family (with
# FIRST=space the other way round: a family always timed second runs on a warmer GPU), each with
# TUNE_ARGS (tune options both sides share, e.g. the L2 policy) where given, into
# $OUT/<family>-<shapes file name>-<round>.sqlite and .log; each run's geomean vs
# cuBLASLt-autotune goes to $OUT/summary.txt. Prepare the kernel cache with scripts/carry-build.sh
# ("--shapes S" and "--shapes S --family sm80,<family> --space-file SPACE_FILE" for each S).
set -uo pipefail
[ $# -ge 2 ] || { echo "usage: space-ab.sh SPACE_FILE SHAPES_FILE..." >&2; exit 2; }
space=$(realpath "$1"); shift
shapes=(); for s in "$@"; do shapes+=("$(realpath "$s")"); done
cd "$(dirname "$0")/.." || exit 2
source scripts/space-file.sh
family=$(space_family "$space") || exit 2
source scripts/carry-env.sh
source scripts/bounded-tune.sh
base=${BASE_FAMILY:-sm90}
order=("$base" "$family")
[ "${FIRST:-base}" = space ] && order=("$family" "$base")
for round in $(seq "${ROUNDS:-2}"); do
  for tried in "${order[@]}"; do
    extra=()
    [ "$tried" = "$family" ] && extra=(--space-file "$space")
    for s in "${shapes[@]}"; do
      # shellcheck disable=SC2086  # TUNE_ARGS: options, split on spaces
      bounded_tune "$tried-$(basename "$s" .json | sed 's/\.shapes$//')-$round" --shapes "$s" --family "sm80,$tried" "${extra[@]}" ${TUNE_ARGS:-}
    done
  done
done
