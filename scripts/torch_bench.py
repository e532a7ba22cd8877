#!/usr/bin/env python3
"""torch.matmul timings for `cuda-l2-tune bench` (run on the GPU machine, where PyTorch is).

    python3 scripts/torch_bench.py --shapes FILE --out torch.csv [--mode offline|server|both]
                                   [--interval-ms 10,50,100] [--samples 5] [--l2 warm|rotate|flush]

The shapes file is the tool's: a JSON list of {"m","n","k"[,"layout"][,"accum"]} or [m, n, k].
For each shape, A (M x K) and B are fp16, uniform in [-0.5, 0.5]; torch.matmul(A, B) with B as a
K x N tensor for nn and as (N x K).t() for tn, the memory layout our TN kernels read.

Figures, as the tool measures its own kernels and the libraries:
  offline GPU time  R back-to-back calls captured in a torch.cuda.CUDAGraph (R sized to ~300 us
                    per replay, so the CPU submission cost is hidden), each replay between two
                    CUDA events; median per call over replays until the noise settles (at least
                    10 replays, at most --max-seconds). The call is torch.matmul(A, B) as users
                    write it: each captured call gets its own output in the graph's pool. With
                    --cold-l2: each call alone between events, after a kernel that overwrites 2x
                    the L2 and a short GPU sleep that hides the launch, so the events see the
                    matmul only (--cold-l2 is the same as --l2 flush). With --l2 rotate: calls stay
                    back to back but cycle through copies of A and B (each call its own output)
                    that together exceed 3x the L2, so operands come from DRAM, as the tool's
                    own rotation does; a replay holds whole turns of the copies.
  offline wall time time.perf_counter() around one call and torch.cuda.synchronize(), median of
                    many (as CUDA-L2 measures: launch overhead included).
  server            per interval: sleep the interval, then one call alone, timed by events and by
                    the wall clock together (the wall figure includes the end event's record,
                    about a microsecond), --samples times; medians.
fp16 accumulation: torch.matmul has no switch for it, so f16-accum shapes are timed with torch's
default (fp32 accumulation) and the CSV's note column says so.

Writes one CSV row per shape and mode (columns M,N,K,layout,accum,mode,interval_ms,gpu_us,
gpu_spread_pct,gpu_samples,wall_us,wall_spread_pct,wall_samples,note), which
`cuda-l2-tune bench` adds to its run as provider "torch" (merge_torch_results). Spread is
100 * stdev / mean of the samples, as in the tool. Without a CUDA device: exit 2, one line.
"""
import argparse
import csv
import json
import math
import statistics
import sys
import time

PROG = "torch_bench"
COLUMNS = ["M", "N", "K", "layout", "accum", "mode", "interval_ms", "gpu_us", "gpu_spread_pct",
           "gpu_samples", "wall_us", "wall_spread_pct", "wall_samples", "note"]
F16_ACCUM_NOTE = "f16 accum requested; torch.matmul timed with its default (fp32 accumulation)"
REPLAY_TARGET_US = 300.0
MAX_CALLS_PER_REPLAY = 1000
MIN_SAMPLES = 10
MAX_NOISE = 0.005  # stop once stdev/mean is under 0.5% (nvbench's default)
MAX_DIM = 2**31 - 1
HOLD_GPU_CYCLES = 200_000  # ~100 us at 2 GHz: longer than the host needs to submit one call


class UserError(Exception):
    """Printed as one line naming the input and the fix; exit status 2."""


# ---------------------------------------------------------------- inputs

def read_dim(entry, name, where):
    value = entry[name] if isinstance(entry, dict) else entry["mnk".index(name)]
    if isinstance(value, bool) or not isinstance(value, int):
        raise UserError(f"{where}: {name} = {json.dumps(value)} is not an integer; give a whole number >= 1")
    if not 1 <= value <= MAX_DIM:
        raise UserError(f"{where}: {name} = {value} is out of range; every dimension must be 1..{MAX_DIM}")
    return value


def read_choice(entry, key, allowed, default, where):
    value = entry.get(key, default) if isinstance(entry, dict) else default
    if value not in allowed:
        raise UserError(f"{where}: {key} {json.dumps(value)} is unknown; use {' or '.join(allowed)}")
    return value


