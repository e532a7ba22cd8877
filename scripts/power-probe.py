#!/usr/bin/env python3
"""Steady-state time, SM clock, board power and energy per call of our winners against torch.matmul.

Where a GEMM runs the GPU at its power cap (on the H200, M = 128 decode shapes), the clock settles
lower after a few hundred milliseconds of back-to-back calls than in the short bursts the tuner
times, and a kernel that spends less energy per call keeps a higher clock. This runs each variant
and torch.matmul (cuBLAS) back to back over rotating weight copies (from DRAM, as --l2 rotate) in
alternating phases of 0.4 s warm-up and 1 s measured, twice, with nvidia-smi sampling the board
every 20 ms, and prints per phase: µs per call (CUDA events), mean power, mean SM clock, mJ per call.

    PYTHONPATH=python CL2_LIBRARY=build/libcl2.so \\
      scripts/power-probe.py OUT.txt M N K LABEL=DB [LABEL=DB ...]

Each DB is a tuning database whose winner for the shape is the variant to run (e.g. from
`tune --pin ... --db DB`); delete its `baselines` rows so libcl2 does not route to a recorded
cuBLASLt algorithm (the script checks the route and stops otherwise). Needs PyTorch and nvidia-smi.
"""
import datetime
import subprocess
import sys
import time

import torch

import cl2tune
from smi_samples import smi_samples

PHASES_PER_VARIANT = 2


def timed_phase(fn, copies):
    """0.4 s of calls to reach the clock the load settles at, then 1 s measured."""
    t0 = time.time()
    while time.time() - t0 < 0.4:
        for i in range(100):
            fn(i % copies)
        torch.cuda.synchronize()
    start, stop = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    began, calls = datetime.datetime.now(), 0
    start.record()
    t1 = time.time()
    while time.time() - t1 < 1.0:
        for i in range(200):
            fn(i % copies)
        calls += 200
    stop.record()
    torch.cuda.synchronize()
    return start.elapsed_time(stop) * 1000.0 / calls, began, datetime.datetime.now()


def main():
    if len(sys.argv) < 6:
        sys.exit(__doc__)
    out = sys.argv[1]
    m, n, k = map(int, sys.argv[2:5])
    variants = [arg.split("=", 1) for arg in sys.argv[5:]]
    copies = max(3, int(200e6 // (2 * n * k)) + 1)  # more than 3x the L2 of weights
    weights = [torch.randn(n, k, device="cuda", dtype=torch.float16) for _ in range(copies)]
    inputs = [torch.randn(m, k, device="cuda", dtype=torch.float16) for _ in range(copies)]
    calls = {"torch": lambda i: torch.matmul(inputs[i], weights[i].t())}
    log = open(out, "w")
    for label, db in variants:
        runtime = cl2tune.Runtime(db)
        route = runtime.describe(m, n, k)
        if not route.startswith("ours exact"):
            sys.exit(f"power-probe: {db} routes {m}x{n}x{k} to '{route}', not our winner; delete its baselines rows")
        print(f"{label}: {route}", file=log)
        calls[label] = (lambda r: lambda i: r.matmul(inputs[i], weights[i].t()))(runtime)
    smi = subprocess.Popen(["nvidia-smi", "--query-gpu=timestamp,power.draw.instant,clocks.sm",
                            "--format=csv,noheader,nounits", "-lms", "20"], stdout=open(out + ".smi", "w"))
    phases = []
    for _ in range(PHASES_PER_VARIANT):
        for label in [v[0] for v in variants] + ["torch"]:
            phases.append((label,) + timed_phase(calls[label], copies))
    smi.terminate()
    smi.wait()
    samples = smi_samples(out + ".smi", 2)
    print(f"{'shape':>16} {'call':>10} {'us':>7} {'W':>6} {'MHz':>6} {'mJ/call':>8}", file=log)
    for label, us, began, ended in phases:
        inside = [s for s in samples if began <= s[0] <= ended]
        watts = sum(s[1] for s in inside) / max(1, len(inside))
        mhz = sum(s[2] for s in inside) / max(1, len(inside))
        print(f"{f'{m}x{n}x{k}':>16} {label:>10} {us:7.2f} {watts:6.1f} {mhz:6.0f} {watts * us / 1000:8.2f}", file=log)
    log.close()
    print(open(out).read(), end="")


if __name__ == "__main__":
    main()
