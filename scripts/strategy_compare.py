#!/usr/bin/env python3
"""Issue 11's strategy check: per shape, a strategy's winner against a reference tuning of the same
shapes, how many shapes land within 2% of the reference, and the share of the reference's timed
candidates the strategy timed.

Each winner's speedup over cuBLASLt-autotune is timed side by side in its own run's final round, so
that the two runs' clocks cancel in their ratio; the library's own run-to-run differences do not
(12288x4096x1024 on the H200: the strategy's winner 165.6 us against the reference's 168.6, yet
0.974 by the ratios, cuBLASLt having run 4% faster in the strategy's run). Given bench's CSV of
`bench --db STRATEGY_DB --runtime-db REFERENCE_DB --providers ours,runtime --mode offline`, a shape
whose runtime call ran the reference's own winner (route ours_exact) is judged head to head instead:
the reference winner's time over the strategy winner's, timed interleaved in one process.
Usage: strategy_compare.py REFERENCE_DB STRATEGY_DB [HEAD_TO_HEAD_BENCH_CSV] > comparison.md"""
import csv
import math
import sys

from results_db import fail, rows as db_rows

KEY = "m, n, k, layout, accum, l2"
WITHIN = 0.98


def winners(path):
    out = {}
    for row in db_rows(path, f"SELECT {KEY}, time_us, cublaslt_autotune_us, candidates_timed FROM winners"):
        key, ours, lt, timed = row[:6], row[6], row[7], row[8]
        if ours and lt and ours > 0 and lt > 0:
            out[key] = (lt / ours, timed)
    return out


def head_to_head(path):
    """(m, n, k, layout, accum) -> reference winner's GPU time over the strategy winner's, where
    bench's runtime call ran the reference's own winner."""
    try:
        with open(path, newline="") as f:
            reader = csv.DictReader(f)
            needed = {"M", "N", "K", "layout", "accum", "provider", "mode", "gpu_us", "route"}
            missing = needed - set(reader.fieldnames or [])
            if missing:
                fail(f"{path}: not a bench.csv (no column {', '.join(sorted(missing))}); "
                     "give the head-to-head bench's bench.csv")
            rows = [r for r in reader if r["mode"] == "offline"]
    except OSError as e:
        fail(f"{path}: cannot read it ({e}); give the bench.csv of the head-to-head bench")
    times = {}
    try:
        for r in rows:
            shape = (int(r["M"]), int(r["N"]), int(r["K"]), r["layout"], r["accum"])
            if r["provider"] == "ours" or (r["provider"] == "runtime" and r.get("route") == "ours_exact"):
                times.setdefault(shape, {})[r["provider"]] = float(r["gpu_us"])
    except ValueError as e:
        fail(f"{path}: a number that is none ({e}); give the head-to-head bench's bench.csv")
    return {s: t["runtime"] / t["ours"] for s, t in times.items() if t.get("ours", 0) > 0 and t.get("runtime", 0) > 0}


def main(args):
    if len(args) not in (2, 3):
        fail("usage: strategy_compare.py REFERENCE_DB STRATEGY_DB [HEAD_TO_HEAD_BENCH_CSV]")
    ref, got = winners(args[0]), winners(args[1])
    h2h = head_to_head(args[2]) if len(args) == 3 else {}
    shared = sorted(set(ref) & set(got))
    if not shared:
        fail("no shape has a winner in both databases")
    print("| shape | reference vs cuBLASLt | strategy vs cuBLASLt | strategy / reference | head to head "
          "(reference us / strategy us) | judged by | timed: reference, strategy |")
    print("| :-- | --: | --: | --: | --: | :-- | --: |")
    within = judged_head_to_head = 0
    for key in shared:
        (r, rt), (g, gt) = ref[key], got[key]
        direct = h2h.get(key[:5])
        score = direct if direct is not None else g / r
        within += score >= WITHIN
        judged_head_to_head += direct is not None
        shown = f"{direct:.3f}" if direct is not None else "-"
        by = "head to head" if direct is not None else "ratios"
        print(f"| {key[0]}x{key[1]}x{key[2]} {key[3]} | {r:.3f} | {g:.3f} | {g / r:.3f} | {shown} | {by} | {rt}, {gt} |")
    ratio = math.exp(sum(math.log(got[k][0] / ref[k][0]) for k in shared) / len(shared))
    timed = sum(got[k][1] for k in shared) / max(1, sum(ref[k][1] for k in shared))
    print()
    print(f"{within} of {len(shared)} shapes within 2% of the reference ({judged_head_to_head} judged head to head, "
          f"the others by the runs' ratios to cuBLASLt-autotune; geomean of the ratios strategy / reference "
          f"{ratio:.3f}); the strategy timed {100 * timed:.0f}% of the reference's candidates.")


if __name__ == "__main__":
    main(sys.argv[1:])
