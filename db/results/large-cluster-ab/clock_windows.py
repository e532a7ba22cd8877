#!/usr/bin/env python3
"""The SM clock and power draw during each bench process of an own-clock.sh run.

Usage: clock_windows.py FOLDER   (FOLDER holds own-clock.sh's windows.tsv and clock.csv)

clock.csv is nvidia-smi's sample every 50 ms (timestamp, SM MHz, W); its power reading is an
average over about a second, so a process whose GPU work is much shorter than that never shows
its own draw. Per process (round, shape, run): its wall seconds, the samples in it, how many of
them read above BUSY_W watts (the GPU at work), and over those the median SM clock and power and
the highest power. Prints a Markdown table.
"""
import csv
import datetime
import pathlib
import statistics
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[3] / "scripts"))
from smi_samples import smi_samples  # noqa: E402

BUSY_W = 300.0  # above this the GPU is computing; idle and launch overhead read 70-240 W


def samples(path):
    """(ms since the epoch, SM MHz, W) of own-clock.sh's log (local time, which is UTC there)."""
    return [(when.replace(tzinfo=datetime.timezone.utc).timestamp() * 1000, mhz, watts)
            for when, mhz, watts in smi_samples(path, 2)]


def median_or_dash(values):
    return f"{statistics.median(values):.0f}" if values else "-"


def main(folder):
    clock = samples(f"{folder}/clock.csv")
    print("| round | shape | run | wall s | samples | busy samples | busy MHz | busy W | max W |")
    print("| --: | :-- | :-- | --: | --: | --: | --: | --: | --: |")
    for w in csv.DictReader(open(f"{folder}/windows.tsv"), delimiter="\t"):
        start, end = float(w["start_ms"]), float(w["end_ms"])
        inside = [s for s in clock if start <= s[0] <= end]
        busy = [s for s in inside if s[2] > BUSY_W]
        top = max((s[2] for s in inside), default=0.0)
        print(f"| {w['round']} | {w['shape']} | {w['run']} | {(end - start) / 1000:.1f} | {len(inside)} | "
              f"{len(busy)} | {median_or_dash([s[1] for s in busy])} | {median_or_dash([s[2] for s in busy])} | "
              f"{top:.0f} |")


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit("usage: clock_windows.py FOLDER (own-clock.sh's output: windows.tsv and clock.csv)")
    main(sys.argv[1])
