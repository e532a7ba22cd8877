#!/usr/bin/env bash
# Sets up, builds and runs every test. GPU tests skip (saying why) where no GPU is present.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/build.sh
cd build
ctest --output-on-failure -j "$(nproc)"
