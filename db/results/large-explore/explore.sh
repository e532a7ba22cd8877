#!/usr/bin/env bash
# On the GPU machine: every variant of the exploration families of this folder (README.md here) on
# configs/shapes/large.json, and the committed plan in the same session; then ncu counters (one
# launch, scripts/ncu-compare.sh) of the xpp winners and cuBLAS's kernel at 6144x6144x2048 and 8192^3.
# Prepared on the CPU machine:
#   python3 db/results/large-explore/make-spaces.py
#   D=db/results/large-explore; for f in xlarge xbig xpp; do a+=("--shapes configs/shapes/large.json --family $f --space-file $D/$f.space.json --max-candidates 0"); done
#   bash scripts/carry-build.sh "--shapes configs/shapes/large.json" "${a[@]}"
# Writes $OUT/plan.sqlite, xlarge.sqlite, xbig.sqlite, xpp.sqlite, their logs and ncu-*.csv
# (about 5 minutes on one GPU: xlarge 80 s, xpp 45 s, xbig 30 s, plan 15 s, ncu 20 s).
set -uo pipefail
cd "$(dirname "$0")/../../.."
source scripts/carry-env.sh
D=db/results/large-explore
nvidia-smi --query-gpu=name,clocks.sm,power.draw,temperature.gpu --format=csv > "$OUT/gpu.txt"
$T --version > "$OUT/version.txt"
$T tune --shapes configs/shapes/large.json --family sm90 --db "$OUT/plan.sqlite" > "$OUT/plan.log" 2>&1
for fam in xlarge xbig xpp; do
  $T tune --shapes configs/shapes/large.json --family $fam --space-file $D/$fam.space.json --max-candidates 0 \
    --db "$OUT/$fam.sqlite" > "$OUT/$fam.log" 2>&1
  tail -2 "$OUT/$fam.log" | head -1
done
for shape in "6144 6144 2048" "8192 8192 8192"; do
  pins=$(python3 - "$OUT/xpp.sqlite" $shape <<'PY'
import json, sqlite3, sys
c = sqlite3.connect(sys.argv[1])
(cfg,) = c.execute("select k.config_json from winners w join kernels k on k.id = w.kernel_id"
                   " where m = ? and n = ? and k = ?", tuple(map(int, sys.argv[2:5]))).fetchone()
print(",".join(f"{k}={v}" for k, v in json.loads(cfg)["params"].items()))
PY
)
  FAMILY_ARGS="--family xpp --space-file $D/xpp.space.json" bash scripts/ncu-compare.sh $shape "$pins" "$OUT/ncu-${shape// /x}"
done
