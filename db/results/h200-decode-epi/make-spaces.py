#!/usr/bin/env python3
"""Writes the exploration families of this folder from configs/spaces/sm90.json: the same template,
model and correctness rules, with the parameter lists cut to one question each and the planning
rules that would hide the answer dropped (README.md here says which and why)."""
import copy, json, pathlib

here = pathlib.Path(__file__).parent
base = json.loads((here / "../../../configs/spaces/sm90.json").read_text())
DROPPED = ("EPI_TMA == 0 || EPI_COLS == 64", "KB_PAIR == 0 || (KB_PAIR == 1", "!(SKINNY_DRAM && SKINNY_SIDE > 32", "!WIDE_SKINNY",
           "RING_STREAM ? STREAM_OCC", "STREAM_OCC == 1 ||", "SPLIT_K == 1 || (TILES < NUM_SMS")


def family(name, description, params, rules):
    s = copy.deepcopy(base)
    s["family"], s["description"] = name, description
    s["template"] = "../../../templates/sm90_hgemm.cuh"
    s["params"].update(params)
    s["constraints"] = [c for c in s["constraints"] if not (c.get("planning") and c["rule"].startswith(DROPPED))]
    s["constraints"] += [{"rule": r, "why": "exploration", "planning": True} for r in rules]
    s.pop("calibration", None)  # rank by the hand-set model; every variant is timed anyway
    (here / f"{name}.space.json").write_text(json.dumps(s, indent=1) + "\n")


fixed = {"PINGPONG": [0], "STREAM_K": [0], "PERSISTENT": [0], "RASTER": [1]}
family("xwide", "M = 128 over wide weights: tiles that span the activations (128 rows, two consumers) "
       "and 80 to 128 weight columns, TMA stores in 64-, 32-, 16- or 8-column chunks, clusters along N",
       {**fixed, "SWAP_AB": [0], "BM": [128], "BN": [80, 88, 96, 104, 112, 128], "CONSUMERS": [2],
        "ACC_CHAINS": [1], "WG_KSPLIT": [0], "CLUSTER_M": [1], "CLUSTER_N": [1, 2, 4], "EPI_TMA": [0, 1, 2],
        "SPLIT_K": [1], "SPLIT_DSMEM": [0], "KB_PAIR": [0, 1], "STAGES": list(range(3, 9))},
       ["STAGES + 1 >= FIT_STAGES", "EPI_TMA < 2 || K <= 4096"])
family("xsq", "5120x5120 weights at M = 32, 64, 128: swapped 64-row weight tiles spanning the activations "
       "(80 CTAs, cuBLAS's grid there), alone, in clusters sharing the activations, or split in two "
       "through DSMEM; 1, 2 or 4 k atoms a stage; rings from 3 stages to the deepest",
       {**fixed, "SWAP_AB": [1], "BM": [64], "BN": [32, 64, 128], "CONSUMERS": [1, 2], "ACC_CHAINS": [1, 2],
        "WG_KSPLIT": [0, 1], "CLUSTER_M": [1, 2, 4], "CLUSTER_N": [1], "EPI_TMA": [0], "SPLIT_K": [1, 2],
        "SPLIT_DSMEM": [0, 1], "KB_PAIR": [0, 1, 2], "STAGES": [3, 4, 5, 6, 7, 8, 9, 10, 12, 13, 14, 16]},
       ["BN == KN", "SPLIT_K == 1 || SPLIT_DSMEM == 1", "ACC_CHAINS == 1 || BN < 64",
        "STAGES >= 3 && (STAGES + 2 >= FIT_STAGES || STAGES == 6 || STAGES == 8 || STAGES == 10)"])
