#!/usr/bin/env python3
"""Writes sm90r.space.json: the committed plan, except that under --l2 rotate a kernel that streams
a weight matrix once from DRAM (RING_STREAM) and overlaps the previous call (PDL = 1) sizes its ring
for one more CTA per SM than its own grid needs, so that the next call's CTAs can be resident
beside it and request their first ring while its last loads drain. Why: with one CTA per SM
(the M <= 16 winners fill shared memory with their ring), a dependent grid's CTA starts on an SM
only once the primary's CTA there has exited, so each call boundary leaves DRAM idle for a
launch and a DRAM round trip; the 90 MB weights then read at 88% of the read-only kernel's
rate on the H200 (issue 8 asks 90%) and 100-157 MB ones at 91-93%, as a fixed 1.5-2 us a call
would give.

Also sm90rl: the same rings, and one more ring's worth of the CTA's weights requested into the L2
before the wait (PDL = 2 in place of 1, as ../h200-decode-pdl-l2/'s sm90l1). Each alone left the
call boundary as it was on an H100: rings with room for the next call's CTAs let them start early
but request only a (smaller) ring before they wait, and prefetching into the L2 cannot start before
the CTA that issues it is resident, which without that room is when this call's CTA has exited.
Together, the next call's CTAs start while this call drains its last ring (launch_dependents comes
once every load is issued) and keep DRAM busy with two rings' worth each."""
import json, pathlib, sys

here = pathlib.Path(__file__).resolve().parent
sys.path.insert(0, str(here.parents[2] / "scripts"))
from derive_space import derive



def write(name, overlapped_pdl, rewrite=None):
    """NAME: rings sized for one more CTA per SM wherever a weight-streaming kernel runs at PDL =
    OVERLAPPED_PDL (a Python expression of PDL's value in the derived rule's text)."""
    out = here / f"{name}.space.json"
    derive(out, name, rewrite=rewrite)
    space = json.loads(out.read_text())
    old = "RING_STREAM ? ceil_div(WORK * CLUSTER, NUM_SMS) : 1"
    derived = dict(space["derived"])
    assert derived["STREAM_OCC"] == old, derived["STREAM_OCC"]
    for entry in space["derived"]:
        if entry[0] == "STREAM_OCC":
            entry[1] = f"RING_STREAM ? ceil_div(WORK * CLUSTER, NUM_SMS) + ({overlapped_pdl} ? 1 : 0) : 1"
    out.write_text(json.dumps(space, indent=1) + "\n")


write("sm90r", "PDL == 1")
# The rewrite of ../h200-decode-pdl-l2/make-spaces.py for one more ring into the L2.
write("sm90rl", "PDL == 2", rewrite={"PDL <= 1": "PDL <= 1 || (RING_STREAM && PDL == 2)",
                                     "(PDL >= 1) == L2_ROTATE": "(PDL >= 1) == L2_ROTATE && (PDL != 1 || !RING_STREAM)"})
