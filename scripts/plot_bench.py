#!/usr/bin/env python3
"""Plots of a `cuda-l2-tune bench` folder.

    python3 scripts/plot_bench.py DIR

Reads DIR/bench.csv and writes into DIR:
  heatmap_k<K>.png          ours vs cuBLASLt-autotune (offline GPU time) over the (M, N) grid of
                            each K; log2 colour scale centred at 1 (green: ours faster), values
                            annotated. Where the run mixes layouts or accumulators, one map per
                            combination: heatmap_k<K>_<layout>_<accum>.png.
  speedup_distribution.png  speedups of ours over torch, cuBLAS-max, cuBLASLt-heuristic and
                            cuBLASLt-autotune, per mode (offline, server N ms), per-call wall time
                            (the figure CUDA-L2 reports): a box per mode with every shape as a point.
Speedup = baseline time / our time. Providers or figures the run lacks are skipped with a note.
"""
import csv
import math
import os
import sys
from collections import defaultdict

PROG = "plot_bench"
AUTOTUNE = "cublaslt_autotune"
BASELINES = [("torch", "torch.matmul"), ("cublas_max", "cuBLAS-max"),
             ("cublaslt_heuristic", "cuBLASLt-heuristic"), (AUTOTUNE, "cuBLASLt-autotune")]
REQUIRED_COLUMNS = ["M", "N", "K", "layout", "accum", "provider", "mode", "interval_ms",
                    "gpu_us", "wall_us"]


class UserError(Exception):
    """A problem with the input folder: printed as one line, exit status 2."""


def note(message):
    print(f"{PROG}: {message}", file=sys.stderr)


def number(text):
    """A time from bench.csv; NaN for an empty (unmeasured) field."""
    return float(text) if text else math.nan


def read_times(folder):
    """{(M, N, K, layout, accum): {(provider, mode, interval_ms): {"gpu": us, "wall": us}}}."""
    path = os.path.join(folder, "bench.csv")
    if not os.path.isfile(path):
        raise UserError(f"{path}: no bench.csv; give the folder that cuda-l2-tune bench wrote")
    times = defaultdict(dict)
    with open(path, newline="") as f:
        reader = csv.DictReader(f)
        missing = [c for c in REQUIRED_COLUMNS if c not in (reader.fieldnames or [])]
        if missing:
            raise UserError(f"{path}: no column {', '.join(missing)}; regenerate it with cuda-l2-tune bench")
        for line, row in enumerate(reader, start=2):
            try:
                shape = (int(row["M"]), int(row["N"]), int(row["K"]), row["layout"], row["accum"])
                key = (row["provider"], row["mode"], int(row["interval_ms"]))
                times[shape][key] = {"gpu": number(row["gpu_us"]), "wall": number(row["wall_us"])}
            except (TypeError, ValueError) as error:
                raise UserError(f"{path}:{line}: {error}; regenerate it with cuda-l2-tune bench")
    if not times:
        raise UserError(f"{path}: no timings; the bench run measured nothing")
    return times


def speedup(shape_times, baseline, mode, figure):
    """Baseline time / our time; NaN unless both were measured."""
    ours = shape_times.get(("ours",) + mode, {}).get(figure, math.nan)
    other = shape_times.get((baseline,) + mode, {}).get(figure, math.nan)
    return other / ours if ours > 0 and other > 0 else math.nan


def mode_label(mode):
    return "offline" if mode[0] == "offline" else f"server {mode[1]} ms"


