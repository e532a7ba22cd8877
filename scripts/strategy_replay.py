#!/usr/bin/env python3
"""How many candidates the cost model's order needs, replayed from a wide search's own measurements
(no GPU): for a database tuned with many candidates a shape (scripts/strategy-check.sh's reference,
`--strategy race --max-candidates 128`: 512 a shape, timed in the model's order), the share of
shapes where the model's first N candidates hold the search's winner or one within TOLERANCE of it,
for each N of the list. A candidate's score is its time over the library call timed beside it, so
that raced and screened candidates compare; the winner, settled in the final round, is the mark
(the fastest brief race time of 512 is the luckiest, not the fastest kernel). Trials are stored
in the order they were timed, which is the plan's (cheapest first), so the first N trials of a
shape are the model's first N.
    python3 scripts/strategy_replay.py reference.sqlite [N ...]   (default N: 24 32 48 64 96 128 256)
With --plan PLAN_DB (repeatable), instead: another strategy's plan, as `tune --fake-gpu` with its
options writes it for the same shapes (each shape's planned variants, compiled but not timed),
scored by the reference's times of the same variants (matched by family and parameters): per plan,
the shapes whose plan holds the winner or one within TOLERANCE of it. A planned variant the
reference did not time counts as not within, so this is a floor. A parameter added to a family
since the reference was tuned matches where the plan has it at 0 (the output says which).
    python3 scripts/strategy_replay.py reference.sqlite --plan race20.sqlite --plan model24.sqlite
"""
import json
import math
import sqlite3
import sys

TOLERANCE = 0.02


def fail(message):
    print(f"strategy_replay: {message}", file=sys.stderr)
    sys.exit(2)


def read_rows(db, sql, wanted):
    try:
        with sqlite3.connect(f"file:{db}?mode=ro", uri=True) as c:
            return c.execute(sql).fetchall()
    except sqlite3.Error as e:
        fail(f"{db}: cannot read it as a tuning database ({e}); give {wanted}")


WIDE_SEARCH = "the database a wide search wrote"
NO_WINNERS = f"no shape has a winner among verified trials timed beside a library call; give {WIDE_SEARCH}"


def scores_in_plan_order(db):
    """Per shape: its candidates' scores in plan order, and the place of the winner's among them."""
    rows = read_rows(db, "select t.m, t.n, t.k, t.layout, t.accum, t.l2, t.time_us / t.reference_us, "
                         "w.kernel_id = t.kernel_id from trials t join winners w using "
                         "(device_id, m, n, k, layout, accum, l2) where t.status = 'ok' and t.time_us > 0 "
                         "and t.reference_us > 0 order by t.id", WIDE_SEARCH)
    shapes = {}
    for *problem, score, won in rows:
        scores, winner_at = shapes.setdefault(tuple(problem), ([], [None]))
        if won:
            winner_at[0] = len(scores)
        scores.append(score)
    return {problem: (scores, at[0]) for problem, (scores, at) in shapes.items() if at[0] is not None}


def variant_scores(db):
    """Per shape: each verified variant's score, keyed by its family and parameters, and the
    winner's score; and per family, the parameters its variants have."""
    rows = read_rows(db, "select t.m, t.n, t.k, t.layout, t.accum, t.l2, k.config_json, "
                         "t.time_us / t.reference_us, w.kernel_id = t.kernel_id from trials t "
                         "join kernels k on k.id = t.kernel_id join winners w using "
                         "(device_id, m, n, k, layout, accum, l2) where t.status = 'ok' and t.time_us > 0 "
                         "and t.reference_us > 0", WIDE_SEARCH)
    shapes, parameters = {}, {}
    for *problem, config, score, won in rows:
        scores, winner = shapes.setdefault(tuple(problem), ({}, [None]))
        variant = json.loads(config)
        scores[json.dumps(variant, sort_keys=True)] = score
        parameters.setdefault(variant["family"], set()).update(variant["params"])
        if won:
            winner[0] = score
    return ({problem: (scores, winner[0]) for problem, (scores, winner) in shapes.items() if winner[0] is not None},
            parameters)


