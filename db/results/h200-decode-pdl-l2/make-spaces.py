#!/usr/bin/env python3
"""Writes sm90l1.space.json and sm90l2.space.json: the committed plan, except that under --l2 rotate
each kernel that streams a weight matrix once from DRAM (RING_STREAM: M or N up to 32 on one tile
row or column) requests 1 (PDL=2) or 2 (PDL=3) more rings' worth of its weights into the L2 before
it waits for the previous grid, in place of PDL=1's one ring; the same variants otherwise, with the
same twins without PDL. Why: on the H200 the M <= 16 decode winners read 90 MB weights at
3.83-3.96 TB/s (issue 8 asks 4.0) where a read-only kernel reads 4.45 over 1 GiB, and PDL's one
ring (8-14 MB over the grid) may cover only part of the previous grid's tail and this grid's
release from the wait."""
import pathlib, sys

here = pathlib.Path(__file__).resolve().parent
sys.path.insert(0, str(here.parents[2] / "scripts"))
from derive_space import derive

for rings in (1, 2):
    derive(here / f"sm90l{rings}.space.json", f"sm90l{rings}",
           rewrite={"PDL <= 1": f"PDL <= 1 || (RING_STREAM && PDL == {1 + rings})",
                    "(PDL >= 1) == L2_ROTATE": f"(PDL >= 1) == L2_ROTATE && (PDL != 1 || !RING_STREAM)"})
