#!/usr/bin/env python3
"""The table of a folder of scripts/ncu-compare.sh results: per shape, our kernel beside cuBLAS's
(one launch each under ncu): time, tensor-pipe activity, bytes through the L2, DRAM bytes read,
the SM clock the launch ran at (active cycles over time) and cuBLAS's kernel name.
Usage: ncu_table.py FOLDER > table.md   (FOLDER holds <M>x<N>x<K>-{ours,cublas}.csv)"""
import csv
import sys
from pathlib import Path

TIME = "gpu__time_duration.sum"
TENSOR = "sm__pipe_tensor_op_hmma_cycles_active.avg.pct_of_peak_sustained_active"
L2_BYTES = "lts__t_bytes.sum"
DRAM_READ = "dram__bytes_read.sum"
CYCLES = "sm__cycles_active.avg"
USED = (TIME, TENSOR, L2_BYTES, DRAM_READ, CYCLES)
SCALE = {"byte": 1, "Kbyte": 1e3, "Mbyte": 1e6, "Gbyte": 1e9, "KB": 1e3, "MB": 1e6, "GB": 1e9, "ns": 1e-3,
         "us": 1, "ms": 1e3, "nsecond": 1e-3, "usecond": 1, "msecond": 1e3, "cycle": 1, "%": 1, "": 1}


def fail(message):
    print(f"ncu_table: {message}", file=sys.stderr)
    sys.exit(2)


def read_launch(path):
    """({metric: value in bytes, us, cycles or %}, kernel name) of the first launch in an ncu CSV."""
    try:
        lines = [line for line in path.read_text().splitlines() if not line.startswith("==")]
    except OSError as e:
        fail(f"{path}: {e}")
    metrics, kernel = {}, None
    for row in csv.DictReader(lines):
        if kernel is None:
            kernel = row["Kernel Name"]
        if row["Kernel Name"] != kernel or row["ID"] != "0" or not row.get("Metric Name"):
            continue
        unit = row["Metric Unit"]
        if row["Metric Name"] not in USED:
            continue
        if unit not in SCALE:
            fail(f"{path}: unit {unit!r} of {row['Metric Name']} is not one this table converts")
        metrics[row["Metric Name"]] = float(row["Metric Value"].replace(",", "")) * SCALE[unit]
    missing = [m for m in USED if m not in metrics]
    if missing:
        fail(f"{path}: no {', '.join(missing)}; give the CSVs that scripts/ncu-compare.sh writes")
    return metrics, kernel


def main(args):
    if len(args) != 1:
        fail("usage: ncu_table.py FOLDER")
    folder = Path(args[0])
    shapes = sorted((p.name[: -len("-ours.csv")] for p in folder.glob("*-ours.csv")),
                    key=lambda s: tuple(int(x) for x in s.split("x")))
    if not shapes:
        fail(f"{folder}: no <M>x<N>x<K>-ours.csv; give the folder scripts/ncu-compare.sh wrote into")
    print("| shape | ours µs | cuBLAS µs | cuBLAS / ours | tensor pipe % ours / cuBLAS | L2 GB ours / cuBLAS"
          " | DRAM read GB ours / cuBLAS | SM MHz ours / cuBLAS | cuBLAS kernel |")
    print("| :-- | --: | --: | --: | --: | --: | --: | --: | :-- |")
    for shape in shapes:
        ours, _ = read_launch(folder / f"{shape}-ours.csv")
        theirs, name = read_launch(folder / f"{shape}-cublas.csv")
        mhz = [m[CYCLES] / m[TIME] for m in (ours, theirs)]
        print(f"| {shape} | {ours[TIME]:.1f} | {theirs[TIME]:.1f} | {theirs[TIME] / ours[TIME]:.3f}x"
              f" | {ours[TENSOR]:.1f} / {theirs[TENSOR]:.1f} | {ours[L2_BYTES] / 1e9:.2f} / {theirs[L2_BYTES] / 1e9:.2f}"
              f" | {ours[DRAM_READ] / 1e9:.2f} / {theirs[DRAM_READ] / 1e9:.2f} | {mhz[0]:.0f} / {mhz[1]:.0f} | `{name}` |")


if __name__ == "__main__":
    main(sys.argv[1:])
