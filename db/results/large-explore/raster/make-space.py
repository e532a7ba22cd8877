#!/usr/bin/env python3
"""Writes sm90r.space.json: configs/spaces/sm90.json as it stands, as a family named sm90r, with one
planning rule changed: the grouped raster may take the first group at or above the grid's tile rows
(RASTER < 2 * ceil_div(TILES_M, CLUSTER_M)), which walks the tiles column-major, where the committed
rule admits only groups smaller than the tile rows (README.md here says why)."""
import json, pathlib

here = pathlib.Path(__file__).parent
space = json.loads((here / "../../../../configs/spaces/sm90.json").read_text())
space["family"] = "sm90r"
space["template"] = "../../../../templates/sm90_hgemm.cuh"
OLD, NEW = "RASTER < ceil_div(TILES_M, CLUSTER_M)", "RASTER < 2 * ceil_div(TILES_M, CLUSTER_M)"
changed = [c for c in space["constraints"] if OLD in c["rule"]]
assert len(changed) == 1, f"expected one rule holding {OLD!r}, found {len(changed)}"
changed[0]["rule"] = changed[0]["rule"].replace(OLD, NEW)
(here / "sm90r.space.json").write_text(json.dumps(space, indent=1) + "\n")
