#!/usr/bin/env python3
"""Summarizes a CL2_TIMING_LOG file (one JSON line per interleaved measurement, src/gpu/timing_log.hpp).

Per stopping rule (race, screening, final, or other): how many measurements, their rounds, why
they stopped, their setup and total wall time; and what the same measurements would have cost had
the rule also stopped once each call's ratio to the first call of its round (noise the round's
calls share, such as the clock, cancels there) was known as well as it asks of each call's own
time. Markdown on stdout.

usage: timing_log_summary.py TIMING.jsonl
"""
import json
import math
import sys
from collections import defaultdict

MEDIAN_ERROR_FACTOR = math.sqrt(math.pi / 2)  # as src/gpu/stop_rule.cpp


def rule_name(rule):
    known = {(0.01, 100): "race", (0.004, 200): "screening", (0.002, 300): "final"}
    return known.get((rule["max_error"], rule["replay_target_us"]), "rule %(max_error)g/%(replay_target_us)g" % rule)


def rounds_needed(spread_pct, rule, seconds_per_round):
    by_error = math.ceil((MEDIAN_ERROR_FACTOR * spread_pct / 100 / rule["max_error"]) ** 2)
    by_time = math.ceil(rule["min_seconds"] / seconds_per_round) if seconds_per_round > 0 else 0
    return min(rule["max_samples"], max(rule["min_samples"], by_error, by_time))


def main(path):
    groups = defaultdict(list)
    with open(path) as f:
        for line in f:
            if line.strip():
                m = json.loads(line)
                groups[rule_name(m["rule"])].append(m)
    print("| rule | measurements | rounds (mean) | settled / capped / out of time | setup s (mean) | wall s (total) "
          "| rounds if judged on ratios (mean) | wall s if so (estimate) |")
    print("| :--- | ---: | ---: | :--- | ---: | ---: | ---: | ---: |")
    for name, ms in sorted(groups.items()):
        rounds = [m["calls"][0]["samples"] for m in ms]
        reasons = defaultdict(int)
        for m in ms:
            reasons[m["reason"]] += 1
        wall = sum(m["wall_s"] for m in ms)
        ratio_rounds, ratio_wall = [], 0.0
        for m, n in zip(ms, rounds):
            rule = m["rule"]
            # Each call's own time per round bounds min_seconds; one round's wall time from the measured ones.
            per_round = (m["wall_s"] - m["setup_s"]) / max(n, 1)
            seconds = min(c["copies"] * c["median_us"] * 1e-6 for c in m["calls"])
            others = m["calls"][1:] or m["calls"]
            need = max(rounds_needed(c["ratio_spread_pct"] if len(m["calls"]) > 1 else c["spread_pct"], rule, seconds)
                       for c in others)
            need = min(need, n)  # a rule on ratios would be met as well as, not instead of, the present one
            ratio_rounds.append(need)
            ratio_wall += m["setup_s"] + per_round * need
        print("| %s | %d | %.1f | %d / %d / %d | %.4f | %.1f | %.1f | %.1f |" % (
            name, len(ms), sum(rounds) / len(ms), reasons["settled"], reasons["capped"], reasons["out_of_time"],
            sum(m["setup_s"] for m in ms) / len(ms), wall, sum(ratio_rounds) / len(ms), ratio_wall))


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    main(sys.argv[1])
