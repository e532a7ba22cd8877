# Sourced, from the repository root, by the scripts a maintainer runs on a lent GPU machine: the
# output folder ($OUT, default ./out), the kernel cache carried in .carry/ (scripts/carry-build.sh)
# and the CLI to run ($T: $TOOL, else the carried build, else build/), with the carried libcl2.so
# on the library path.
OUT="${OUT:-$PWD/out}"
mkdir -p "$OUT"
export CUDA_L2_TUNE_CACHE="$PWD/.carry/cache"
# The cache travels compressed (cubins shrink ~30x); unpack it once per machine.
if [ ! -d "$CUDA_L2_TUNE_CACHE" ] && [ -f .carry/cache.tar.xz ]; then tar xJf .carry/cache.tar.xz -C .carry; fi
T=${TOOL:-.carry/bin/cuda-l2-tune}
# The carried cl2_tests links libcl2.so, which the GPU machine's copy has only in .carry/bin.
export LD_LIBRARY_PATH="$PWD/.carry/bin${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
[ -x "$T" ] || T=build/cuda-l2-tune
