#!/usr/bin/env python3
"""Writes x128.space.json: sm90 cut to the kernels left untried at 128x5120x5120, the one decode
shape under issue 8's 0.95x of cuBLASLt-autotune on the H200 (0.928x at a851fb1). There the plan's
64x80 tiles in 2-CTA clusters that share each weight tile (18.4 us) beat the same tile alone by 15%
(21.7 us), so the kernel is bound by what the CTAs pull out of L2, and the activations' share of
that (every one of the 64 weight-column tiles reads all 128x5120 of them) is left unshared. Tried
here: the same 64-row tiles, 64 to 128 weight columns, sharing the weights in pairs and the
activations in pairs too (4-CTA clusters; cuBLAS runs 96x64 in clusters of 8 there), with TMA
stores of any chunk width (planned only on wide shapes) and 1 or 2 k atoms a stage; and 128-row
tiles spanning the activations with two consumers over 40 or 48 weight columns (128 and 107
CTAs), sharing the activations in clusters of 2 or 4. The deepest two rings that fit, PDL on (as
--l2 rotate plans; the plan's twin rule times the first variants without it)."""
import json
import pathlib
import sys

here = pathlib.Path(__file__).resolve().parent
sys.path.insert(0, str(here.parents[2] / "scripts"))
from derive_space import derive  # noqa: E402

derive(here / "x128.space.json", "x128", params={
    "SWAP_AB": [0], "BM": [64, 128], "BN": [40, 48, 64, 80, 96, 112, 128], "CONSUMERS": [1, 2],
    "ACC_CHAINS": [1, 2], "PINGPONG": [0], "WG_KSPLIT": [0], "CLUSTER_M": [1, 2], "CLUSTER_N": [1, 2, 4],
    "EPI_TMA": [0, 1], "STREAM_K": [0], "PERSISTENT": [0], "SPLIT_K": [1], "RASTER": [1],
    "KB_PAIR": [0, 1], "SPLIT_DSMEM": [0], "PDL": [0, 1], "STAGES": list(range(2, 17))},
    drop_planning=("EPI_TMA == 0 || EPI_COLS == 64", "KB_PAIR == 0 || (KB_PAIR == 1",
                   "!(SKINNY_DRAM && SKINNY_SIDE > 32", "!WIDE_SKINNY", "RING_STREAM ? STREAM_OCC",
                   "!NARROW_SKINNY"),
    rules=["(BM == 64 && BN >= 64 && CLUSTER_M == 2 && CONSUMERS == 1 && CLUSTER_N <= 2) || "
           "(BM == 128 && BN <= 48 && CLUSTER_M == 1 && CONSUMERS == 2)",
           "STAGES + 1 >= FIT_STAGES"])

# sm90r, the committed sm90 with the two planning changes this exploration suggested (narrow
# TMA-store chunks on every shape whose 65 to 128 activations stream weights from DRAM; under
# --l2 rotate there the deeper of two rings the model cannot tell apart), won the H200 A/B
# (README.md here) and is what configs/spaces/sm90.json plans since; the A/B's sm90r.space.json
# is this script as of 3e7fdf6.
