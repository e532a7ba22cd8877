#!/usr/bin/env python3
"""A model-shaped check of cl2tune (issue 12): a stack of MLP blocks (linear H -> 4H, GELU, linear
4H -> H) in fp16, run end to end through torch and through libcl2 (Runtime.routed), on the GPU.

    python3 scripts/torch_demo.py --shapes-out mlp.json [--tokens 1,16,256] [--hidden 4096]
    cuda-l2-tune tune --shapes mlp.json --db mlp.sqlite          # the GEMMs the demo calls
    PYTHONPATH=python python3 scripts/torch_demo.py --db mlp.sqlite [--layers 8] [--iterations 50] [--graphs]

Per token count it prints the route libcl2 takes for each GEMM, the largest difference between the
two outputs (relative to the largest output), and the time per forward pass of each (CUDA events around --iterations passes after a
warm-up), with the speedup; it exits 1 where the outputs differ beyond fp16 accumulation noise.
With --graphs each forward pass is captured once into a CUDA graph and replayed, as servers run
decoding steps: the host's cost per call (Python, torch's dispatch, ctypes) then drops out and the
GPU time of the kernels decides.
"""
import argparse
import json
import sys


def gemm_shapes(tokens, hidden):
    """The TN GEMMs of one block: x (T x H) by W1 (4H x H), then (T x 4H) by W2 (H x 4H)."""
    return [(tokens, 4 * hidden, hidden), (tokens, hidden, 4 * hidden)]


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--db", help="tuning database or bundle folder for libcl2")
    parser.add_argument("--shapes-out", help="write the demo's GEMMs as a shapes file and stop")
    parser.add_argument("--tokens", default="1,16,256", help="rows of the activations, comma-separated")
    parser.add_argument("--hidden", type=int, default=4096)
    parser.add_argument("--layers", type=int, default=8)
    parser.add_argument("--iterations", type=int, default=50)
    parser.add_argument("--graphs", action="store_true", help="time CUDA graph replays of each forward pass")
    args = parser.parse_args()
    token_counts = [int(t) for t in args.tokens.split(",")]

    if args.shapes_out:
        shapes = [{"m": m, "n": n, "k": k} for t in token_counts for (m, n, k) in gemm_shapes(t, args.hidden)]
        with open(args.shapes_out, "w") as out:
            json.dump(shapes, out, indent=1)
        return 0
    if not args.db:
        parser.error("--db (or --shapes-out) is required")

    import torch
    import cl2tune

    torch.manual_seed(0)
    h = args.hidden
    layers = [
        torch.nn.Sequential(torch.nn.Linear(h, 4 * h), torch.nn.GELU(), torch.nn.Linear(4 * h, h))
        for _ in range(args.layers)
    ]
    model = torch.nn.Sequential(*layers).to(device="cuda", dtype=torch.float16).eval()
    runtime = cl2tune.Runtime(args.db)

    def time_ms(run, x):
        for _ in range(5):
            run(x)
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        for _ in range(args.iterations):
            run(x)
        end.record()
        torch.cuda.synchronize()
        return start.elapsed_time(end) / args.iterations

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
            for m, n, k in gemm_shapes(tokens, h):
                print(f"  {m}x{n}x{k}: {runtime.describe(m, n, k)}")
            x = torch.rand(tokens, h, device="cuda", dtype=torch.float16) - 0.5
            want = model(x).float()
            # Relative to the output's scale: eight layers carry each GEMM's rounding forward.
            diff = ((through_runtime(x).float() - want).abs().max() / want.abs().max()).item()
            torch_run, ours_run = model, through_runtime
            if args.graphs:
                torch_run, ours_run = replayed(model, x), replayed(through_runtime, x)
                replay_diff = ((ours_run(x).float() - want).abs().max() / want.abs().max()).item()
                diff = max(diff, replay_diff)
            torch_ms, ours_ms = time_ms(torch_run, x), time_ms(ours_run, x)
            print(f"tokens {tokens}{' (CUDA graphs)' if args.graphs else ''}: max |diff| {100 * diff:.2f}% of max |y|, "
                  f"torch {torch_ms:.3f} ms, libcl2 {ours_ms:.3f} ms, speedup {torch_ms / ours_ms:.3f}x")
            failed |= not diff < 0.02
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
