"""Exploration families derived from a committed space file, for experiments under db/results/:
the same template, cost model and correctness rules, with parameter lists narrowed to the question
asked and the planning rules that would hide its answer dropped or rewritten. Imported by the
experiments' make-space scripts; the file written is a `tune --space-file` argument (its template
path is relative to it)."""
import copy
import json
import os
import pathlib

REPOSITORY = pathlib.Path(__file__).resolve().parent.parent


def derive(out_path, name, description=None, params=None, drop_planning=(), rewrite=None, rules=(),
           factors=(), base="configs/spaces/sm90.json", keep_calibration=True):
    """Writes the family NAME to OUT_PATH from BASE (relative to the repository): PARAMS replace
    those lists; planning rules starting with any of DROP_PLANNING are left out; REWRITE maps an
    exact text to its replacement in every rule and must match at least one; RULES are added as
    planning rules; FACTORS ([rule, factor] pairs) are added to the calibration's; KEEP_CALIBRATION=False
    ranks by the hand-set model alone."""
    out_path = pathlib.Path(out_path)
    space = copy.deepcopy(json.loads((REPOSITORY / base).read_text()))
    space["family"] = name
    if description:
        space["description"] = description
    # A committed space names its template from the repository's root; a space file from its own folder.
    space["template"] = os.path.relpath(REPOSITORY / space["template"], out_path.resolve().parent)
    space["params"].update(params or {})
    space["constraints"] = [c for c in space["constraints"]
                            if not (c.get("planning") and c["rule"].startswith(tuple(drop_planning)))]
    for old, new in (rewrite or {}).items():
        matching = [c for c in space["constraints"] if old in c["rule"]]
        if not matching:
            raise SystemExit(f"derive_space: no rule of {base} holds {old!r}")
        for c in matching:
            c["rule"] = c["rule"].replace(old, new)
    space["constraints"] += [{"rule": r, "why": "exploration", "planning": True} for r in rules]
    if factors:
        space["calibration"]["factors"] += [list(f) for f in factors]
    if not keep_calibration:
        space.pop("calibration", None)
    out_path.write_text(json.dumps(space, indent=1) + "\n")
