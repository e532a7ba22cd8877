#!/usr/bin/env python3
"""A one-run A/B of two families that plan the same variants (twins: equal parameters, a different
space file, e.g. a template define changed), from one tune run that planned both:
    cuda-l2-tune tune --shapes S --family sm80,sm90,X --space-file X.space.json --max-candidates 48 --db D
    twin_ab.py D sm90 X > table.md
Twins have the same model cost, so the plan holds them side by side and the run screens each pair
back to back, on the same clock: per shape, the median over its twin pairs of A's time over B's
(above 1: B faster), and the ratio of the two families' fastest screening times; then the geomean
of both over the shapes. Screening times only (verified trials), not the final rule's; with tune's
default strategy (race times its leaders a second time, out of plan order)."""
import json
import math
import statistics
import sys

from results_db import fail, rows


def screening_times(db, family):
    """{(m, n, k): {params as sorted JSON: time_us}} of FAMILY's verified trials."""
    query = ("select t.m, t.n, t.k, t.time_us, k.config_json from trials t join kernels k on k.id = t.kernel_id"
             " where t.status = 'ok' and t.time_us > 0 and k.family = ?")
    out = {}
    for m, n, k, time_us, config in rows(db, query, (family,)):
        out.setdefault((m, n, k), {})[json.dumps(json.loads(config)["params"], sort_keys=True)] = time_us
    return out


def geomean(values):
    return math.exp(sum(math.log(v) for v in values) / len(values))


def main(args):
    if len(args) != 3:
        fail("usage: twin_ab.py DATABASE FAMILY_A FAMILY_B")
    db, a_name, b_name = args
    a, b = screening_times(db, a_name), screening_times(db, b_name)
    shapes = sorted(set(a) & set(b))
    if not shapes:
        fail(f"{db}: no shape has verified trials of both {a_name} and {b_name}; tune both in one run")
    print(f"| shape | twin pairs | median {a_name} / {b_name} time | fastest {a_name} / fastest {b_name} |")
    print("| :-- | --: | --: | --: |")
    medians, fastest = [], []
    for shape in shapes:
        twins = sorted(set(a[shape]) & set(b[shape]))
        if not twins:
            continue
        medians.append(statistics.median(a[shape][t] / b[shape][t] for t in twins))
        fastest.append(min(a[shape].values()) / min(b[shape].values()))
        print(f"| {'x'.join(map(str, shape))} | {len(twins)} | {medians[-1]:.3f} | {fastest[-1]:.3f} |")
    if not medians:
        fail(f"{db}: {a_name} and {b_name} share no variant; their space files must plan the same parameters")
    print()
    print(f"{len(medians)} shapes: geomean of the per-shape medians {geomean(medians):.4f}, of the fastest"
          f" ratios {geomean(fastest):.4f} (above 1: {b_name} faster)")


if __name__ == "__main__":
    main(sys.argv[1:])
