#!/usr/bin/env python3
"""Writes sm90q.space.json: the committed plan with programmatic dependent launch off under
--l2 rotate (PDL=0 where the committed space plans PDL=1), so that an A/B of sm90 against sm90q
under --l2 rotate times the same variants launched with and without the overlap. Why: on the H200
at 956f2d5 the decode winners at 32x5120x5120 and 64x5120x5120 (PDL=1) tuned to 17.6 us where the
winners without PDL of e38e6f3 had tuned to 16.1 and 16.9 us, and 64x5120x5120 and 128x5120x5120
benched 7-9% slower than their own tuning said. Written from the space of 956f2d5."""
import pathlib, sys

here = pathlib.Path(__file__).resolve().parent
sys.path.insert(0, str(here.parents[2] / "scripts"))
from derive_space import derive

derive(here / "sm90q.space.json", "sm90q", rewrite={"PDL == L2_ROTATE": "PDL == 0"})

