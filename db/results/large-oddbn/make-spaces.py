#!/usr/bin/env python3
"""Writes xodd.space.json: sm90 (configs/spaces/sm90.json) narrowed to tiles 128 rows by 136, 152,
168 or 184 columns (odd multiples of 8, which sm90's list skips), cooperative or ping-pong, in
clusters that share A (CLUSTER_N; a B share of such a tile is not a whole number of 8-row swizzle
atoms, so no CLUSTER_M), direct or TMA stores (8-column chunks: these widths have no wider divisor),
swapped or not. Why: on the 132 SMs of an H100 or H200 such widths fill the last wave of several
large.json shapes better than sm90's widths (README.md here)."""
import pathlib
import sys

here = pathlib.Path(__file__).resolve().parent
sys.path.insert(0, str(here.parents[2] / "scripts"))
from derive_space import derive  # noqa: E402

derive(here / "xodd.space.json", "xodd",
       "Large shapes: persistent two-consumer tiles 128 rows by 136-184 columns (odd multiples of 8), "
       "cooperative or ping-pong, alone or in 2-CTA clusters sharing A, direct or TMA stores",
       {"BM": [128], "BN": [136, 152, 168, 184], "PINGPONG": [0, 1], "CONSUMERS": [2], "ACC_CHAINS": [1],
        "WG_KSPLIT": [0], "CLUSTER_M": [1], "CLUSTER_N": [1, 2], "EPI_TMA": [0, 1], "STREAM_K": [0],
        "SWAP_AB": [0, 1], "PERSISTENT": [1], "SPLIT_K": [1], "SPLIT_DSMEM": [0], "KB_PAIR": [0],
        "RASTER": [8], "PDL": [0]},
       keep_calibration=False)
print("wrote", here / "xodd.space.json")
