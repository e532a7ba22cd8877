#!/usr/bin/env python3
"""Writes sm90f.space.json: the committed sm90 family with its calibration (factors and scale)
replaced by the fit that `cuda-l2-tune calibrate` makes to every sm90 trial measured on the H200 in
the databases committed under db/results/ (the strategy check's reference of 512 variants a shape,
grid-125's trials, the 100-shape sample of grid-1000 and the ablation's full tuner). Why: the space
file's factors were set by hand and by fits to older kernels; fitted to the reference alone and
judged on shapes held out of the fit, factors like these put a variant within 2% of the best in
the model's first 32 on 28 of 30 shapes, where the space file's reach 22
(../h200-strategy-check/calibrate-reference-first.txt).
    db/results/calibrated-factors/make-space.py BINARY    (build/cuda-l2-tune)"""
import json
import lzma
import pathlib
import re
import subprocess
import sys
import tempfile

here = pathlib.Path(__file__).resolve().parent
results = here.parent
sys.path.insert(0, str(here.parents[2] / "scripts"))
from derive_space import derive  # noqa: E402

if len(sys.argv) != 2:
    sys.exit("usage: make-space.py BINARY")
with tempfile.TemporaryDirectory() as scratch:
    dbs = []
    for packed in ["h200-strategy-check/reference.sqlite.xz", "h200-ablation/model.sqlite.xz"]:
        db = pathlib.Path(scratch) / packed.replace("/", "-").removesuffix(".xz")
        db.write_bytes(lzma.decompress((results / packed).read_bytes()))
        dbs.append(db)
    dbs += [results / "h200-grid125-trials.sqlite", results / "h200-search-time/s100.sqlite"]
    args = [sys.argv[1], "calibrate", "--device", "H200"] + [a for db in dbs for a in ("--db", str(db))]
    report = subprocess.run(args, check=True, capture_output=True, text=True).stdout
block = report[report.index('"scale"'):]
scale = float(re.match(r'"scale": ([0-9.]+)', block).group(1))
factors = json.loads("[" + block[block.index("[") + 1:block.index("\n    ]") + 1] + "]")
out = here / "sm90f.space.json"
derive(out, "sm90f", description="sm90 with the calibration fitted to the H200's trials (calibrated-factors/)")
space = json.loads(out.read_text())
assert [f[0] for f in space["calibration"]["factors"]] == [f[0] for f in factors], "the fit's rules are sm90's"
space["calibration"] = {"scale": scale, "factors": factors}
out.write_text(json.dumps(space, indent=1) + "\n")
(here / "fit.txt").write_text(report)
print(f"wrote {out} (scale {scale:.3f}, {len(factors)} factors)")