def load_shapes(path, default_layout, default_accum):
    """[(m, n, k, layout, accum)] in file order, duplicates dropped, as the tool reads the file."""
    try:
        with open(path) as f:
            document = json.load(f)
    except OSError:
        raise UserError(f"{path}: cannot read the shapes file; check the path (configs/shapes/ has examples)")
    except json.JSONDecodeError as error:
        raise UserError(f"{path}: malformed JSON at line {error.lineno}; expected a list of "
                        '{"m":..,"n":..,"k":..} or [m, n, k]')
    if not isinstance(document, list) or not document:
        raise UserError(f'{path}: expected a non-empty list of shapes like [{{"m":64,"n":64,"k":64}}]')
    shapes = []
    for number, entry in enumerate(document, start=1):
        where = f"{path}: shape #{number}"
        if isinstance(entry, dict):
            for key in sorted(set(entry) - {"m", "n", "k", "layout", "accum"}):
                raise UserError(f'{where}: unknown key "{key}"; allowed are m, n, k, layout, accum')
            for key in sorted({"m", "n", "k"} - set(entry)):
                raise UserError(f'{where}: missing "{key}"; each shape needs m, n and k')
        elif not (isinstance(entry, list) and len(entry) == 3):
            raise UserError(f'{where}: expected {{"m":..,"n":..,"k":..}} or [m, n, k], got {json.dumps(entry)}')
        shape = (read_dim(entry, "m", where), read_dim(entry, "n", where), read_dim(entry, "k", where),
                 read_choice(entry, "layout", ("tn", "nn"), default_layout, where),
                 read_choice(entry, "accum", ("f32", "f16"), default_accum, where))
        if shape not in shapes:
            shapes.append(shape)
    return shapes


def parse_intervals(text):
    try:
        intervals = [int(part) for part in text.split(",") if part.strip()]
    except ValueError:
        intervals = []
    if not intervals or any(i <= 0 for i in intervals):
        raise UserError(f"--interval-ms {text}: give positive whole milliseconds, e.g. 10,50,100")
    return intervals


def parse_args(argv):
    parser = argparse.ArgumentParser(prog="torch_bench.py", description=__doc__.split("\n\n")[0])
    parser.add_argument("--shapes", required=True, help="shapes file (the tool's JSON format)")
    parser.add_argument("--out", required=True, help="CSV to write")
    parser.add_argument("--mode", choices=["offline", "server", "both"], default="both")
    parser.add_argument("--interval-ms", default="10,50,100", help="server idle gaps, comma-separated")
    parser.add_argument("--samples", type=int, default=5, help="server calls per interval")
    parser.add_argument("--l2", choices=["warm", "rotate", "flush"], default="warm",
                        help="operands in L2 (warm), cycled through copies > 3x the L2 (rotate), or "
                             "flushed before each call (flush)")
    parser.add_argument("--cold-l2", action="store_true", help="the same as --l2 flush")
    parser.add_argument("--max-seconds", type=float, default=1.0,
                        help="cap per shape on offline GPU sampling (wall sampling gets half)")
    parser.add_argument("--layout", choices=["tn", "nn"], default="tn", help="default layout")
    parser.add_argument("--accum", choices=["f32", "f16"], default="f32", help="default accumulator")
    args = parser.parse_args(argv)
    if args.samples < 1:
        raise UserError(f"--samples {args.samples}: give at least 1")
    if not args.max_seconds > 0:
        raise UserError(f"--max-seconds {args.max_seconds}: give a positive number of seconds")
    args.intervals = parse_intervals(args.interval_ms) if args.mode != "offline" else []
    if args.cold_l2:
        args.l2 = "flush"
    return args


# ---------------------------------------------------------------- statistics

def spread_pct(samples):
    """100 * stdev / mean, as the tool reports it (0 for a single sample)."""
    if len(samples) < 2:
        return 0.0
    return 100.0 * statistics.stdev(samples) / statistics.fmean(samples)