def variant_key(config_json, known, dropped):
    """A planned variant's family and parameters as one text, as the reference's are keyed. With
    `known` (per family, the parameters the reference's variants have), a parameter added to the
    family since the reference was tuned is left out where it is 0 (the value that kept the variants
    as they were) and noted in `dropped`; at any other value the variant keeps it, and matches
    nothing the reference timed."""
    variant = json.loads(config_json)
    if variant["family"] in known:
        had = known[variant["family"]]
        for name in [n for n in variant["params"] if n not in had and variant["params"][n] == 0]:
            del variant["params"][name]
            dropped.add(name)
    return json.dumps(variant, sort_keys=True)


def planned_variants(db, known, dropped):
    """Per shape: the variants a plan's database holds (tune --fake-gpu: every planned variant),
    keyed against the reference's parameters (variant_key)."""
    rows = read_rows(db, "select t.m, t.n, t.k, t.layout, t.accum, t.l2, k.config_json from trials t "
                         "join kernels k on k.id = t.kernel_id", "the database tune --fake-gpu wrote")
    plans = {}
    for *problem, config in rows:
        plans.setdefault(tuple(problem), []).append(variant_key(config, known, dropped))
    return plans


def replay_plans(reference, plan_dbs):
    shapes, parameters = variant_scores(reference)
    if not shapes:
        fail(f"{reference}: {NO_WINNERS}")
    print(f"{len(shapes)} shapes of {reference}; each plan scored by the reference's times of its variants\n")
    for db in plan_dbs:
        dropped = set()
        plans = {p: v for p, v in planned_variants(db, parameters, dropped).items() if p in shapes}
        if dropped:
            print(f"{db}: {', '.join(sorted(dropped))} (not in the reference's variants) matched where 0")
        if not plans:
            fail(f"{db}: plans none of the reference's shapes; run tune --fake-gpu on the same shapes file")
        within, untimed, misses = 0, 0, []
        for problem, variants in sorted(plans.items()):
            scores, winner = shapes[problem]
            known = [scores[v] for v in variants if v in scores]
            untimed += len(variants) - len(known)
            ratio = min(1.0, winner / min(known)) if known else 0.0
            if ratio >= 1 - TOLERANCE:
                within += 1
            else:
                misses.append(f"{'x'.join(map(str, problem[:3]))} {ratio:.3f}")
        print(f"{db}: {within} of {len(plans)} shapes plan a variant within {TOLERANCE:.0%} of the winner "
              f"({untimed} planned variants the reference did not time); misses: {', '.join(misses) or 'none'}")


def main():
    if len(sys.argv) < 2:
        print(__doc__, file=sys.stderr)
        sys.exit(2)
    if "--plan" in sys.argv[2:]:
        args = sys.argv[2:]
        if len(args) % 2 or any(flag != "--plan" for flag in args[::2]):
            fail(f"{' '.join(args)}: give each plan's database after --plan, e.g. --plan race20.sqlite")
        replay_plans(sys.argv[1], args[1::2])
        return
    if not all(x.isdigit() and int(x) > 0 for x in sys.argv[2:]):
        fail(f"{' '.join(sys.argv[2:])}: each N must be a count of candidates above 0, e.g. 24 128")
    firsts = [int(x) for x in sys.argv[2:]] or [24, 32, 48, 64, 96, 128, 256]
    shapes = scores_in_plan_order(sys.argv[1])
    if not shapes:
        fail(f"{sys.argv[1]}: {NO_WINNERS}")
    most = max(len(scores) for scores, _ in shapes.values())
    print(f"{len(shapes)} shapes, up to {most} verified candidates each ({sys.argv[1]})\n")
    print(f"| model's first N | shapes with one within {TOLERANCE:.0%} of the winner | geomean winner / best of N |")
    print("| --: | --: | --: |")
    for n in firsts:
        within, log_sum = 0, 0.0
        for scores, at in shapes.values():
            ratio = min(1.0, scores[at] / min(scores[:n]))
            within += ratio >= 1 - TOLERANCE
            log_sum += math.log(ratio)
        print(f"| {n} | {within} of {len(shapes)} | {math.exp(log_sum / len(shapes)):.3f} |")
    print("\nThe winner's place in the model's order (counting from 1):")
    places = sorted((at + 1, "x".join(map(str, problem[:3]))) for problem, (_, at) in shapes.items())
    print(", ".join(f"{shape} {place}" for place, shape in places))

if __name__ == "__main__":
    main()
