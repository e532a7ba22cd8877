#!/usr/bin/env python3
"""Issue 11's strategy check: per shape, a strategy's winner against a reference tuning of the same
shapes (each winner's speedup over cuBLASLt-autotune, timed side by side in its own run's final
round, so that the two runs' clocks cancel), how many shapes land within 2% of the reference, and
the share of the reference's timed candidates the strategy timed.
Usage: strategy_compare.py REFERENCE_DB STRATEGY_DB > comparison.md"""
import math
import sqlite3
import sys

KEY = "m, n, k, layout, accum, l2"


def winners(path):
    db = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    out = {}
    for row in db.execute(f"SELECT {KEY}, time_us, cublaslt_autotune_us, candidates_timed FROM winners"):
        key, ours, lt, timed = row[:6], row[6], row[7], row[8]
        if ours and lt and ours > 0 and lt > 0:
            out[key] = (lt / ours, timed)
    return out


def main(args):
    if len(args) != 2:
        sys.exit("usage: strategy_compare.py REFERENCE_DB STRATEGY_DB")
    ref, got = winners(args[0]), winners(args[1])
    shared = sorted(set(ref) & set(got))
    if not shared:
        sys.exit("no shape has a winner in both databases")
    print("| shape | reference vs cuBLASLt | strategy vs cuBLASLt | strategy / reference | timed: reference, strategy |")
    print("| :-- | --: | --: | --: | --: |")
    within = 0
    for key in shared:
        (r, rt), (g, gt) = ref[key], got[key]
        within += g / r >= 0.98
        print(f"| {key[0]}x{key[1]}x{key[2]} {key[3]} | {r:.3f} | {g:.3f} | {g / r:.3f} | {rt}, {gt} |")
    ratio = math.exp(sum(math.log(got[k][0] / ref[k][0]) for k in shared) / len(shared))
    timed = sum(got[k][1] for k in shared) / max(1, sum(ref[k][1] for k in shared))
    print()
    print(f"{within} of {len(shared)} shapes within 2% of the reference (geomean strategy / reference "
          f"{ratio:.3f}); the strategy timed {100 * timed:.0f}% of the reference's candidates.")


if __name__ == "__main__":
    main(sys.argv[1:])