def sample_until_settled(take_sample, max_seconds):
    """Samples (in us) until at least MIN_SAMPLES and the noise is under MAX_NOISE, or the noise
    has stopped changing (within 5% over the last MIN_SAMPLES samples: more samples would not
    make the median better known), or max_seconds of wall time have passed."""
    samples, start, previous_noise = [], time.perf_counter(), None
    while True:
        samples.append(take_sample())
        if len(samples) < MIN_SAMPLES:
            continue
        noise = spread_pct(samples) / 100.0
        settled = False
        if len(samples) % MIN_SAMPLES == 0:
            settled = previous_noise is not None and abs(noise - previous_noise) <= 0.05 * noise
            previous_noise = noise
        if noise <= MAX_NOISE or settled or time.perf_counter() - start >= max_seconds:
            return samples


def figure(samples):
    return {"us": statistics.median(samples), "spread": spread_pct(samples), "count": len(samples)}


# ---------------------------------------------------------------- measuring

class MatmulBench:
    """One shape's operands and the ways of timing torch.matmul on them."""

    def __init__(self, torch, shape, flush, copies):
        m, n, k, layout, _ = shape
        self.torch, self.flush = torch, flush
        self.a = torch.empty(m, k, dtype=torch.float16, device="cuda").uniform_(-0.5, 0.5)
        if layout == "tn":  # N rows of K, read as K x N: the layout our TN kernels take
            self.b = torch.empty(n, k, dtype=torch.float16, device="cuda").uniform_(-0.5, 0.5).t()
        else:
            self.b = torch.empty(k, n, dtype=torch.float16, device="cuda").uniform_(-0.5, 0.5)
        # The rotation: copy 0 is (a, b); each call takes the next copy.
        self.operands = [(self.a, self.b)] + [(self.a.clone(), self.b.clone()) for _ in range(copies - 1)]
        self.calls_made = 0
        self.events = (torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True))

    def call(self):
        a, b = self.operands[self.calls_made % len(self.operands)]
        self.calls_made += 1
        return self.torch.matmul(a, b)

    def warm_up(self):
        for _ in range(3):
            self.call()
        self.torch.cuda.synchronize()

    def events_around(self, launch):
        start, end = self.events
        start.record()
        launch()
        end.record()
        end.synchronize()
        return start.elapsed_time(end) * 1000.0

    def graph_of(self, calls):
        torch = self.torch
        side = torch.cuda.Stream()  # capture needs a side stream warmed up first (PyTorch docs)
        side.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(side):
            self.call()
        torch.cuda.current_stream().wait_stream(side)
        graph = torch.cuda.CUDAGraph()
        with torch.cuda.graph(graph):
            for _ in range(calls):
                self.call()
        return graph

    def offline_gpu(self, max_seconds):
        if self.flush is not None:
            def flushed_call():
                self.flush.zero_()
                # Keep the GPU busy while Python submits the call, so the events time the matmul
                # and not the gap before it arrives (the flush alone may end before that).
                self.torch.cuda._sleep(HOLD_GPU_CYCLES)
                return self.events_around(self.call)
            return figure(sample_until_settled(flushed_call, max_seconds))
        one_call_us = min(self.events_around(self.call) for _ in range(3))
        calls = max(1, min(MAX_CALLS_PER_REPLAY, math.ceil(REPLAY_TARGET_US / max(one_call_us, 1e-3))))
        turn = len(self.operands)
        calls = math.ceil(calls / turn) * turn
        self.calls_made = 0
        graph = self.graph_of(calls)
        graph.replay()
        return figure(sample_until_settled(lambda: self.events_around(graph.replay) / calls, max_seconds))

    def offline_wall(self, max_seconds):
        synchronize = self.torch.cuda.synchronize

        def timed_call():
            if self.flush is not None:
                self.flush.zero_()
                synchronize()
            start = time.perf_counter()
            self.call()
            synchronize()
            return (time.perf_counter() - start) * 1e6
        return figure(sample_until_settled(timed_call, max_seconds))

    def server(self, interval_ms, samples):
        start_event, end_event = self.events
        gpu, wall = [], []
        for _ in range(samples):
            if self.flush is not None:
                self.flush.zero_()
            self.torch.cuda.synchronize()
            time.sleep(interval_ms / 1000.0)
            start_event.record()
            start = time.perf_counter()
            self.call()
            end_event.record()
            self.torch.cuda.synchronize()
            wall.append((time.perf_counter() - start) * 1e6)
            gpu.append(start_event.elapsed_time(end_event) * 1000.0)
        return figure(gpu), figure(wall)


