#!/usr/bin/env python3
"""Whether a template change left kernels' machine code alone: compiles the same configurations
of a family with two builds of the CLI (`tune --compile-only --pin`, each into a fresh kernel
cache, no GPU) and compares their SASS (cuobjdump -sass, file names left out).

    sass_identity.py OLD_CLI NEW_CLI [EXPORT.json ...] [--family sm90|sm80] [--per-table N]

The configurations: N winners of the family drawn (the same draw every run) from each export
given (`export --format json`, e.g. db/results/h200-decode.json), each at its own shape, plus for
sm90 samples of the features winners seldom show (stream-K, WG_KSPLIT with split-K, split-K
through DSMEM).
A template's text is part of every kernel's identity (its source hash), so any change makes a
database's winners stale for the runtime; this says whether the kernels themselves changed, so
that the tables measured before it still describe them. Exit status 1 where any differ."""
import argparse
import hashlib
import json
import os
import random
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))


def feature_samples():
    """Shapes and parameters of configurations few winners have, each valid at its shape."""
    def params(bm, bn, stages, consumers, chains, ksplit, split, stream_k=0, pair=0, dsmem=0, cm=1, cn=1):
        return {"BM": bm, "BN": bn, "STAGES": stages, "CONSUMERS": consumers, "ACC_CHAINS": chains, "PINGPONG": 0,
                "WG_KSPLIT": ksplit, "CLUSTER_M": cm, "CLUSTER_N": cn, "EPI_TMA": 0,
                "PERSISTENT": 0 if stream_k or dsmem else 1, "SPLIT_K": split, "STREAM_K": stream_k, "SWAP_AB": 0,
                "KB_PAIR": pair, "SPLIT_DSMEM": dsmem, "PDL": 0, "RASTER": 8}
    return [((4096, 4096, 4096), dict(params(128, 256, 3, 2, 1, 0, 1, stream_k=1), EPI_TMA=2)),
            ((256, 256, 8192), params(64, 48, 14, 2, 1, 1, 3, cm=2, cn=2)),
            ((4096, 4096, 4096), params(64, 64, 6, 1, 1, 0, 8, pair=1, dsmem=1)),
            ((1024, 1024, 8192), params(64, 64, 6, 2, 2, 1, 1, stream_k=1))]


def table_samples(path, family, count):
    kernels = [k for device in json.load(open(path))["devices"] for k in device["kernels"]
               if k.get("family") == family and k.get("layout", "tn") == "tn" and k.get("accum", "f32") == "f32"]
    random.Random(1).shuffle(kernels)
    return [((k["m"], k["n"], k["k"]), k["config"]["params"]) for k in kernels[:count]]


def cuobjdump():
    found = subprocess.run([os.path.join(HERE, "find-cuobjdump.sh")], capture_output=True, text=True).stdout.strip()
    if not found:
        sys.exit("sass_identity.py: no cuobjdump; scripts/setup.sh installs nvidia-cuda-cuobjdump")
    return found


def sass_digest(tool, family, shape, params, work, disassembler):
    """The SASS digest of the one kernel `tool` compiles for the pinned configuration, or the
    reason there is none."""
    os.makedirs(work)
    shapes = os.path.join(work, "shape.json")
    json.dump([list(shape)], open(shapes, "w"))
    pin = ",".join(f"{name}={value}" for name, value in sorted(params.items()))
    cache = os.path.join(work, "cache")
    run = subprocess.run([tool, "tune", "--compile-only", "--arch", "sm_90a", "--family", family, "--shapes", shapes,
                          "--pin", pin, "--cache-dir", cache], capture_output=True, text=True, cwd=work)
    cubins = [os.path.join(d, f) for d, _, files in os.walk(cache) for f in files if f.endswith(".cubin")]
    if len(cubins) != 1:
        return None, (run.stderr.strip().splitlines() or ["no cubin"])[-1]
    dump = subprocess.run([disassembler, "-sass", cubins[0]], capture_output=True, text=True)
    if dump.returncode != 0 or "/*0000*/" not in dump.stdout:  # e.g. no nvdisasm beside cuobjdump
        return None, "cuobjdump -sass printed no code: " + (dump.stderr.strip().splitlines() or [""])[-1]
    code = [line for line in dump.stdout.splitlines() if ".cubin" not in line and "Fatbin" not in line]
    return hashlib.sha256("\n".join(code).encode()).hexdigest()[:16], ""


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("old_cli")
    parser.add_argument("new_cli")
    parser.add_argument("exports", nargs="*")
    parser.add_argument("--family", choices=["sm90", "sm80"], default="sm90")
    parser.add_argument("--per-table", type=int, default=8)
    args = parser.parse_args()
    args.old_cli, args.new_cli = os.path.abspath(args.old_cli), os.path.abspath(args.new_cli)
    for cli in (args.old_cli, args.new_cli):
        if not os.access(cli, os.X_OK):
            sys.exit(f"sass_identity.py: {cli} is not an executable; pass two builds of cuda-l2-tune")
    for path in args.exports:
        try:
            json.load(open(path))["devices"]
        except (OSError, ValueError, KeyError, TypeError) as e:
            sys.exit(f"sass_identity.py: {path}: not an export ({e}); pass files of export --format json")
    disassembler = cuobjdump()
    configs = [c for path in args.exports for c in table_samples(path, args.family, args.per_table)]
    if args.family == "sm90":
        configs += feature_samples()
    identical = failed = 0
    with tempfile.TemporaryDirectory() as work:
        for i, (shape, params) in enumerate(configs):
            label = "x".join(map(str, shape)) + " " + " ".join(f"{k}={v}" for k, v in sorted(params.items()))
            old, why_old = sass_digest(args.old_cli, args.family, shape, params, os.path.join(work, f"old-{i}"),
                                       disassembler)
            new, why_new = sass_digest(args.new_cli, args.family, shape, params, os.path.join(work, f"new-{i}"),
                                       disassembler)
            if old is None or new is None:
                failed += 1
                print(f"{label}: not compiled ({why_old or why_new})")
            else:
                identical += old == new
                print(f"{label}: {'identical' if old == new else 'DIFFERENT'}", flush=True)
    compared = len(configs) - failed
    print(f"{identical} of {compared} configurations compiled by both builds have identical SASS"
          + (f"; {failed} did not compile" if failed else ""))
    return 0 if identical == compared and compared > 0 else 1


if __name__ == "__main__":
    sys.exit(main())
