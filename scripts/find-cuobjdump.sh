#!/usr/bin/env bash
# Prints the path of a cuobjdump binary (PATH, the CUDA toolkit, or the PyPI package
# nvidia-cuda-cuobjdump that scripts/setup.sh installs); exits 1 when there is none.
set -u
if command -v cuobjdump >/dev/null; then command -v cuobjdump; exit 0; fi
cuda_home="${CUDA_HOME:-/usr/local/cuda}"
if [ -x "$cuda_home/bin/cuobjdump" ]; then echo "$cuda_home/bin/cuobjdump"; exit 0; fi
loc=$(python3 -m pip show -f nvidia-cuda-cuobjdump 2>/dev/null | awk '/^Location:/ {print $2}')
if [ -n "$loc" ]; then
  for f in "$loc"/nvidia/*/bin/cuobjdump "$loc"/nvidia/cuda_cuobjdump/bin/cuobjdump; do
    [ -x "$f" ] && { echo "$f"; exit 0; }
  done
fi
exit 1
