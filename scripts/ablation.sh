#!/usr/bin/env bash
# Issue 11's ablation on the GPU machine: grid-125 tuned from an empty database once per row, and
# the table of geomean vs cuBLASLt-autotune and tuning time (scripts/ablation_table.py):
#   model       the default tuner (--strategy model)
#   race        --strategy race: 4x the candidates timed briefly, the best eighth screened
#   seeded      --strategy seeded, seeded from SEED_DB (winners on this GPU; its winners of the shapes
#               tuned here are dropped from the row's copy, since they would be their own answers;
#               the row is left out without it)
#   random      --strategy random: the cost model's ranking replaced by a random draw
#   fixed-tile  one kernel for every shape: sm90's 128x128 cooperative tile, TMA stores, persistent
#   no-split-k  the families without split-K and stream-K (space files written here)
#   no-sm90     --family sm80
# Prepared on the CPU machine (the candidates of every row in the kernel cache, so that the rows
# time the GPU and not the compiler; the no-split-k families compile the same kernels as sm90/sm80):
#   scripts/carry-build.sh "--shapes configs/shapes/grid-125.json" \
#     "--shapes configs/shapes/grid-125.json --strategy race" "--shapes configs/shapes/grid-125.json --strategy random" \
#     "--shapes configs/shapes/grid-125.json --family sm90 --pin $(sed -n 's/^FIXED_TILE=//p' scripts/ablation.sh)"
# then on the GPU machine: OUT=/some/folder [ROWS=model,race,...] [SEED_DB=...] scripts/ablation.sh
# (SHAPES= another shapes file and TUNE_EXTRA=--fake-gpu try the script itself on a CPU machine.)
# Writes $OUT/<row>.sqlite, <row>.log and ablation.md (the table, with the commit and the GPU).
set -uo pipefail
cd "$(dirname "$0")/.." || exit 2
FIXED_TILE=BM=128,BN=128,STAGES=4,CONSUMERS=2,ACC_CHAINS=1,PINGPONG=0,WG_KSPLIT=0,CLUSTER_M=1,CLUSTER_N=1,EPI_TMA=1,PERSISTENT=1,SPLIT_K=1,STREAM_K=0,SWAP_AB=0,KB_PAIR=0,SPLIT_DSMEM=0,RASTER=8
ROWS=${ROWS:-model,race,seeded,random,fixed-tile,no-split-k,no-sm90}
if [ -n "${SEED_DB:-}" ] && [ ! -f "$SEED_DB" ]; then
  echo "SEED_DB=$SEED_DB: no such file; give a database tuned on this GPU, or leave SEED_DB out" >&2
  exit 2
fi
source scripts/carry-env.sh
SHAPES=${SHAPES:-configs/shapes/grid-125.json}
# Families without split-K: sm90 and sm80 with SPLIT_K (and sm90's STREAM_K, SPLIT_DSMEM) fixed off.
nosplit_spaces() {
  python3 - "$OUT" <<'PY'
import json, pathlib, sys
out = pathlib.Path(sys.argv[1])
for name in ("sm90", "sm80"):
    space = json.loads(pathlib.Path(f"configs/spaces/{name}.json").read_text())
    space["family"] = f"nosplit_{name}"
    space["template"] = str(pathlib.Path(space["template"]).resolve())
    for param, value in (("SPLIT_K", 1), ("STREAM_K", 0), ("SPLIT_DSMEM", 0)):
        if param in space["params"]:
            space["params"][param] = [value]
    (out / f"nosplit_{name}.space.json").write_text(json.dumps(space))
PY
}
tables=()
for row in ${ROWS//,/ }; do
  args=()
  case $row in
    model | race | random) args=(--strategy "$row") ;;
    seeded)
      if [ -z "${SEED_DB:-}" ]; then echo "seeded: left out (no SEED_DB)"; continue; fi
      python3 scripts/seed_db_copy.py "$SEED_DB" "$SHAPES" "$OUT/seeded.sqlite" || { echo "seeded: left out"; continue; }
      args=(--strategy seeded) ;;
    fixed-tile) args=(--family sm90 --pin "$FIXED_TILE") ;;
    no-split-k)
      nosplit_spaces
      args=(--family nosplit_sm90,nosplit_sm80 --space-file "$OUT/nosplit_sm90.space.json"
            --space-file "$OUT/nosplit_sm80.space.json") ;;
    no-sm90) args=(--family sm80) ;;
    *) echo "ROWS: unknown row '$row'; rows are model, race, seeded, random, fixed-tile, no-split-k, no-sm90" >&2
       exit 2 ;;
  esac
  # shellcheck disable=SC2086
  "$T" tune --shapes "$SHAPES" --db "$OUT/$row.sqlite" "${args[@]}" ${TUNE_EXTRA:-} > "$OUT/$row.log" 2>&1
  echo "$row: $(tail -2 "$OUT/$row.log")"
  tables+=("$row=$OUT/$row.sqlite")
done
{
  echo "# Ablation on $(basename "$SHAPES" .json) ($(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -1), $("$T" --version))"
  echo
  echo "Each row tunes $SHAPES from an empty database (seeded: from SEED_DB's"
  echo "winners of other shapes); the kernel cache was filled beforehand, so the time is the GPU's."
  echo
  python3 scripts/ablation_table.py "${tables[@]}"
} > "$OUT/ablation.md"
cat "$OUT/ablation.md"
