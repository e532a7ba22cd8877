#!/usr/bin/env python3
"""Fits configs/spaces/sm90.json's factor for wide ping-pong tiles ("PINGPONG == 1 && BM == 128 && BN >= 144")
alone, the other factors held, from this folder's H200 trials: per large shape, the factor that makes
the model's cost ratio of the fastest wide ping-pong variant (h200/xpp.sqlite) to the fastest
cooperative one (h200/xlarge.sqlite, h200/plan.sqlite; fastest by the ratio to cuBLASLt-autotune
measured beside it) equal to their measured ratio; prints each and their geomean (a least-squares
fit in log space of one factor). Run from the repository root with the factor set to 1.0 in the
space file and the CLI rebuilt (with the fitted factor in place it prints 1.000, a check of the fit):
    python3 db/results/large-explore/fit-pingpong-factor.py [CLI]"""
import sys
from pathlib import Path

here = Path(__file__).resolve().parent
sys.path.insert(0, str(here.parents[2] / "scripts"))
from model_fit import fastest, fastest_of, fit

cli = sys.argv[1] if len(sys.argv) > 1 else "build/cuda-l2-tune"


def is_wide(p):
    return p["PINGPONG"] == 1 and p["BN"] >= 144


wide = fastest(here / "h200/xpp.sqlite", is_wide)
cooperative = fastest_of([here / "h200/xlarge.sqlite", here / "h200/plan.sqlite"], lambda p: p["PINGPONG"] == 0)
fit(cli, wide, cooperative, lambda p: f"{'wide' if is_wide(p) else 'cooperative'} {p['BM']}x{p['BN']}")
