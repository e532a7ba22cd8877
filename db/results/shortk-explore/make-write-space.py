#!/usr/bin/env python3
"""Writes xwrite.space.json: on the K = 256 shapes of grid-125 with many tiles (4096 and 12288 rows
and columns), where writing C takes most of the time (4096x12288x256: 100 MB written against 8 MB
read), every store path (direct, TMA chunks, whole-tile staging) on cooperative and ping-pong
tiles 128 or 256 rows by 128 to 256 columns, swapped or not, alone or in 2-CTA clusters: the plan's
store rules left out (README.md here, part 6). Written from the space of ef148a2."""
import pathlib, sys

here = pathlib.Path(__file__).resolve().parent
sys.path.insert(0, str(here.parents[2] / "scripts"))
from derive_space import derive

derive(here / "xwrite.space.json", "xwrite",
       "Short K, write-bound: every store path on cooperative and ping-pong tiles 128-256 by 128-256",
       {"SWAP_AB": [0, 1], "CONSUMERS": [1, 2], "ACC_CHAINS": [1], "WG_KSPLIT": [0], "CLUSTER_M": [1, 2],
        "CLUSTER_N": [1, 2], "EPI_TMA": [0, 1, 2], "STREAM_K": [0], "PERSISTENT": [1], "SPLIT_K": [1],
        "SPLIT_DSMEM": [0], "KB_PAIR": [0], "BM": [128, 256], "BN": [128, 192, 256], "PINGPONG": [0, 1],
        "RASTER": [8]},
       drop_planning=("EPI_TMA == 0 || EPI_COLS == 64", "PINGPONG == 0 || EPI_TMA < 2", "EPI_TMA < 2 ||"),
       keep_calibration=False)
