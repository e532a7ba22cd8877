#!/usr/bin/env python3
"""Whether cl2tune's CUDA graph runs the same kernel as libcl2's C++ timer, as fast, each launch
timed alone (issue 12, acceptance 2), on the GPU.

    PYTHONPATH=python python3 scripts/percall_ncu.py --db tuned.sqlite --shape 3000x4096x4096 \\
        [--shape ...] [--shapes configs/shapes/quickstart.json] [--launches 5]

On GPU-bound shapes at the power cap the same call's time moves by several per cent from one
timing to the next (the clock follows the GPU's power state), so cl2tune_percall.py's figures
cannot tell a slower launch path from a hotter GPU. Nsight Compute (ncu) times each profiled
kernel alone, after the pause its own work makes, so no call inherits the power state of calls
before it; the clocks are left alone (--clock-control none, as the lent machines ask) and read
with each kernel. For each shape, one process per side runs that side's calls inside an NVTX
range, and ncu profiles the first --launches kernels there:
- cpp: the call timed by libcl2 in C++ as bench times it (Runtime.time, cl2_time_gemm_packed);
- python: the call captured into a CUDA graph by cl2tune.capture_graph and replayed from Python.
Prints, per shape, the kernel each side ran, its median duration and SM clock under ncu on each
side, and whether it is the same kernel within 2 us. Exits 1 where a shape is not (or ncu profiled
nothing), 2 on bad input.
"""
import argparse
import csv
import io
import os
import shutil
import statistics
import subprocess
import sys

from cl2tune_percall import WITHIN_US, bench_inputs, captured_calls, load_shapes
from results_db import fail

SIDES = ("cpp", "python")
METRICS = ("gpu__time_duration.sum", "smsp__cycles_elapsed.avg.per_second")


def parse_shape(text):
    try:
        m, n, k = (int(d) for d in text.lower().split("x"))
    except ValueError:
        fail(f"--shape {text}: give MxNxK, e.g. 3000x4096x4096")
    if min(m, n, k) < 1:
        fail(f"--shape {text}: M, N and K must be at least 1")
    return m, n, k


def run_side(db, shape, side, replays):
    """In the profiled child: the side's calls inside an NVTX range named after it."""
    import torch
    import cl2tune

    m, n, k = shape
    a, b = bench_inputs(torch, m, k), bench_inputs(torch, n, k).t()
    c = torch.empty(m, n, device="cuda", dtype=torch.float16)
    rt = cl2tune.Runtime(db)
    if side == "python":
        graph = captured_calls(cl2tune, lambda: rt.matmul(a, b, out=c), 1)  # uploaded outside the range
    torch.cuda.synchronize()
    torch.cuda.nvtx.range_push(side)
    if side == "cpp":
        rt.time(a, b, out=c)
    else:
        for _ in range(replays):
            graph.replay()
    torch.cuda.synchronize()
    torch.cuda.nvtx.range_pop()


def profile(db, shape, side, launches):
    """[(kernel name, duration in ns, SM clock in Hz)] of the side's first `launches` kernels under ncu."""
    command = ["ncu", "--csv", "--page", "raw", "--nvtx", "--nvtx-include", f"{side}/", "--graph-profiling", "node",
               "--clock-control", "none", "--print-units", "base", "-c", str(launches), "--metrics", ",".join(METRICS),
               sys.executable, os.path.abspath(__file__), "--db", db, "--child", side,
               "--shape", "x".join(map(str, shape)), "--launches", str(launches)]
    done = subprocess.run(command, capture_output=True, text=True)
    if done.returncode != 0:
        said = " ".join(done.stderr.split())[-400:]  # one line, whatever ncu printed
        fail(f"ncu exited {done.returncode} on the {side} side of {'x'.join(map(str, shape))}: {said}; "
             "check that ncu can profile on this machine (ncu --query-metrics)")
    rows = [line for line in done.stdout.splitlines() if line.startswith('"')]
    kernels = []
    for row in csv.DictReader(io.StringIO("\n".join(rows))):
        try:
            duration = float(row["gpu__time_duration.sum"].replace(",", ""))
            clock = float(row["smsp__cycles_elapsed.avg.per_second"].replace(",", ""))
        except (KeyError, ValueError):
            continue  # the units row
        kernels.append((row.get("Kernel Name", "?"), duration, clock))
    return kernels


def side_summary(kernels):
    """(kernel names, median duration in us, median SM clock in MHz) of one side's profiled kernels."""
    return ({name for name, _, _ in kernels}, statistics.median(d for _, d, _ in kernels) / 1000.0,
            statistics.median(c for _, _, c in kernels) / 1e6)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--db", required=True, help="tuning database or bundle folder for libcl2")
    parser.add_argument("--shape", action="append", default=[], help="MxNxK (TN, fp32 accumulation); repeatable")
    parser.add_argument("--shapes", help="a shapes file: its TN fp32-accumulation shapes, after any --shape")
    parser.add_argument("--launches", type=int, default=5, help="kernels profiled per side")
    parser.add_argument("--child", choices=SIDES, help=argparse.SUPPRESS)
    args = parser.parse_args()
    shapes = [parse_shape(text) for text in args.shape] + (load_shapes(args.shapes) if args.shapes else [])
    if not shapes:
        fail("give --shape MxNxK or --shapes FILE")
    if args.launches < 1:
        fail(f"--launches {args.launches}: give at least 1")
    if args.child:
        return run_side(args.db, shapes[0], args.child, args.launches)
    if not shutil.which("ncu"):
        fail("ncu is not on the PATH; install Nsight Compute (it comes with the CUDA toolkit) or add its folder")
    print("| shape | kernel | profiled: cpp / python | C++ timer's graph us | cl2tune's graph us | python - cpp us | "
          "SM clock MHz: cpp / python | same kernel within 2 us |")
    print("|---|---|--:|--:|--:|--:|--:|---|")
    within = 0
    for shape in shapes:
        name = "x".join(map(str, shape))
        profiled = {side: profile(args.db, shape, side, args.launches) for side in SIDES}
        if not all(profiled.values()):
            counts = " / ".join(str(len(profiled[side])) for side in SIDES)
            print(f"| {name} | none profiled | {counts} | - | - | - | - | no |")
            continue
        (cpp_names, cpp_us, cpp_mhz), (py_names, py_us, py_mhz) = (side_summary(profiled[s]) for s in SIDES)
        same = cpp_names == py_names
        close = same and abs(py_us - cpp_us) <= WITHIN_US
        within += close
        kernels = " ".join(sorted(cpp_names))
        if not same:
            kernels = f"cpp {kernels}, python {' '.join(sorted(py_names))}"
        print(f"| {name} | {kernels[:70]} | {len(profiled['cpp'])} / {len(profiled['python'])} | {cpp_us:.2f} | "
              f"{py_us:.2f} | {py_us - cpp_us:+.2f} | {cpp_mhz:.0f} / {py_mhz:.0f} | {'yes' if close else 'no'} |")
    print(f"\npercall_ncu: the same kernel, each launch timed alone under ncu, within {WITHIN_US:g} us between "
          f"libcl2's C++ timer and cl2tune's graph: {within} of {len(shapes)}")
    return 0 if within == len(shapes) else 1


if __name__ == "__main__":
    sys.exit(main())
