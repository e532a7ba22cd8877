#!/usr/bin/env bash
# Hardware counters of one of our kernels next to cuBLAS's for the same shape, on the GPU machine
# (ncu, one launch each, the counters DESIGN.md names, the L2 sectors read by the SMs and carried
# between the two L2 partitions, and the warp stall breakdown):
#   scripts/ncu-compare.sh M N K "BM=128,BN=128,..." OUT_PREFIX
# writes OUT_PREFIX-ours.csv (the first launch of the pinned variant: its verification run) and,
# unless CUBLAS=0, OUT_PREFIX-cublas.csv (the first nvjet kernel: cuBLAS GemmEx's own choice).
# FAMILY_ARGS (default "--family sm90") selects the family, e.g. one from a --space-file. METRICS
# replaces the metric list (comma-separated ncu names). With SASS=1 each file holds the kernel's
# SASS with per-instruction counts (ncu's source page) in place of the counters: the only way to
# read cuBLAS's nvjet kernels, which libcublasLt's fatbins do not hold. Uses .carry/bin and the
# carried kernel cache like scripts/device-session.sh.
set -uo pipefail
cd "$(dirname "$0")/.."
m=$1 n=$2 k=$3 pins=$4 out=$5
source scripts/carry-env.sh
tool="$PWD/.carry/bin/cuda-l2-tune"
scratch=$(mktemp -d)
echo "[[$m, $n, $k]]" > "$scratch/shape.json"
metrics=${METRICS:-gpu__time_duration.sum,sm__pipe_tensor_op_hmma_cycles_active.avg.pct_of_peak_sustained_active,lts__t_bytes.sum,lts__t_sectors_srcunit_tex_op_read.sum,lts__t_sectors_srcunit_ltcfabric.sum,dram__bytes_read.sum,dram__throughput.avg.pct_of_peak_sustained_elapsed,launch__grid_size,launch__cluster_dim_x,sm__cycles_active.avg}
report=(--metrics "$metrics" --section WarpStateStats --page details)
[ "${SASS:-0}" = 1 ] && report=(--section SourceCounters --page source --print-source sass)
profile() {  # kernel regex, output file
  ncu --target-processes all --clock-control none -k "regex:$1" -c 1 "${report[@]}" \
      --csv "$tool" tune ${FAMILY_ARGS:---family sm90} --max-candidates 0 --pin "$pins" --watchdog-seconds 60 \
      --shapes "$scratch/shape.json" --db "$scratch/t.sqlite" > "$2" 2> "$2.log"
  rm -f "$scratch/t.sqlite"*
}
profile '^cl2_gemm$' "$out-ours.csv"
[ "${CUBLAS:-1}" = 0 ] || profile 'nvjet' "$out-cublas.csv"
rm -rf "$scratch"
