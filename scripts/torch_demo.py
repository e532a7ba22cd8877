#!/usr/bin/env python3
"""A model-shaped check of cl2tune (issue 12): a stack of MLP blocks in fp16, run end to end through
torch and through libcl2 (Runtime.routed), on the GPU.

    python3 scripts/torch_demo.py --shapes-out mlp.json [--block llama|gelu] [--tokens 1,16,256] [--hidden 4096]
    cuda-l2-tune tune --shapes mlp.json --db mlp.sqlite --l2 rotate   # the GEMMs the demo calls
    PYTHONPATH=python python3 scripts/torch_demo.py --db mlp.sqlite [--block ...] [--layers 8] [--graphs]

Blocks: `llama` (the default), the MLP of Llama-family models: RMSNorm, gate and up projections H -> I
without bias, SiLU(gate) * up, a down projection I -> H without bias (I = 11008 for H = 4096, as in
Llama 2 7B); `gelu`, linear H -> 4H with bias, GELU, linear 4H -> H with bias. The routed
F.linear hands the bias to libcl2 (cl2_gemm_bias), whose kernels add it before they write C, as
torch's cuBLASLt call does in its epilogue. The layers' weights (2.2 GB in 8 Llama blocks of
H = 4096) stream from DRAM at every pass, so the GEMMs are tuned under --l2 rotate, and the
runtime is opened with weights_read_only: no kernel writes a weight, so our kernels may start
while the one before them finishes (programmatic dependent launch).

Per token count it prints the route libcl2 takes for each GEMM, with how many outputs of one call
on random operands differ from torch's (none where our kernel sums K in cuBLAS's order); the
largest difference between the two stacks' outputs (relative to the largest output) and how many
differ; and the time per forward pass of each: CUDA events around --iterations passes, torch's and
libcl2's taken in turn for --rounds rounds after a warm-up, the median of each, and the speedup.
It exits 1 where the outputs differ beyond fp16 accumulation noise, or where the routed pass run
again after torch's gives other outputs than the first time. With --graphs each forward pass is
captured once into a CUDA graph and replayed, as servers run decoding steps: the host's cost per
call (Python, torch's dispatch, ctypes) then drops out and the GPU time of the kernels decides.
"""
import argparse
import json
import statistics
import sys

