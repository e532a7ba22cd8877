#!/usr/bin/env python3
"""Writes sm90m.space.json: the committed plan with swapped operands allowed where M > N too.
configs/spaces/sm90.json swaps only where M < N, to put the smaller side on the tile's flexible
(wgmma N, steps of 16) side; but where M > N the flexible side can be what divides M into whole
tiles (README.md here). Written from the space of e525b36: run at a later commit, the file differs
from the one measured (git has it)."""
import pathlib, sys

here = pathlib.Path(__file__).resolve().parent
sys.path.insert(0, str(here.parents[2] / "scripts"))
from derive_space import derive

derive(here / "sm90m.space.json", "sm90m", rewrite={"SWAP_AB == 0 || M < N": "SWAP_AB == 0 || M != N"})

# sm90m's swap only where it can change how whole tiles cover M: ping-pong tiles (128 rows, 128 to
# 192 columns in steps of 16) on long tile loops (LONG_TILE_LOOP: 4 tiles or more per CTA, K >= 1024).
derive(here / "sm90n.space.json", "sm90n",
       rewrite={"SWAP_AB == 0 || M < N": "SWAP_AB == 0 || M < N || (M > N && PINGPONG == 1 && LONG_TILE_LOOP)"})

# The plan as it was before 956f2d5 landed sm90n's rule, for the A/B the other way round (the
# committed plans first in each round): h100-sm90p-ab/.
derive(here / "sm90p.space.json", "sm90p",
       rewrite={"SWAP_AB == 0 || M < N || (M > N && PINGPONG == 1 && LONG_TILE_LOOP)": "SWAP_AB == 0 || M < N"})