def csv_row(shape, mode, interval_ms, gpu, wall):
    m, n, k, layout, accum = shape
    return [m, n, k, layout, accum, mode, interval_ms,
            f"{gpu['us']:.3f}", f"{gpu['spread']:.3f}", gpu["count"],
            f"{wall['us']:.3f}", f"{wall['spread']:.3f}", wall["count"],
            F16_ACCUM_NOTE if accum == "f16" else ""]


def rotation_copies(torch, shape, l2):
    """Copies of the operands the rotate policy cycles through: more than 3x the L2 together (as
    the tool's rotation_copies), at least two; one for the other policies."""
    if l2 != "rotate":
        return 1
    m, n, k = shape[:3]
    operand_bytes = 2 * (m * k + k * n + m * n)
    return max(2, 3 * l2_bytes(torch) // operand_bytes + 1)


def bench_shape(torch, shape, args, flush):
    """The CSV rows of one shape, and a progress summary."""
    bench = MatmulBench(torch, shape, flush, rotation_copies(torch, shape, args.l2))
    bench.warm_up()
    rows, progress = [], []
    if args.mode in ("offline", "both"):
        gpu, wall = bench.offline_gpu(args.max_seconds), bench.offline_wall(args.max_seconds / 2)
        rows.append(csv_row(shape, "offline", 0, gpu, wall))
        progress.append(f"offline gpu {gpu['us']:.2f} us, wall {wall['us']:.2f} us")
    for interval in args.intervals:
        gpu, wall = bench.server(interval, args.samples)
        rows.append(csv_row(shape, "server", interval, gpu, wall))
        progress.append(f"server {interval} ms wall {wall['us']:.1f} us")
    return rows, "; ".join(progress)


def import_torch_with_cuda():
    try:
        import torch
    except ImportError:
        raise UserError("no CUDA device: PyTorch is not installed here; run this on the GPU machine")
    if not torch.cuda.is_available():
        raise UserError("no CUDA device; run this on the GPU machine")
    return torch


def l2_bytes(torch):
    return getattr(torch.cuda.get_device_properties(0), "L2_cache_size", 0) or 64 << 20


def l2_flush_buffer(torch, l2):
    """A buffer twice the L2 size whose zeroing evicts the operands, or None unless flushing."""
    if l2 != "flush":
        return None
    return torch.empty(2 * l2_bytes(torch), dtype=torch.uint8, device="cuda")


def main(argv):
    try:
        args = parse_args(argv)
        shapes = load_shapes(args.shapes, args.layout, args.accum)
        torch = import_torch_with_cuda()
    except UserError as error:
        print(f"{PROG}: {error}", file=sys.stderr)
        return 2
    flush = l2_flush_buffer(torch, args.l2)
    try:
        out = open(args.out, "w", newline="")
    except OSError as error:
        print(f"{PROG}: {args.out}: cannot write ({error.strerror}); choose a writable --out", file=sys.stderr)
        return 2
    failed = 0
    with out:
        writer = csv.writer(out, lineterminator="\n")
        writer.writerow(COLUMNS)
        for number, shape in enumerate(shapes, start=1):
            label = f"[{number}/{len(shapes)}] {shape[0]}x{shape[1]}x{shape[2]} {shape[3]} {shape[4]}"
            try:
                rows, progress = bench_shape(torch, shape, args, flush)
            except torch.cuda.OutOfMemoryError:
                failed += 1
                print(f"{label}: skipped, out of GPU memory (no torch rows for this shape)", file=sys.stderr)
                torch.cuda.empty_cache()
                continue
            writer.writerows(rows)
            out.flush()  # rows of finished shapes survive an interrupted run
            print(f"{label}: {progress}", file=sys.stderr)
    print(f"{PROG}: {len(shapes) - failed} of {len(shapes)} shapes timed into {args.out}", file=sys.stderr)
    return 0 if failed == 0 else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
