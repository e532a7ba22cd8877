#!/usr/bin/env bash
# Prepares .carry/ for a GPU machine: the built binaries and libcl2.so (for the Python package
# python/cl2tune, which scripts/runtime-check.sh points at it through CL2_LIBRARY), and the kernel
# cache filled by compiling here (NVRTC needs no GPU) the candidates a planned run will use, so the
# GPU's time goes to measuring. Each argument is a `tune` argument list for --compile-only, e.g.
#   scripts/carry-build.sh "--shapes configs/shapes/square.json --family sm90"
# With OLD_COMMIT=<rev>, also the CLI as built at that commit, in .carry/old/, for runs that set
# an earlier version against this one on the same machine (scripts/search-time-check.sh).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/build.sh >/dev/null
mkdir -p .carry/bin .carry/cache
cp build/cuda-l2-tune build/cl2_tests build/libcl2.so .carry/bin/
if [ -n "${OLD_COMMIT:-}" ]; then
  old_tree=$(mktemp -d)
  git worktree add -q --detach "$old_tree/src" "$OLD_COMMIT"
  cmake -S "$old_tree/src" -B "$old_tree/build" -DCMAKE_BUILD_TYPE=Release >/dev/null
  cmake --build "$old_tree/build" -j "$(nproc)" --target cuda-l2-tune >/dev/null
  mkdir -p .carry/old
  cp "$old_tree/build/cuda-l2-tune" .carry/old/
  git worktree remove --force "$old_tree/src"
  rm -rf "$old_tree"
fi
if [ -f .carry/cache.tar.xz ]; then tar xJf .carry/cache.tar.xz -C .carry; fi
for args in "$@"; do
  # shellcheck disable=SC2086
  CUDA_L2_TUNE_CACHE=.carry/cache ./build/cuda-l2-tune tune --compile-only --arch sm_90a $args
done
# Cubins compress ~30x with xz's default 8 MiB window and about twice that again with -9e's 64 MiB
# one, where the variants of one template repeat each other (a sample30 race-of-128 cache: 9.8 MB
# -> 5.1 MB, two minutes on 8 threads); the carry limit is 64 MiB.
tar cf - -C .carry cache | xz -9e -T0 > .carry/cache.tar.xz
rm -rf .carry/cache
du -sh .carry
