#!/usr/bin/env bash
# What a maintainer runs on a lent GPU machine that has no build tools for this project: the
# binaries and a precompiled kernel cache are carried in .carry/ (see scripts/carry-build.sh), and
# everything the run produces goes to $OUT (default ./out).
#   scripts/device-session.sh tests            GPU tests
#   scripts/device-session.sh tune ARGS...     cuda-l2-tune tune ARGS... (database in $OUT)
#   scripts/device-session.sh cmd ARGS...      cuda-l2-tune ARGS...
set -uo pipefail
cd "$(dirname "$0")/.."
source scripts/carry-env.sh
export CL2_TEST_SHARED_CACHE="$CUDA_L2_TUNE_CACHE" CL2_TEST_BINARY="$PWD/.carry/bin/cuda-l2-tune"
export CL2_TEST_SOURCE_DIR="$PWD"
tool="$PWD/.carry/bin/cuda-l2-tune"
what="$1"
shift
case "$what" in
  tests) "$PWD/.carry/bin/cl2_tests" --gtest_filter="${1:-GpuTune.*:CliErrors.*}" 2>&1 | tee -a "$OUT/tests.log" ;;
  tune) "$tool" tune "$@" 2>&1 | tee -a "$OUT/tune.log" ;;
  cmd) "$tool" "$@" ;;
  *) echo "usage: $0 tests|tune|cmd ..." >&2; exit 2 ;;
esac
