#!/usr/bin/env python3
"""Writes xwave.space.json: on one-wave shapes of grid-125 that trail cuBLASLt-autotune on an H100
(12288x64x1024 0.86x, 1024x1024x12288 0.87x, 12288x256x4096 0.92x at 956f2d5, whose tiles fill at
most one wave of the SMs and read their operands through the L2), every tile 64 to 256 rows by 32 to
256 columns, swapped or not, one or two cooperative consumers, in clusters of up to 4 CTAs along
either side, one CTA per tile, one k atom per stage: what the family can reach there, with the planning rules that pick
tiles and clusters left out (cuBLASLt runs 192x32 tiles in 2-CTA clusters at 12288x64x1024, 128x64 in
2-CTA clusters at 1024x1024x12288). Written from the space of 956f2d5."""
import pathlib, sys

here = pathlib.Path(__file__).resolve().parent
sys.path.insert(0, str(here.parents[2] / "scripts"))
from derive_space import derive

derive(here / "xwave.space.json", "xwave",
       "One wave: tiles 64-256 by 32-256, swapped or not, one or two cooperative consumers, clusters up to 4",
       {"SWAP_AB": [0, 1], "CONSUMERS": [1, 2], "ACC_CHAINS": [1], "WG_KSPLIT": [0], "CLUSTER_M": [1, 2, 4],
        "CLUSTER_N": [1, 2, 4], "EPI_TMA": [1], "STREAM_K": [0], "PERSISTENT": [0], "SPLIT_K": [1],
        "SPLIT_DSMEM": [0], "KB_PAIR": [0], "BM": [64, 128, 192, 256], "BN": [32, 64, 96, 128, 192, 256],
        "PINGPONG": [0], "RASTER": [1], "PDL": [0]},
       drop_planning=("SWAP_AB == 0 || M < N", "BN >= 32 || BN >= KN", "TILES_M >= CLUSTER_M",
                      "!(SKINNY_DRAM && SKINNY_SIDE > 32"),
       keep_calibration=False)

# sm90o: the committed plan, plus swapped tiles where M >= N on one-wave shapes, wherever the swap
# puts the wider side of the tile on wgmma's N (BN > BM): xwave's fastest at 12288x64x1024 (64x96
# swapped: 128 tiles for 132 SMs where 128x64 tiles make 96) and at 1024x1024x12288 (64x128
# swapped, m64n128, against 128x64 in two m64n64 slices) were swapped tiles of this kind.
derive(here / "sm90o.space.json", "sm90o",
       rewrite={"SWAP_AB == 0 || M < N || (M > N && PINGPONG == 1 && LONG_TILE_LOOP)":
                "SWAP_AB == 0 || M < N || (M > N && PINGPONG == 1 && LONG_TILE_LOOP)"
                " || (PERSISTENT == 0 && WORK <= RESIDENT_CLUSTERS && BN > BM)"})
