#!/usr/bin/env python3
"""Issue 8's per-M table of a decode bench: for each shape, grouped by M, our GPU time, cuBLASLt-autotune's,
the DRAM floor (A and B read and C written once, at the read-only streaming kernel's bandwidth measured in
the same bench run) and the winning kernel; then per M the geomean against cuBLASLt-autotune and the
lowest ratio.
Usage: decode_per_m.py BENCH_FOLDER EXPORT_JSON > per-m.md
BENCH_FOLDER is bench's --out (bench.csv, run.json); EXPORT_JSON is `export --format json` of the database
benched."""
import json
import math
import sys
from collections import defaultdict
from pathlib import Path

from bench_results import load_bench_figures
from results_db import fail
from space_ab_table import short_kernel


def bench_times(folder):
    """{(m, n, k): {provider: offline GPU us}} and the run's read-only bandwidth in GB/s."""
    try:
        run = json.loads((folder / "run.json").read_text())
    except (OSError, ValueError) as e:
        fail(f"{folder}: cannot read run.json ({e}); give bench's --out folder")
    if not run.get("read_gbps"):
        fail(f"{folder}/run.json: no read_gbps; bench measures it with --l2 rotate or flush")
    figures = load_bench_figures(folder / "bench.csv")
    times = {shape: {provider: us for (provider, figure), us in by.items() if figure == "gpu"}
             for shape, by in figures.items()}
    return times, run["read_gbps"]


def winners(path):
    """{(m, n, k): short name of the winning kernel} from an export."""
    try:
        kernels = [k for device in json.loads(Path(path).read_text())["devices"] for k in device["kernels"]]
    except (OSError, ValueError, KeyError) as e:
        fail(f"{path}: cannot read the export ({e}); give `cuda-l2-tune export --format json` output")
    return {(k["m"], k["n"], k["k"]): short_kernel(k["config"]["family"], k["config"]["params"]) for k in kernels}


def main():
    if len(sys.argv) != 3:
        fail("usage: decode_per_m.py BENCH_FOLDER EXPORT_JSON")
    times, read_gbps = bench_times(Path(sys.argv[1]))
    kernel = winners(sys.argv[2])
    print(f"Floor: 2(MK + KN + MN) bytes at {read_gbps:.0f} GB/s, the read-only streaming kernel of the same run.\n")
    print("| M | N x K | ours us | cuBLASLt-autotune us | floor us | ours / floor | vs cuBLASLt-autotune | winner |")
    print("| --: | :-- | --: | --: | --: | --: | --: | :-- |")
    ratios = defaultdict(list)
    for (m, n, k), t in sorted(times.items()):
        if "ours" not in t or "cublaslt_autotune" not in t:
            continue
        floor = 2 * (m * k + k * n + m * n) / read_gbps / 1e3
        ratio = t["cublaslt_autotune"] / t["ours"]
        ratios[m].append((ratio, f"{m}x{n}x{k}"))
        print(f"| {m} | {n}x{k} | {t['ours']:.2f} | {t['cublaslt_autotune']:.2f} | {floor:.2f} | "
              f"{t['ours'] / floor:.2f} | {ratio:.3f}x | {kernel.get((m, n, k), '-')} |")
    print("\n| M | shapes | geomean vs cuBLASLt-autotune | lowest |")
    print("| --: | --: | --: | :-- |")
    for m, values in sorted(ratios.items()):
        geomean = math.exp(sum(math.log(r) for r, _ in values) / len(values))
        low = min(values)
        print(f"| {m} | {len(values)} | {geomean:.3f}x | {low[0]:.3f}x ({low[1]}) |")


if __name__ == "__main__":
    main()
