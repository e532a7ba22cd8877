#!/usr/bin/env bash
# Session 28's device script. Stages (each "name:args"): ref, strat:BIN[:ARGS], cost:BIN[:ARGS], gtest.
# Binaries in .carry/<bin>/ (bins30.tar.xz: bin = HEAD, cand = HEAD + candidate.diff); kernel caches
# .carry/cache-*.tar.xz unpacked into one .carry/cache.
set -uo pipefail
cd "$(dirname "$0")/.."
start=$(date +%s)
export OUT=${OUT:-$PWD/out}; mkdir -p "$OUT"
name=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)
el() { echo "[$(( $(date +%s) - start )) s] $*"; }
left() { echo $(( ${BUDGET:-575} - ($(date +%s) - start) )); }
case "$name" in *H200*) ;; *) [ "${H200_ONLY:-1}" = 1 ] && { echo "not an H200: $name"; exit 3; } ;; esac
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,power.limit --format=csv > "$OUT/gpu.txt"; cat "$OUT/gpu.txt"
[ -x .carry/bin/cuda-l2-tune ] || tar xJf .carry/bins30.tar.xz -C .carry
if [ ! -d .carry/cache ]; then for c in .carry/cache-*.tar.xz; do [ -f "$c" ] && tar xJf "$c" -C .carry; done; fi
source scripts/carry-env.sh; el "cache ready ($(ls .carry/cache 2>/dev/null | wc -l) entries)"
ref=/tmp/ref.sqlite
[ -f .carry/reference.sqlite.xz ] && [ ! -f $ref ] && xz -dc .carry/reference.sqlite.xz > $ref
for stage in "$@"; do case $stage in
ref)
  # The reference, tuned again with today's templates: a race of 128 (512 candidates a shape).
  [ "$(left)" -gt 100 ] || { el "ref skipped: $(left) s left"; continue; }
  mkdir -p "$OUT/ref"; s0=$(date +%s)
  timeout $(( $(left) - 15 )) .carry/bin/cuda-l2-tune tune --shapes configs/shapes/grid-125-sample30.json \
    --db "$OUT/ref/reference.sqlite" --strategy race --max-candidates 128 > "$OUT/ref/reference.log" 2>&1
  el "ref rc $? ($(( $(date +%s) - s0 )) s): $(tail -n 1 "$OUT/ref/reference.log" | cut -c1-200)"
  grep -E "^time by stage" "$OUT/ref/reference.log" | cut -c1-300
  rm -f "$OUT/ref/"*.sqlite-*; cp "$OUT/ref/reference.sqlite" $ref; xz -k -f "$OUT/ref/reference.sqlite"; rm -f "$OUT/ref/reference.sqlite" ;;
