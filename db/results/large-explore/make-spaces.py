#!/usr/bin/env python3
"""Writes the exploration family of this folder from configs/spaces/sm90.json: the same template,
model and correctness rules, with the parameter lists cut to the large-shape question (README.md
here) and the planning rules that would hide the answer dropped."""
import pathlib, sys

here = pathlib.Path(__file__).resolve().parent
sys.path.insert(0, str(here.parents[2] / "scripts"))
from derive_space import derive

# Narrow TMA-store chunks (tiles 144, 160, 176 wide: cuBLAS's on these shapes), whole-tile staging
# on long K and 256-row cooperative tiles wider than 128 are what the question is about.
DROPPED = ("EPI_TMA == 0 || EPI_COLS == 64", "EPI_TMA < 2 || (PERSISTENT == 1", "PINGPONG == 1 || CONSUMERS == 1 ||")


# What every family here holds fixed: two consumers, one accumulator chain, clusters of up to 2x2,
# TMA stores, persistent unsplit grids of K-major (unswapped, unpaired) tiles.
LARGE = {"SWAP_AB": [0], "CONSUMERS": [2], "ACC_CHAINS": [1], "WG_KSPLIT": [0], "CLUSTER_M": [1, 2],
         "CLUSTER_N": [1, 2], "EPI_TMA": [1, 2], "STREAM_K": [0], "PERSISTENT": [1], "SPLIT_K": [1],
         "SPLIT_DSMEM": [0], "KB_PAIR": [0]}


def family(name, description, params, rules, acc_regs=128):
    # How many accumulators each of two consumers may hold (sm90 allows 192; ptxas decides the rest);
    # ranked by the hand-set model, since every variant is timed anyway.
    derive(here / f"{name}.space.json", name, description, params, drop_planning=DROPPED,
           rewrite={"WG_REGS <= 192": f"WG_REGS <= (CONSUMERS == 2 ? {acc_regs} : 192)"}, rules=rules,
           keep_calibration=False)


family("xlarge", "Large shapes: persistent two-consumer tiles 128 rows by 128 to 256 columns (and 256x128), "
       "cooperative or ping-pong (64- and 128-row whole tiles), alone or in clusters of 2 or 4 that "
       "multicast A and B, TMA stores in chunks or whole tiles, the two deepest rings that fit",
       {**LARGE, "BM": [64, 128, 256], "BN": [128, 144, 160, 176, 192, 208, 224, 256], "PINGPONG": [0, 1],
        "RASTER": [8], "STAGES": list(range(3, 9))},
       ["STAGES + 1 >= FIT_STAGES", "BM > 64 || PINGPONG == 1"])
family("xbig", "Large shapes: 256-row cooperative tiles 144 to 208 columns wide, each consumer holding "
       "128 rows (up to 208 accumulator registers of its 232), alone or in clusters of 2 or 4",
       {**LARGE, "BM": [256], "BN": [144, 160, 176, 192, 208], "PINGPONG": [0], "RASTER": [1, 8],
        "STAGES": list(range(2, 6))},
       ["STAGES + 1 >= FIT_STAGES"], acc_regs=208)
family("xpp", "Large shapes: ping-pong consumers each holding a whole 128-row tile 128 to 192 columns wide "
       "(up to 192 accumulator registers of 232: cuBLAS's 128x144 to 128x176 tiles), alone or in "
       "clusters of 2 or 4",
       {**LARGE, "BM": [128], "BN": [128, 144, 160, 176, 192], "PINGPONG": [1], "RASTER": [1, 8],
        "STAGES": list(range(3, 9))},
       ["STAGES + 1 >= FIT_STAGES"], acc_regs=192)
