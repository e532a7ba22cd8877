#!/usr/bin/env python3
"""The per-shape table of a space-ab.sh run: for each shape, each family's winner's speedup over
cuBLASLt-autotune (timed beside it in that run's final round) in every round, their geomean, and
the winning kernels, then every run's geomean over the shapes.
Usage: space_ab_table.py AB_FOLDER > table.md
AB_FOLDER holds space-ab.sh's <family>-<shapes>-<round>.sqlite (unpacked)."""
import json
import math
import re
import sys
from pathlib import Path

from results_db import fail, rows

RUN_NAME = re.compile(r"^(?P<family>[^-]+)-(?P<shapes>.+)-(?P<round>\d+)\.sqlite$")


def short_kernel(family, params):
    """sm90 winners as the READMEs name them (pp 128x160 c2x1 st4 epi1 swap); others by family."""
    if not family.startswith("sm90"):
        return family
    kind = "pp" if params.get("PINGPONG") else "ksplit" if params.get("WG_KSPLIT") else "coop"
    text = (f"{kind} {params['BM']}x{params['BN']} c{params['CLUSTER_M']}x{params['CLUSTER_N']}"
            f" st{params['STAGES']} epi{params['EPI_TMA']}")
    return text + (" swap" if params.get("SWAP_AB") else "") + (
        f" split{params['SPLIT_K']}" if params.get("SPLIT_K", 1) > 1 else "")


def winners(path):
    """{'MxNxK': (speedup, kernel)} of a database's winners."""
    query = ("select w.m, w.n, w.k, w.cublaslt_autotune_us / w.time_us, k.family, k.config_json"
             " from winners w join kernels k on k.id = w.kernel_id where w.time_us > 0")
    return {f"{m}x{n}x{k}": (ratio, short_kernel(family, json.loads(config)["params"]))
            for m, n, k, ratio, family, config in rows(path, query) if ratio}


def geomean(values):
    return math.exp(sum(math.log(v) for v in values) / len(values)) if values else float("nan")


def main(args):
    if len(args) != 1:
        fail("usage: space_ab_table.py AB_FOLDER")
    runs = {}  # family -> round -> winners
    for path in sorted(Path(args[0]).glob("*.sqlite")):
        name = RUN_NAME.match(path.name)
        if name:
            runs.setdefault(name["family"], {})[int(name["round"])] = winners(path)
    if not runs:
        fail(f"{args[0]}: no <family>-<shapes>-<round>.sqlite; give the folder space-ab.sh wrote")
    families = sorted(runs, key=lambda f: (f != "sm90", f))  # the committed family first
    shapes = sorted({s for rounds in runs.values() for w in rounds.values() for s in w},
                    key=lambda s: tuple(int(x) for x in s.split("x")))
    head = "| shape | " + " | ".join(f"{f}: runs | geomean" for f in families) + " | " + \
        " | ".join(f"{f} winners" for f in families) + " |"
    print(head)
    print("| :-- | " + " | ".join("--: | --:" for _ in families) + " | " + " | ".join(":--" for _ in families) + " |")
    for shape in shapes:
        cells, kernels = [], []
        for f in families:
            got = [runs[f][r][shape] for r in sorted(runs[f]) if shape in runs[f][r]]
            cells.append(" / ".join(f"{ratio:.3f}" for ratio, _ in got) + f" | {geomean([r for r, _ in got]):.3f}")
            kernels.append(", ".join(dict.fromkeys(kernel for _, kernel in got)))
        print(f"| {shape} | " + " | ".join(cells) + " | " + " | ".join(kernels) + " |")
    print()
    for f in families:
        per_run = [geomean([ratio for ratio, _ in runs[f][r].values()]) for r in sorted(runs[f])]
        print(f"- {f}: " + " / ".join(f"{g:.3f}" for g in per_run) + f" (geomean {geomean(per_run):.3f})")


if __name__ == "__main__":
    main(sys.argv[1:])