strat:*)
  spec=${stage#strat:}; bin=${spec%%:*}; extra=${spec#*:}; [ "$extra" = "$spec" ] && extra=""
  tag=$bin${extra:+-$(echo $extra | tr -d ' -')}
  [ -f $ref ] || { el "strat $tag skipped: no reference"; continue; }
  [ "$(left)" -gt 60 ] || { el "strat $tag skipped: $(left) s left"; continue; }
  mkdir -p "$OUT/strat/$tag"; s0=$(date +%s)
  OUT="$OUT/strat/$tag" TOOL=.carry/$bin/cuda-l2-tune REF_DB=$ref STRATEGY_ARGS="$extra" \
    timeout $(( $(left) - 10 )) bash scripts/strategy-check.sh > "$OUT/strat/$tag.log" 2>&1
  rm -f "$OUT/strat/$tag/reference"*.sqlite* "$OUT/strat/$tag/"*.sqlite-*
  el "strat $tag ($(( $(date +%s) - s0 )) s)"; grep -E "within 2%|^strategy|^head" "$OUT/strat/$tag.log" | cut -c1-250 ;;
cost:*)
  spec=${stage#cost:}; bin=${spec%%:*}; extra=${spec#*:}; [ "$extra" = "$spec" ] && extra=""
  tag=$bin${extra:+-$(echo $extra | tr -d ' -')}
  [ "$(left)" -gt 110 ] || { el "cost $tag skipped: $(left) s left"; continue; }
  mkdir -p "$OUT/cost"; s0=$(date +%s.%N)
  # shellcheck disable=SC2086
  # COLD=1: from an empty kernel cache, as issue 11's acceptance 1 runs (the CPUs' share included).
  cache=$CUDA_L2_TUNE_CACHE; [ "${COLD:-0}" = 1 ] && { cache=/tmp/cold-$tag; rm -rf $cache; tag=$tag-cold; }
  CUDA_L2_TUNE_CACHE=$cache CL2_TIMING_LOG="$OUT/cost/$tag.jsonl" timeout $(( $(left) - 10 )) .carry/$bin/cuda-l2-tune tune \
    --shapes configs/shapes/grid-1000-sample100.json --db "$OUT/cost/$tag.sqlite" $extra > "$OUT/cost/$tag.log" 2>&1
  s1=$(date +%s.%N); echo "$tag: $(python3 -c "print(f'{$s1-$s0:.1f}')") s; $(tail -n 1 "$OUT/cost/$tag.log" | cut -c1-200)" | tee -a "$OUT/cost/times.txt"
  grep -E "^time by stage" "$OUT/cost/$tag.log" | cut -c1-330
  python3 scripts/timing_log_summary.py "$OUT/cost/$tag.jsonl" > "$OUT/cost/$tag-summary.md" 2>&1; xz -f "$OUT/cost/$tag.jsonl"
  rm -f "$OUT"/cost/*.sqlite-*; el "cost $tag" ;;
ab:*)
  # Issue 8: the committed sm90 against a space file's family, decode shapes under --l2 rotate.
  fam=${stage#ab:}; [ "$(left)" -gt 150 ] || { el "ab $fam skipped: $(left) s left"; continue; }
  OUT="$OUT/ab-$fam" D=$(( $(left) - 20 )) ROUNDS=1 FIRST=${FIRST:-base} TUNE_ARGS="--l2 rotate" bash scripts/space-ab.sh \
    db/results/pdl-coresident/$fam.space.json db/results/pdl-coresident/ring.shapes.json > "$OUT/ab-$fam.log" 2>&1
  python3 scripts/space_ab_table.py "$OUT/ab-$fam" > "$OUT/ab-$fam/table.md" 2>&1
  rm -f "$OUT/ab-$fam/"*.sqlite-*; el "ab $fam"; cat "$OUT/ab-$fam/summary.txt"; tail -3 "$OUT/ab-$fam/table.md" ;;
probe)
  # Issue 8 acceptance 2: reads of the 90-157 MB weights, plain and overlapped as PDL calls overlap.
  mkdir -p "$OUT/probe"
  for nk in "11008 4096" "4096 11008" "12288 4096" "13824 5120" "5120 13824" "15360 5120"; do
    echo "== 1 $nk" >> "$OUT/probe/probe.txt"; timeout 60 .carry/probe/probe-06068bf1 1 $nk both >> "$OUT/probe/probe.txt" 2>&1
  done; el "probe"; grep -E "^==|^read|^ours" "$OUT/probe/probe.txt" | cut -c1-110 ;;
gtest)
  export CL2_TEST_BINARY=$PWD/.carry/bin/cuda-l2-tune CL2_TEST_SOURCE_DIR=$PWD CL2_TEST_SHARED_CACHE=$CUDA_L2_TUNE_CACHE
  timeout 200 .carry/bin/cl2_tests --gtest_filter="${GTEST:-*Gpu*}" --gtest_brief=1 > "$OUT/gtest.log" 2>&1
  el "gtest rc $?"; tail -4 "$OUT/gtest.log" ;;
esac; done
cd "$OUT" && for d in strat cost; do [ -d $d ] && tar cJf $d.tar.xz $d && rm -rf $d; done; ls -la "$OUT"
