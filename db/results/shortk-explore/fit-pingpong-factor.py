#!/usr/bin/env python3
"""Fits configs/spaces/sm90.json's factor for ping-pong tiles on short K with many tiles
("PINGPONG == 1 && LONG_TILE_LOOP && K < 2048") alone, the other factors held, from this folder's
H100 trials: per K = 1024 shape, the factor that makes the model's cost ratio of the fastest
ping-pong variant storing in chunks to the fastest cooperative one equal to their measured ratio
(scripts/model_fit.py). Unpack the databases.tar.xz of h100-explore, h100-sm90s-ab and
h100-sm90t-ab (the runs before the fit) into DIR first; run from the repository root with the
factor set to 1.0 in the space file and the CLI rebuilt (with the fitted factor in place it prints
about 1.000):
    python3 db/results/shortk-explore/fit-pingpong-factor.py DIR [CLI]"""
import sys
from pathlib import Path

here = Path(__file__).resolve().parent
sys.path.insert(0, str(here.parents[2] / "scripts"))
from model_fit import fail, fastest_of, fit

if len(sys.argv) < 2:
    fail("give the folder the h100-*/databases.tar.xz files were unpacked into")
dbs = sorted(Path(sys.argv[1]).glob("*.sqlite"))
if not dbs:
    fail(f"{sys.argv[1]}: no .sqlite files; unpack this folder's h100-*/databases.tar.xz there")
cli = sys.argv[2] if len(sys.argv) > 2 else "build/cuda-l2-tune"
pingpong = fastest_of(dbs, lambda p: p.get("PINGPONG") == 1 and p["EPI_TMA"] == 1)
cooperative = fastest_of(dbs, lambda p: p.get("PINGPONG") == 0)
short_k = lambda entries: {s: e for s, e in entries.items() if s[2] == 1024 and s[0] * s[1] >= 1024 * 12288}
fit(cli, short_k(pingpong), short_k(cooperative),
    lambda p: f"{'ping-pong' if p['PINGPONG'] else 'cooperative'} {p['BM']}x{p['BN']} c{p['CLUSTER_M']}x{p['CLUSTER_N']}")
