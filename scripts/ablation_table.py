#!/usr/bin/env python3
"""The ablation table of scripts/ablation.sh: per row (a tuning database of the same shapes), the
geomean of our winners' speedup over cuBLASLt-autotune (timed side by side in each shape's final
round), the arithmetic mean, the shapes with a winner, the candidates timed and the tuning time
(the database's last run, start to finish). Usage: ablation_table.py NAME=DB... > table.md"""
import math
import sqlite3
import sys
from datetime import datetime


def row(name, path):
    db = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    # The row's own run is the database's last (a seeded row's database holds its seeds' run too).
    run = db.execute("SELECT max(id) FROM runs").fetchone()[0]
    ratios = [lt / ours for ours, lt in db.execute("SELECT time_us, cublaslt_autotune_us FROM winners "
                                                   "WHERE run_id = ?", (run,))
              if ours and lt and ours > 0 and lt > 0]
    trials = db.execute("SELECT count(*) FROM trials WHERE status = 'ok' AND run_id = ?", (run,)).fetchone()[0]
    started, finished = db.execute("SELECT started_at, finished_at FROM runs WHERE id = ?", (run,)).fetchone()
    parse = lambda t: datetime.strptime(t, "%Y-%m-%dT%H:%M:%SZ")
    seconds = (parse(finished) - parse(started)).total_seconds() if finished else float("nan")
    geomean = math.exp(sum(map(math.log, ratios)) / len(ratios)) if ratios else float("nan")
    mean = sum(ratios) / len(ratios) if ratios else float("nan")
    return f"| {name} | {geomean:.3f} | {mean:.3f} | {len(ratios)} | {trials} | {seconds / 60:.1f} |"


def main(args):
    if not args or any("=" not in a for a in args):
        sys.exit("usage: ablation_table.py NAME=DB...")
    print("| row | vs cuBLASLt-autotune, geomean | mean | shapes | candidates timed | tuning minutes |")
    print("| :-- | --: | --: | --: | --: | --: |")
    for arg in args:
        name, path = arg.split("=", 1)
        print(row(name, path))


if __name__ == "__main__":
    main(sys.argv[1:])
