#!/usr/bin/env bash
# Session 26. Binaries: .carry/bin (candidate defaults: race of 20, sm90 with the fitted factors),
# .carry/r5 (the same with the race's cap at 5 rounds), .carry/old (main at 2eebe4d: model of 24, hand factors).
set -uo pipefail
cd "$(dirname "$0")/.."
start=$(date +%s)
export OUT=${OUT:-$PWD/out}; mkdir -p "$OUT"
name=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)
el() { echo "[$(( $(date +%s) - start )) s] $*"; }
left() { echo $(( ${BUDGET:-575} - ($(date +%s) - start) )); }
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,power.limit --format=csv > "$OUT/gpu.txt"; cat "$OUT/gpu.txt"
[ -x .carry/bin/cuda-l2-tune ] || tar xJf .carry/bins.tar.xz -C .carry
[ -d .carry/cache ] || tar xJf .carry/cache26.tar.xz -C .carry
source scripts/carry-env.sh; el "cache ready"
case "$name" in *H200*) card=h200; ref=db/results/h200-strategy-check/reference.sqlite.xz ;;
                *) card=h100; ref=db/results/h100-strategy-check-sm90f/reference.sqlite.xz ;; esac
xz -dc $ref > /tmp/ref.sqlite
for stage in "$@"; do case $stage in
strat:*)
  # Issue 11 acceptance 2: strategy check of binary:extra-args against this card's reference.
  spec=${stage#strat:}; bin=${spec%%:*}; extra=${spec#*:}; [ "$extra" = "$spec" ] && extra=""
  tag=$bin${extra:+-$(echo $extra | tr -d ' -')}
  [ "$(left)" -gt 60 ] || { el "strat $tag skipped: $(left) s left"; continue; }
  mkdir -p "$OUT/strat/$tag"; s0=$(date +%s)
  OUT="$OUT/strat/$tag" TOOL=.carry/$bin/cuda-l2-tune REF_DB=/tmp/ref.sqlite STRATEGY_ARGS="$extra" \
    timeout $(( $(left) - 10 )) bash scripts/strategy-check.sh > "$OUT/strat/$tag.log" 2>&1
  rm -f "$OUT/strat/$tag/reference.sqlite"*; rm -f "$OUT/strat/$tag/"*.sqlite-*
  el "strat $tag ($(( $(date +%s) - s0 )) s)"; grep -E "within 2%|^strategy" "$OUT/strat/$tag.log" | cut -c1-250 ;;
cost:*)
  # Issue 11: sample100 from an empty database with the carried cache (the GPU's share).
  bin=${stage#cost:}; [ "$(left)" -gt 110 ] || { el "cost $bin skipped: $(left) s left"; continue; }
  mkdir -p "$OUT/cost"; s0=$(date +%s.%N)
  CL2_TIMING_LOG="$OUT/cost/$bin.jsonl" timeout $(( $(left) - 10 )) .carry/$bin/cuda-l2-tune tune \
    --shapes configs/shapes/grid-1000-sample100.json --db "$OUT/cost/$bin.sqlite" > "$OUT/cost/$bin.log" 2>&1
  s1=$(date +%s.%N); echo "$bin: $(python3 -c "print(f'{$s1-$s0:.1f}')") s; $(tail -n 1 "$OUT/cost/$bin.log" | cut -c1-200)" | tee -a "$OUT/cost/times.txt"
  grep -E "^time by stage" "$OUT/cost/$bin.log" | cut -c1-330
  python3 scripts/timing_log_summary.py "$OUT/cost/$bin.jsonl" > "$OUT/cost/$bin-summary.md" 2>&1; xz -f "$OUT/cost/$bin.jsonl"
  rm -f "$OUT"/cost/*.sqlite-*; el "cost $bin" ;;
compile:*)
  # The CPUs' share from scratch: compile-only of sample100's plans from an empty cache.
  bin=${stage#compile:}; [ "$(left)" -gt 80 ] || { el "compile $bin skipped: $(left) s left"; continue; }
  mkdir -p "$OUT/compile"; rm -rf /tmp/cc; mkdir /tmp/cc; s0=$(date +%s.%N)
  CUDA_L2_TUNE_CACHE=/tmp/cc timeout $(( $(left) - 10 )) .carry/$bin/cuda-l2-tune tune --compile-only \
    --shapes configs/shapes/grid-1000-sample100.json --db /tmp/cc.sqlite > "$OUT/compile/$bin.log" 2>&1
  s1=$(date +%s.%N); echo "$bin: $(python3 -c "print(f'{$s1-$s0:.1f}')") s; $(tail -n 1 "$OUT/compile/$bin.log" | cut -c1-200)" | tee -a "$OUT/compile/times.txt"
  rm -rf /tmp/cc /tmp/cc.sqlite*; el "compile $bin" ;;
grid)
  # Issue 11 acceptance 1 (H200 only): grid-1000 from scratch with the candidate defaults, resumable.
  [ $card = h200 ] || { el "grid skipped: $name"; continue; }
  mkdir -p "$OUT/grid"; args=()
  [ -f .carry/grid1000.sqlite ] && export DB=.carry/grid1000.sqlite CACHE=.carry/grid1000-cache.tar.xz TIME_FILE=.carry/grid1000-time.txt
  OUT="$OUT/grid" TOOL=.carry/bin/cuda-l2-tune LIMIT=$(( $(left) - 40 )) bash scripts/grid1000-run.sh > "$OUT/grid/run.log" 2>&1
  el grid; tail -4 "$OUT/grid/run.log" | cut -c1-250 ;;
gtest)
  LD_LIBRARY_PATH=.carry/bin timeout 200 .carry/bin/cl2_tests --gtest_filter="${GTEST:-GpuTune.*}" --gtest_brief=1 > "$OUT/gtest.log" 2>&1
  el "gtest rc $?"; tail -4 "$OUT/gtest.log" ;;
esac; done
cd "$OUT" && for d in strat cost compile; do [ -d $d ] && tar cJf $d.tar.xz $d && rm -rf $d; done; ls -la "$OUT"
