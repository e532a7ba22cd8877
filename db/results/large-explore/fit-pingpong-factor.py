#!/usr/bin/env python3
"""Fits configs/spaces/sm90.json's factor for wide ping-pong tiles ("PINGPONG == 1 && BM == 128 && BN >= 144")
alone, the other factors held, from this folder's H200 trials: per large shape, the factor that makes
the model's cost ratio of the fastest wide ping-pong variant (h200/xpp.sqlite) to the fastest
cooperative one (h200/xlarge.sqlite, h200/plan.sqlite; fastest by the ratio to cuBLASLt-autotune
measured beside it) equal to their measured ratio; prints each and their geomean (a least-squares
fit in log space of one factor). Run from the repository root with the factor set to 1.0 in the
space file and the CLI rebuilt (with the fitted factor in place it prints 1.000, a check of the fit):
    python3 db/results/large-explore/fit-pingpong-factor.py [CLI]"""
import json, math, re, sqlite3, subprocess, sys, tempfile
from pathlib import Path

here = Path(__file__).parent
cli = sys.argv[1] if len(sys.argv) > 1 else "build/cuda-l2-tune"


def fail(message):
    print(f"fit-pingpong-factor: {message}", file=sys.stderr)
    sys.exit(2)


if not Path(cli).is_file():
    fail(f"{cli}: no such CLI; build it (scripts/build.sh) or give its path")


def fastest(db, wide_pingpong):
    best = {}
    query = ("select t.m, t.n, t.k, t.reference_us / t.time_us, k.config_json from trials t"
             " join kernels k on k.id = t.kernel_id where t.status = 'ok'")
    try:
        with sqlite3.connect(f"file:{db}?mode=ro&immutable=1", uri=True) as c:
            rows = c.execute(query).fetchall()
    except sqlite3.Error as e:
        fail(f"{db}: cannot read it as a tuning database ({e}); run from a checkout that has this folder's "
             "h200/ databases")
    for m, n, k, ratio, config in rows:
        p = json.loads(config)["params"]
        wide = p["PINGPONG"] == 1 and p["BN"] >= 144
        if wide != wide_pingpong or (not wide_pingpong and p["PINGPONG"] == 1):
            continue
        if (m, n, k) not in best or ratio > best[(m, n, k)][0]:
            best[(m, n, k)] = (ratio, p)
    return best


def model_cost(shape, params, scratch):
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


wide = fastest(here / "h200/xpp.sqlite", True)
cooperative = {}
for db in ("h200/xlarge.sqlite", "h200/plan.sqlite"):
    for shape, best in fastest(here / db, False).items():
        if shape not in cooperative or best[0] > cooperative[shape][0]:
            cooperative[shape] = best
logs = []
with tempfile.TemporaryDirectory() as scratch:
    for shape in sorted(wide):
        (r_wide, p_wide), (r_coop, p_coop) = wide[shape], cooperative[shape]
        c_wide, c_coop = model_cost(shape, p_wide, scratch), model_cost(shape, p_coop, scratch)
        factor = (r_coop / r_wide) * c_coop / c_wide  # measured t_wide / t_coop = r_coop / r_wide
        logs.append(math.log(factor))
        print(f"{'x'.join(map(str, shape))}: wide {p_wide['BM']}x{p_wide['BN']} {r_wide:.3f}, cooperative "
              f"{p_coop['BM']}x{p_coop['BN']} {r_coop:.3f}; model {c_wide:.1f} / {c_coop:.1f} us; factor {factor:.3f}")
print(f"geomean factor {math.exp(sum(logs) / len(logs)):.3f}")
