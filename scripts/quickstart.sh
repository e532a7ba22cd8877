#!/usr/bin/env bash
# Sets up, builds and runs the main job: tune the shapes of configs/shapes/quickstart.json (or the
# shapes file given as the first argument) into db/tuning.sqlite, then print the best-kernel table.
# Without a GPU it stops with a one-line message after building.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/build.sh
shapes="${1:-configs/shapes/quickstart.json}"
shift || true
./build/cuda-l2-tune tune --shapes "$shapes" --db db/tuning.sqlite "$@"
./build/cuda-l2-tune export --db db/tuning.sqlite --format md
