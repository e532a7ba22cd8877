#!/usr/bin/env python3
"""Writes xshort.space.json, and sm90s, sm90t, sm90v and sm90w.space.json (below). xshort: ping-pong
consumers each holding a whole 128-row tile 128 to 192 wide, alone or in clusters of 2 or 4, TMA
stores in chunks or whole tiles, the two deepest rings, on any K: configs/spaces/sm90.json plans
such tiles (and the narrow store chunks they need) only where each CTA takes 4 tiles or more with
K >= 2048 (LONG_TILE_LOOP), and this asks whether they pay on short K too (README.md here). xshort,
sm90s and sm90t were written from the space of dd10b86, sm90v and sm90w from that of a5ffa32, which
holds sm90t's changes: run at a later commit, the files differ from those measured (git has
those)."""
import pathlib, sys

here = pathlib.Path(__file__).resolve().parent
sys.path.insert(0, str(here.parents[2] / "scripts"))
from derive_space import derive

derive(here / "xshort.space.json", "xshort",
       "Short K: ping-pong consumers each holding a whole 128-row tile 128 to 192 wide, alone or in "
       "clusters of 2 or 4, TMA stores in chunks or whole tiles, the two deepest rings",
       {"SWAP_AB": [0], "CONSUMERS": [2], "ACC_CHAINS": [1], "WG_KSPLIT": [0], "CLUSTER_M": [1, 2],
        "CLUSTER_N": [1, 2], "EPI_TMA": [1, 2], "STREAM_K": [0], "PERSISTENT": [1], "SPLIT_K": [1],
        "SPLIT_DSMEM": [0], "KB_PAIR": [0], "BM": [128], "BN": [128, 144, 160, 176, 192], "PINGPONG": [1],
        "RASTER": [8]},
       drop_planning=("EPI_TMA == 0 || EPI_COLS == 64", "PINGPONG == 0 || ACC_CHAINS * BM / 64 * WG_REGS <= 128"),
       keep_calibration=False)

# The plan with those tiles and store chunks allowed wherever each CTA takes 4 tiles or more, on
# any K: the committed space with LONG_TILE_LOOP's K >= 2048 dropped from the two rules that use it.
derive(here / "sm90s.space.json", "sm90s",
       rewrite={"(BN >= 128 && LONG_TILE_LOOP)": "(BN >= 128 && ROUNDS >= 4)",
                "<= 128 || LONG_TILE_LOOP": "<= 128 || ROUNDS >= 4"})

# What the xshort and sm90s runs suggest (README.md here): those tiles and chunks where each CTA
# takes 4 tiles or more with K >= 1024, and ping-pong consumers storing in chunks, not whole tiles.
derive(here / "sm90t.space.json", "sm90t",
       rewrite={"(BN >= 128 && LONG_TILE_LOOP)": "(BN >= 128 && ROUNDS >= 4 && K >= 1024)",
                "<= 128 || LONG_TILE_LOOP": "<= 128 || (ROUNDS >= 4 && K >= 1024)"},
       rules=["PINGPONG == 0 || EPI_TMA < 2"])

# The committed plan (sm90t's changes landed) with ping-pong tiles on K = 1024 and many tiles ranked
# by a factor fitted to this folder's H100 trials (fit-pingpong-factor.py: 0.902): the model put
# cooperative tiles with whole-tile staging ahead of them where the ping-pong ones measured faster.
derive(here / "sm90v.space.json", "sm90v", factors=[["PINGPONG == 1 && LONG_TILE_LOOP && K < 2048", 0.902]])

# sm90v's factor on the tiles it was fitted to only (ping-pong 128 rows by 128 or more): on an H100
# sm90v's plans let 64x128 and 128x64 ping-pong tiles displace 4096x1024x1024's cooperative winner.
derive(here / "sm90w.space.json", "sm90w",
       factors=[["PINGPONG == 1 && LONG_TILE_LOOP && K < 2048 && BM == 128 && BN >= 128", 0.902]])
