#!/usr/bin/env python3
"""Summarizes a CL2_TIMING_LOG file (one JSON line per interleaved measurement, src/gpu/timing_log.hpp).

First table, per stopping rule (race, screening, final, or other): how many measurements, their
rounds, why they stopped, their setup (and of it the launches that warm up and size the calls; the rest builds
their graphs) and total wall time. Second table, what the same measurements
would have cost under other rules, estimated from their recorded spreads: the median's error asked
at 1x, 1.5x and 2.5x the rule's, judged on each call's own samples or also settling once
each call's ratio to the first call of its round is known that well (noise the calls of a round
share, such as the clock, cancels in the ratio; what rules with settle_on_ratios do), and the rule's
own error on ratios with half or a quarter of its minimum GPU time per call (min_seconds, which
holds a measurement whose error is met sooner). Estimates only: a rule is chosen on them, then
measured. Third, where the log has them, the trials' steps in the worker by the rule each trial was
timed by: module and launch setup, verification, measurement (a share of it where candidates were
timed side by side), verification again, tracing. Markdown on stdout.

usage: timing_log_summary.py TIMING.jsonl
"""
import json
import math
import sys
from collections import defaultdict

MEDIAN_ERROR_FACTOR = math.sqrt(math.pi / 2)  # as src/gpu/stop_rule.cpp
ERROR_SCALES = (1.0, 1.5, 2.5)
MIN_TIME_SCALES = (0.5, 0.25)


def rule_name(rule):
    known = {(0.01, 100): "race", (0.004, 200): "screening", (0.002, 300): "final", (0.005, 300): "final round"}
    return known.get((rule["max_error"], rule["replay_target_us"]), "rule %(max_error)g/%(replay_target_us)g" % rule)


def rounds_for(spread_pct, rule, max_error, min_seconds, seconds_per_round):
    by_error = math.ceil((MEDIAN_ERROR_FACTOR * spread_pct / 100 / max_error) ** 2)
    by_time = math.ceil(min_seconds / seconds_per_round) if seconds_per_round > 0 else 0
    return min(rule["max_samples"], max(rule["min_samples"], by_error, by_time))


def estimated_rounds(m, max_error, on_ratios, min_time_scale=1.0):
    """Rounds measurement `m` would take asking `max_error` after min_time_scale times the rule's
    minimum GPU time per call; the wall-time cap is kept as measured."""
    rule, calls = m["rule"], m["calls"]
    seconds = min(c["copies"] * c["median_us"] * 1e-6 for c in calls)
    min_seconds = rule["min_seconds"] * min_time_scale
    own = max(rounds_for(c["spread_pct"], rule, max_error, min_seconds, seconds) for c in calls)
    if on_ratios and len(calls) > 1:
        own = min(own, max(rounds_for(c["ratio_spread_pct"], rule, max_error, min_seconds, seconds)
                           for c in calls[1:]))
    return own if m["reason"] != "out_of_time" else min(own, calls[0]["samples"])


def read_log(path):
    """The measurements by rule name, and the trials' steps by the rule they were timed by."""
    groups, trials, last_rule = defaultdict(list), defaultdict(list), "none"
    try:
        with open(path) as f:
            for number, line in enumerate(f, 1):
                if line.strip():
                    m = json.loads(line)
                    if "trial_steps" in m:
                        # A trial's steps follow its measurement's line: the rule it was timed by.
                        trials[last_rule].append(m["trial_steps"])
                    else:
                        last_rule = rule_name(m["rule"])
                        groups[last_rule].append(m)
    except OSError as e:
        sys.exit("%s: %s; give the file CL2_TIMING_LOG named" % (path, e.strerror))
    except (ValueError, KeyError) as e:
        sys.exit("%s line %d: not a timing-log record (%s); give the file CL2_TIMING_LOG named" % (path, number, e))
    if not groups:
        sys.exit("%s: no measurements; was CL2_TIMING_LOG set for the run?" % path)
    return groups, trials


def print_trial_steps(trials):
    steps = ["prepare_s", "verify_s", "measure_s", "verify_again_s", "trace_s"]
    print()
    print("Trials' steps in the worker, by the rule each was timed by (ms per trial, mean; s in all):")
    print()
    print("| rule | trials | " + " | ".join(step[:-2].replace("_", " ") for step in steps) + " | sum |")
    print("| :--- | ---: |" + " ---: |" * (len(steps) + 1))
    for name, ts in sorted(trials.items()):
        totals = [sum(t[step] for t in ts) for step in steps]
        cells = ["%.2f ms; %.1f s" % (1e3 * total / len(ts), total) for total in totals + [sum(totals)]]
        print("| %s | %d | %s |" % (name, len(ts), " | ".join(cells)))


def main(path):
    groups, trials = read_log(path)
    print("| rule | measurements | rounds (mean) | settled / capped / out of time | setup s (mean) | of it warm-up s (mean) "
          "| wall s (total) |")
    print("| :--- | ---: | ---: | :--- | ---: | ---: | ---: |")
    for name, ms in sorted(groups.items()):
        reasons = defaultdict(int)
        for m in ms:
            reasons[m["reason"]] += 1
        # Logs written before the warm-up was timed apart from the graphs have no warm_up_s.
        warm_ups = [m["warm_up_s"] for m in ms if "warm_up_s" in m]
        warm_up = "%.4f" % (sum(warm_ups) / len(warm_ups)) if len(warm_ups) == len(ms) else "-"
        print("| %s | %d | %.1f | %d / %d / %d | %.4f | %s | %.1f |" % (
            name, len(ms), sum(m["calls"][0]["samples"] for m in ms) / len(ms), reasons["settled"],
            reasons["capped"], reasons["out_of_time"], sum(m["setup_s"] for m in ms) / len(ms), warm_up,
            sum(m["wall_s"] for m in ms)))
    print()
    print("Estimated under other rules (rounds mean / wall s total):")
    print()
    # (error scale, on ratios, minimum time scale) of each column
    columns = [(scale, ratios, 1.0) for ratios in (False, True) for scale in ERROR_SCALES]
    columns += [(1.0, True, time_scale) for time_scale in MIN_TIME_SCALES]
    header = ["rule"] + ["%gx error%s%s" % (scale, ", or ratios" if ratios else "",
                                            ", %gx min time" % time_scale if time_scale != 1.0 else "")
                         for scale, ratios, time_scale in columns]
    print("| " + " | ".join(header) + " |")
    print("| :--- " + "| ---: " * (len(header) - 1) + "|")
    for name, ms in sorted(groups.items()):
        cells = [name]
        for scale, ratios, time_scale in columns:
            rounds = wall = 0.0
            for m in ms:
                n = estimated_rounds(m, m["rule"]["max_error"] * scale, ratios, time_scale)
                per_round = (m["wall_s"] - m["setup_s"]) / max(m["calls"][0]["samples"], 1)
                rounds += n
                wall += m["setup_s"] + per_round * n
            cells.append("%.1f / %.1f" % (rounds / len(ms), wall))
        print("| " + " | ".join(cells) + " |")
    if trials:
        print_trial_steps(trials)


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    main(sys.argv[1])
