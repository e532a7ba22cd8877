#!/usr/bin/env python3
"""Writes sm90e.space.json: the committed plan with whole-tile staging (EPI_TMA=2) allowed on long
K where each CTA takes 4 tiles or more (LONG_TILE_LOOP). configs/spaces/sm90.json plans it only for
K <= 2048, while every variant of ../large-explore/ timed on the H200 found it faster than one chunk
at a time on long K too (8192^3: 0.977x -> 0.987x of cuBLASLt-autotune with the same tile; on an H100
2048x8192x8192's fastest, 128x144 cooperative with 5 stages, staged whole tiles). Written from the
space of 956f2d5: run at a later commit, the file differs from the one measured (git has it)."""
import pathlib, sys

here = pathlib.Path(__file__).resolve().parent
sys.path.insert(0, str(here.parents[2] / "scripts"))
from derive_space import derive

derive(here / "sm90e.space.json", "sm90e",
       rewrite={"EPI_TMA < 2 || (PERSISTENT == 1 && K <= 2048)": "EPI_TMA < 2 || (PERSISTENT == 1 && (K <= 2048 || LONG_TILE_LOOP))"})

# sm90d and sm90f (two chunk staging buffers, README.md here) need the template change of
# epi-bufs.patch, which adds them to this script: git apply epi-bufs.patch, then run it again.
