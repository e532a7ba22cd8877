#!/usr/bin/env bash
# On the GPU machine (binaries and kernel cache in .carry/, scripts/carry-build.sh): the committed
# plan at 128x5120x5120, every x128 variant, then the plan again, each from an empty database under
# --l2 rotate (scripts/explore-family.sh), into $OUT.
here=$(cd "$(dirname "$0")" && pwd)
cd "$here/../../.." || exit 2
TUNE_ARGS="--l2 rotate" exec bash scripts/explore-family.sh "$here/x128.space.json" "$here/x128.shapes.json"
