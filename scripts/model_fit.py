"""Fits one cost-model factor of a committed space file from measured trials, for the experiments
under db/results/: per shape, the factor that makes the model's cost ratio of the fastest variant
of one kind to the fastest of another equal to their measured ratio (each fastest by its speedup
over cuBLASLt-autotune timed beside it), and their geomean (a least-squares fit in log space of one
factor, the others held). Imported by the experiments' fit scripts."""
import json
import math
import re
import subprocess
import tempfile
from pathlib import Path

from results_db import fail, rows


def fastest(db, select):
    """{(m, n, k): (speedup, params)} of the verified trials in DB whose params SELECT accepts."""
    best = {}
    query = ("select t.m, t.n, t.k, t.reference_us / t.time_us, k.config_json from trials t"
             " join kernels k on k.id = t.kernel_id where t.status = 'ok'")
    for m, n, k, ratio, config in rows(db, query):
        params = json.loads(config)["params"]
        if select(params) and ((m, n, k) not in best or ratio > best[(m, n, k)][0]):
            best[(m, n, k)] = (ratio, params)
    return best


def fastest_of(dbs, select):
    """fastest() over several databases."""
    best = {}
    for db in dbs:
        for shape, entry in fastest(db, select).items():
            if shape not in best or entry[0] > best[shape][0]:
                best[shape] = entry
    return best


def model_cost(cli, shape, params, scratch):
    """The sm90 model's cost of one pinned variant at SHAPE (tune --compile-only --verbose)."""
    shapes = Path(scratch) / "shape.json"
    shapes.write_text(json.dumps([list(shape)]))
    pins = ",".join(f"{name}={value}" for name, value in params.items())
    out = subprocess.run([cli, "tune", "--compile-only", "--arch", "sm_90a", "--shapes", str(shapes), "--family", "sm90",
                          "--cache-dir", str(Path(scratch) / "cache"), "--verbose", "--pin", pins],
                         stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True).stdout
    found = re.search(r"^\s+([\d.]+) us", out, re.M)
    if not found:
        fail(f"{shape}: the model gave no cost for {pins}: {out.strip().splitlines()[-1] if out.strip() else 'no output'}")
    return float(found.group(1))


def fit(cli, kind, other, describe):
    """Prints, per shape both KIND and OTHER ({shape: (speedup, params)}) hold, the factor for KIND
    and returns their geomean; DESCRIBE(params) names a variant in the printout."""
    if not Path(cli).is_file():
        fail(f"{cli}: no such CLI; build it (scripts/build.sh) or give its path")
    logs = []
    with tempfile.TemporaryDirectory() as scratch:
        for shape in sorted(set(kind) & set(other)):
            (r_kind, p_kind), (r_other, p_other) = kind[shape], other[shape]
            c_kind, c_other = model_cost(cli, shape, p_kind, scratch), model_cost(cli, shape, p_other, scratch)
            factor = (r_other / r_kind) * c_other / c_kind  # measured t_kind / t_other = r_other / r_kind
            logs.append(math.log(factor))
            print(f"{'x'.join(map(str, shape))}: {describe(p_kind)} {r_kind:.3f}, {describe(p_other)} {r_other:.3f}; "
                  f"model {c_kind:.1f} / {c_other:.1f} us; factor {factor:.3f}")
    if not logs:
        fail("no shape has trials of both kinds")
    factor = math.exp(sum(logs) / len(logs))
    print(f"geomean factor {factor:.3f}")
    return factor