# Llama's rule for its MLP width: 8H/3 rounded up to a multiple of 256 (11008 for H = 4096, 13824
# for 5120: the weights of configs/shapes/decode.json).
INTERMEDIATE = {"llama": lambda h: (8 * h + 767) // 768 * 256, "gelu": lambda h: 4 * h}


def gemm_shapes(block, tokens, hidden):
    """The distinct TN GEMMs of one block: x (T x H) by the up weights (I x H), then the
    intermediate activations (T x I) by the down weights (H x I). A Llama block's gate projection
    has the up projection's shape."""
    inner = INTERMEDIATE[block](hidden)
    return [(tokens, inner, hidden), (tokens, hidden, inner)]


def build_model(torch, block, hidden, layers):
    inner = INTERMEDIATE[block](hidden)
    if block == "gelu":
        blocks = [torch.nn.Sequential(torch.nn.Linear(hidden, inner), torch.nn.GELU(), torch.nn.Linear(inner, hidden))
                  for _ in range(layers)]
    else:
        class LlamaMlp(torch.nn.Module):
            def __init__(self):
                super().__init__()
                self.norm = torch.nn.RMSNorm(hidden)
                self.gate = torch.nn.Linear(hidden, inner, bias=False)
                self.up = torch.nn.Linear(hidden, inner, bias=False)
                self.down = torch.nn.Linear(inner, hidden, bias=False)

            def forward(self, x):
                # Llama normalises each block's input (RMSNorm): without it the activations shrink
                # about 35x a block at torch's default initialisation and are zero in fp16 after
                # eight. Its residual add is left out, so that the output is the GEMMs' alone to
                # compare.
                x = self.norm(x)
                return self.down(torch.nn.functional.silu(self.gate(x)) * self.up(x))
        blocks = [LlamaMlp() for _ in range(layers)]
    return torch.nn.Sequential(*blocks).to(device="cuda", dtype=torch.float16).eval()


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--db", help="tuning database or bundle folder for libcl2")
    parser.add_argument("--shapes-out", help="write the demo's GEMMs as a shapes file and stop")
    parser.add_argument("--block", choices=sorted(INTERMEDIATE), default="llama", help="the MLP block (see above)")
    parser.add_argument("--tokens", default="1,16,256", help="rows of the activations, comma-separated")
    parser.add_argument("--hidden", type=int, default=4096)
    parser.add_argument("--layers", type=int, default=8)
    parser.add_argument("--iterations", type=int, default=50, help="forward passes between two CUDA events")
    parser.add_argument("--rounds", type=int, default=5, help="timings of each, taken in turn")
    parser.add_argument("--graphs", action="store_true", help="time CUDA graph replays of each forward pass")
    args = parser.parse_args()
    token_counts = [int(t) for t in args.tokens.split(",")]

    if args.shapes_out:
        shapes = [{"m": m, "n": n, "k": k} for t in token_counts for (m, n, k) in gemm_shapes(args.block, t, args.hidden)]
        with open(args.shapes_out, "w") as out:
            json.dump(shapes, out, indent=1)
        return 0
    if not args.db:
        parser.error("--db (or --shapes-out) is required")

    import torch
    import cl2tune

    torch.manual_seed(0)
    model = build_model(torch, args.block, args.hidden, args.layers)
    runtime = cl2tune.Runtime(args.db, weights_read_only=True)

    def time_ms(run, x):
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        for _ in range(args.iterations):
            run(x)
        end.record()
        torch.cuda.synchronize()
        return start.elapsed_time(end) / args.iterations

    def medians_ms(runs, x):
        """Each run's median time per pass over --rounds rounds, the runs timed in turn."""
        for run in runs:
            for _ in range(5):
                run(x)
        samples = [[] for _ in runs]
        for _ in range(args.rounds):
            for run, times in zip(runs, samples):
                times.append(time_ms(run, x))
        return [statistics.median(times) for times in samples]

    def through_runtime(x):
        with runtime.routed():
            return model(x)

    def replayed(run, x):
        """`run` for x captured into a CUDA graph (cl2tune.capture_graph); returns a function that
        replays it for the same x."""
        graph, y = cl2tune.capture_graph(lambda: run(x))

        def replay(_):
            graph.replay()
            return y
        return replay

    failed = False
    with torch.no_grad():
        for tokens in token_counts:
            for m, n, k in gemm_shapes(args.block, tokens, args.hidden):
                # One call of each GEMM against torch's on the same operands: a kernel that sums K in
                # cuBLAS's order gives its outputs bit for bit, and then so does the stack.
                a = torch.rand(m, k, device="cuda", dtype=torch.float16) - 0.5
                w = torch.rand(n, k, device="cuda", dtype=torch.float16) - 0.5
                same = int((runtime.matmul(a, w.t()) == a @ w.t()).sum().item())
                print(f"  {m}x{n}x{k}: {runtime.describe(m, n, k)} ({m * n - same} of {m * n} outputs differ from torch's)")
            x = torch.rand(tokens, args.hidden, device="cuda", dtype=torch.float16) - 0.5
            # The routed pass first: torch's caching allocator hands out freed blocks, so a pass
            # whose kernels left an output unwritten would otherwise find torch's own result there.
            ours = through_runtime(x).float()
            want = model(x).float()
            # Again after torch's pass, whose results now lie in the freed blocks: our kernels are
            # deterministic, so any output that changes read or kept something it should not have.
            unstable = int((through_runtime(x).float() != ours).sum().item())
            scale = want.abs().max().item()
            if not 0 < scale < float("inf"):
                print(f"tokens {tokens}: torch's output has max |y| = {scale}: nothing to compare against")
                failed = True
                continue
            # Relative to the output's scale: eight layers carry each GEMM's rounding forward.
            diff = ((ours - want).abs().max() / scale).item()
            # How many outputs differ at all: a routed pass that matched torch bit for bit on
            # every output would have run torch's kernels, not ours.
            differing = int((ours != want).sum().item())
            torch_run, ours_run = model, through_runtime
            if args.graphs:
                torch_run, ours_run = replayed(model, x), replayed(through_runtime, x)
                replay_diff = ((ours_run(x).float() - want).abs().max() / scale).item()
                diff = max(diff, replay_diff)
            torch_ms, ours_ms = medians_ms([torch_run, ours_run], x)
            print(f"tokens {tokens}{' (CUDA graphs)' if args.graphs else ''}: max |diff| {100 * diff:.3f}% of max |y| "
                  f"({differing} of {want.numel()} outputs differ; {unstable} change when repeated), "
                  f"torch {torch_ms:.3f} ms, libcl2 {ours_ms:.3f} ms, speedup {torch_ms / ours_ms:.3f}x")
            failed |= not diff < 0.02 or unstable > 0
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