def plot_heatmaps(plt, np, times, folder):
    offline = ("offline", 0)
    groups = defaultdict(dict)  # (K, layout, accum) -> {(M, N): speedup}
    for (m, n, k, layout, accum), shape_times in times.items():
        value = speedup(shape_times, AUTOTUNE, offline, "gpu")
        if not math.isnan(value):
            groups[(k, layout, accum)][(m, n)] = value
    if not groups:
        note("no shape has offline GPU times of both ours and cuBLASLt-autotune; heatmaps skipped")
        return []
    one_kind = len({(layout, accum) for (_, layout, accum) in groups}) == 1
    written = []
    for (k, layout, accum), values in sorted(groups.items()):
        ms = sorted({m for m, _ in values})
        ns = sorted({n for _, n in values})
        grid = np.full((len(ms), len(ns)), np.nan)
        for (m, n), value in values.items():
            grid[ms.index(m), ns.index(n)] = math.log2(value)
        reach = max(1.0, float(np.nanmax(np.abs(grid))))  # symmetric, so 1x sits at the centre
        fig, ax = plt.subplots(figsize=(1.0 + 0.75 * len(ns), 1.2 + 0.6 * len(ms)))
        cmap = plt.get_cmap("RdYlGn").copy()
        cmap.set_bad("lightgrey")
        image = ax.imshow(np.ma.masked_invalid(grid), cmap=cmap, vmin=-reach, vmax=reach,
                          origin="lower", aspect="auto")
        for (m, n), value in values.items():
            ax.text(ns.index(n), ms.index(m), f"{value:.2f}", ha="center", va="center", fontsize=7)
        ax.set_xticks(range(len(ns)), [str(n) for n in ns], rotation=45)
        ax.set_yticks(range(len(ms)), [str(m) for m in ms])
        ax.set_xlabel("N")
        ax.set_ylabel("M")
        ax.set_title(f"ours vs cuBLASLt-autotune, offline GPU time, K={k} {layout} {accum}", fontsize=9)
        bar = fig.colorbar(image, ax=ax)
        ticks = [t for t in range(-math.ceil(reach), math.ceil(reach) + 1) if abs(t) <= reach]
        bar.set_ticks(ticks, labels=[f"{2.0 ** t:g}x" for t in ticks])
        name = f"heatmap_k{k}.png" if one_kind else f"heatmap_k{k}_{layout}_{accum}.png"
        fig.tight_layout()
        fig.savefig(os.path.join(folder, name), dpi=120)
        plt.close(fig)
        written.append(name)
    return written


def plot_distribution(plt, np, times, folder):
    modes = sorted({key[1:] for shape_times in times.values() for key in shape_times},
                   key=lambda mode: (mode[0] != "offline", mode[1]))
    panels = []  # (title, [(mode label, speedups)])
    for provider, title in BASELINES:
        series = []
        for mode in modes:
            values = [speedup(t, provider, mode, "wall") for t in times.values()]
            values = [v for v in values if not math.isnan(v)]
            if values:
                series.append((mode_label(mode), values))
        if series:
            panels.append((title, series))
        else:
            note(f"no per-call times of both ours and {title}; left out of speedup_distribution.png")
    if not panels:
        note("no speedups to plot; speedup_distribution.png skipped")
        return []
    fig, axes = plt.subplots(1, len(panels), figsize=(3.2 * len(panels), 4.0), sharey=True,
                             squeeze=False)
    jitter = np.random.default_rng(0)  # fixed seed: the same folder gives the same picture
    for ax, (title, series) in zip(axes[0], panels):
        ax.boxplot([values for _, values in series], showfliers=False)
        for position, (_, values) in enumerate(series, start=1):
            ax.scatter(position + jitter.uniform(-0.15, 0.15, len(values)), values, s=8,
                       alpha=0.6, color="tab:blue")
        ax.axhline(1.0, color="grey", linewidth=0.8, linestyle="--")
        ax.set_yscale("log", base=2)
        ax.yaxis.set_major_formatter(lambda value, _: f"{value:g}x")
        ax.set_xticks(range(1, len(series) + 1), [label for label, _ in series], rotation=30)
        ax.set_title(f"vs {title}", fontsize=10)
    axes[0][0].set_ylabel("speedup (baseline / ours), per-call wall time")
    fig.tight_layout()
    fig.savefig(os.path.join(folder, "speedup_distribution.png"), dpi=120)
    plt.close(fig)
    return ["speedup_distribution.png"]


def main(argv):
    if len(argv) != 2 or argv[1].startswith("-"):
        print(f"usage: {PROG}.py DIR  (a folder written by cuda-l2-tune bench)", file=sys.stderr)
        return 2
    folder = argv[1]
    try:
        times = read_times(folder)
    except UserError as error:
        note(str(error))
        return 2
    try:
        import matplotlib
        matplotlib.use("Agg")  # files only: no display on the GPU machine or in CI
        import matplotlib.pyplot as plt
        import numpy as np
    except ImportError:
        note("matplotlib is not installed; python3 -m pip install matplotlib")
        return 2
    written = plot_heatmaps(plt, np, times, folder) + plot_distribution(plt, np, times, folder)
    note(f"wrote {len(written)} plots into {folder}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
