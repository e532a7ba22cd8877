"""Reading a bench run's per-call figures (bench.csv in bench's --out folder), for the scripts that
set them against other measurements; a file that cannot be read is a one-line error naming it."""
import csv

from results_db import fail


def load_bench_figures(path):
    """{(m, n, k): {(provider, "gpu"|"wall"): offline us per call}} from bench.csv (TN, fp32
    accumulation rows)."""
    figures = {}
    try:
        with open(path, newline="") as f:
            for row in csv.DictReader(f):
                if row["mode"] != "offline" or row["layout"] != "tn" or row["accum"] != "f32" or not row["wall_us"]:
                    continue
                key = (int(row["M"]), int(row["N"]), int(row["K"]))
                for figure in ("gpu", "wall"):
                    figures.setdefault(key, {})[(row["provider"], figure)] = float(row[figure + "_us"])
    except (OSError, KeyError, ValueError) as e:
        fail(f"{path}: cannot read bench's per-call figures ({e}); give the bench.csv of a bench run")
    return figures
