"""cl2tune: fp16 GEMMs of PyTorch through libcl2, the runtime library of cuda-l2-tune (ctypes).

    import cl2tune
    rt = cl2tune.Runtime("db/tuning.sqlite")      # or a bundle folder (export --format bundle)
    c = rt.matmul(a, b)                           # 2-D fp16 CUDA tensors, on the current stream
    rt.matmul(a, b, out=c)                        # into a buffer of (M, N) with contiguous rows
    y = rt.matmul(x, w.t(), bias=bias)            # x @ w.T + bias, the bias added in the epilogue
    with rt.routed():                             # torch.matmul / F.linear of 2-D fp16 CUDA tensors
        y = model(x)
    graph, y = cl2tune.capture_graph(lambda: rt.matmul(a, b))   # graph.replay() reruns it
    rt.time(a, b)["median_us"]                    # per call, timed in C++ as bench times it

The library is build/libcl2.so of this checkout, or the file $CL2_LIBRARY names. PyTorch is only
imported when a tensor is handed over, so opening and its errors work without it.
"""
import contextlib
import ctypes
import os
import struct
import threading

__all__ = ["Cl2Error", "Runtime", "capture_graph", "library_path"]

LAYOUT_TN, LAYOUT_NN = 0, 1
ACCUM = {"f32": 0, "f16": 1}
OPEN_LIBRARY_FALLBACK = 1
OPEN_NO_FIRST_CALL_TIMING = 2
OPEN_WEIGHTS_READ_ONLY = 4


class Cl2Error(RuntimeError):
    """A libcl2 call failed: `status` is its cl2_status name, the message its cl2_last_error()."""

    def __init__(self, status, message):
        super().__init__(f"{status}: {message}")
        self.status = status


def library_path():
    """$CL2_LIBRARY, else build/libcl2.so of the checkout this package lies in."""
    here = os.path.dirname(os.path.abspath(__file__))
    return os.environ.get("CL2_LIBRARY") or os.path.join(here, "..", "..", "build", "libcl2.so")


_lib = None


def _library():
    global _lib
    if _lib is None:
        lib = ctypes.CDLL(library_path())
        handle_p = ctypes.c_void_p
        i64 = ctypes.c_int64
        lib.cl2_open_with_options.argtypes = [ctypes.c_char_p, ctypes.c_uint, ctypes.POINTER(handle_p)]
        lib.cl2_close.argtypes = [handle_p]
        lib.cl2_close.restype = None
        lib.cl2_gemm_packed.argtypes = [ctypes.c_void_p]
        lib.cl2_gemm_bias_packed.argtypes = [ctypes.c_void_p, ctypes.c_void_p]
        lib.cl2_time_gemm_packed.argtypes = [ctypes.c_void_p, ctypes.POINTER(_Timing)]
        lib.cl2_describe.argtypes = [handle_p, ctypes.c_int, ctypes.c_int, i64, i64, i64, ctypes.c_char_p,
                                     ctypes.c_size_t]
        lib.cl2_last_error.restype = ctypes.c_char_p
        lib.cl2_status_name.argtypes = [ctypes.c_int]
        lib.cl2_status_name.restype = ctypes.c_char_p
        _lib = lib
    return _lib


class _Timing(ctypes.Structure):
    """cl2_timing of cl2.h."""
    _fields_ = [("median_us", ctypes.c_double), ("min_us", ctypes.c_double), ("max_us", ctypes.c_double),
                ("spread_pct", ctypes.c_double), ("sm_clock_mhz", ctypes.c_double), ("samples", ctypes.c_int32),
                ("calls_per_sample", ctypes.c_int32), ("throttled_rounds", ctypes.c_int32),
                ("reserved", ctypes.c_int32)]


# cl2_gemm_args of cl2.h. A GEMM's 13 arguments packed into it and handed over as one pointer cost
# about 1 us of a call, against 2.8 us for ctypes to convert them one by one (cl2_gemm).
_GEMM_ARGS = struct.Struct("@PiiqqqPqPqPqP")
_gemm_args_buffers = threading.local()  # one per thread: ctypes lets go of the GIL during the call


def _gemm_args_buffer():
    """This thread's cl2_gemm_args buffer and its address."""
    buffer = getattr(_gemm_args_buffers, "buffer", None)
    if buffer is None:
        buffer = _gemm_args_buffers.buffer = ctypes.create_string_buffer(_GEMM_ARGS.size)
        _gemm_args_buffers.address = ctypes.addressof(buffer)
    return buffer, _gemm_args_buffers.address


_torch_module = None
_current_raw_stream = None


def _torch():
    """PyTorch, imported on first use (a call pays for the import once, not per call)."""
    global _torch_module, _current_raw_stream
    if _torch_module is None:
        import torch

        # The current stream's handle for a device index. torch.cuda.current_stream(device)
        # builds a torch.cuda.Stream object on every call, microseconds of a call whose GPU time
        # can be 2 us; PyTorch's own accessor of the raw handle (which Triton's launcher calls as
        # well) returns it directly, where this PyTorch has it.
        raw = getattr(torch._C, "_cuda_getCurrentRawStream", None)
        _current_raw_stream = raw or (lambda index: torch.cuda.current_stream(index).cuda_stream)
        _torch_module = torch
    return _torch_module


def capture_graph(run, warmup=3):
    """run() captured into a torch.cuda.CUDAGraph on a stream of its own, after `warmup` calls on
    that stream: libcl2 makes an untuned shape's decision, loads its modules and sizes its
    per-stream state (workspaces) at a call outside a capture, and allocating inside one is not
    allowed. Returns the graph and what run() returned while captured (its outputs, which every
    graph.replay() rewrites)."""
    torch = _torch()
    stream = torch.cuda.Stream()
    stream.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(stream):
        for _ in range(warmup):
            run()
    torch.cuda.current_stream().wait_stream(stream)
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph, stream=stream):
        captured = run()
    return graph, captured


class _UnfitBias(ValueError):
    """A bias that cl2_gemm_bias does not take (the routed F.linear leaves such calls to torch)."""


def _fits_bias(torch, bias, n, a):
    """Whether `bias` is what cl2_gemm_bias takes: n contiguous fp16 values on a's device."""
    return (isinstance(bias, torch.Tensor) and bias.dim() == 1 and bias.shape[0] == n and bias.dtype == torch.float16
            and bias.is_cuda and bias.get_device() == a.get_device() and bias.stride(0) == 1)


def _check(status):
    if status != 0:
        lib = _library()
        raise Cl2Error(lib.cl2_status_name(status).decode(), lib.cl2_last_error().decode())


class Runtime:
    """A libcl2 handle for the CUDA device current when it is made.

    library_fallback: tuned on another GPU, compute every GEMM with cuBLASLt instead of failing.
    first_call_timing: False runs the cost model's first choice for an untuned shape, without
    timing the model's first few at the shape's first call (CL2_OPEN_NO_FIRST_CALL_TIMING).
    weights_read_only: no kernel writes a GEMM's B just before it (a model's weights), so kernels
    tuned with PDL=1 may start while the previous kernel finishes (CL2_OPEN_WEIGHTS_READ_ONLY).
    """

    def __init__(self, path, library_fallback=False, first_call_timing=True, weights_read_only=False):
        self._handle = ctypes.c_void_p()
        flags = OPEN_LIBRARY_FALLBACK if library_fallback else 0
        if not first_call_timing:
            flags |= OPEN_NO_FIRST_CALL_TIMING
        if weights_read_only:
            flags |= OPEN_WEIGHTS_READ_ONLY
        _check(_library().cl2_open_with_options(os.fsencode(path), flags, ctypes.byref(self._handle)))

    def close(self):
        if self._handle:
            _library().cl2_close(self._handle)
            self._handle = ctypes.c_void_p()

    def __del__(self):
        self.close()

    def describe(self, m, n, k, layout="tn", accum="f32"):
        """Which route a shape takes ("ours exact: ...", "ours nearest (...): ...; first-call timing ...",
        "cublaslt heuristic: ...")."""
        text = ctypes.create_string_buffer(1024)
        _check(_library().cl2_describe(self._handle, LAYOUT_TN if layout == "tn" else LAYOUT_NN, ACCUM[accum],
                                       m, n, k, text, len(text)))
        return text.value.decode()

    def matmul(self, a, b, accum="f32", out=None, bias=None):
        """a @ b for 2-D fp16 CUDA tensors, on the current stream; b may be a transposed weight.
        out: an (M, N) fp16 tensor on a's device with contiguous rows (stride(1) == 1, any row
        stride) to write the product into, as torch.matmul's out=, in place of a new tensor.
        bias: N contiguous fp16 values on a's device added to every row (cl2_gemm_bias: in our
        kernel's epilogue, or cuBLASLt's)."""
        c, address = self._pack(a, b, accum, out, bias)
        if address is None:
            return c
        if bias is None:
            _check(_library().cl2_gemm_packed(address))
        else:
            _check(_library().cl2_gemm_bias_packed(address, bias.data_ptr()))
        return c

    def time(self, a, b, accum="f32", out=None):
        """Per-call GPU time of matmul(a, b) timed in C++ as `cuda-l2-tune bench` times its offline
        figure (cl2_time_gemm_packed: the call replayed from a CUDA graph until the median is known
        to 0.2%), after waiting for the current stream; blocks for 0.1 to 1 s and overwrites `out`.
        Returns cl2_timing's fields as a dict (median_us, min_us, max_us, spread_pct, sm_clock_mhz,
        samples, calls_per_sample, throttled_rounds)."""
        _, address = self._pack(a, b, accum, out, None)
        if address is None:
            raise ValueError("cl2tune.time: M, N and K must be at least 1")
        timing = _Timing()
        _check(_library().cl2_time_gemm_packed(address, ctypes.byref(timing)))
        return {name: getattr(timing, name) for name, _ in _Timing._fields_ if name != "reserved"}

    def _pack(self, a, b, accum, out, bias):
        """Checks matmul's arguments and packs them into this thread's cl2_gemm_args: (C, the
        buffer's address), or (C already computed, None) where M, N or K is 0."""
        torch = _torch()
        if a.dim() != 2 or b.dim() != 2 or a.dtype != torch.float16 or b.dtype != torch.float16:
            raise ValueError("cl2tune.matmul takes 2-D float16 tensors; use torch.matmul for others")
        if not (a.is_cuda and b.is_cuda) or a.get_device() != b.get_device():
            raise ValueError("cl2tune.matmul takes CUDA tensors on one device")
        if a.shape[1] != b.shape[0]:
            raise ValueError(f"cl2tune.matmul: shapes {tuple(a.shape)} and {tuple(b.shape)} do not multiply")
        if a.stride(1) != 1:
            a = a.contiguous()
        if b.stride(1) == 1:  # K rows of N
            layout, ldb = LAYOUT_NN, b.stride(0)
        elif b.stride(0) == 1:  # N rows of K, seen transposed: a weight as nn.Linear keeps it
            layout, ldb = LAYOUT_TN, b.stride(1)
        else:
            layout, b = LAYOUT_NN, b.contiguous()
            ldb = b.stride(0)
        m, k = a.shape
        n = b.shape[1]
        if bias is not None and not _fits_bias(torch, bias, n, a):
            raise _UnfitBias(f"cl2tune.matmul: bias must be {n} contiguous float16 values on a's device")
        if out is None:
            c, ldc = torch.empty((m, n), dtype=torch.float16, device=a.device), n
        else:
            c, ldc = out, out.stride(0)
            if (out.dim() != 2 or tuple(out.shape) != (m, n) or out.dtype != torch.float16 or not out.is_cuda
                    or out.get_device() != a.get_device() or out.stride(1) != 1 or ldc < n):
                raise ValueError(f"cl2tune.matmul: out must be a ({m}, {n}) float16 CUDA tensor on a's device "
                                 "with contiguous rows")
        if m == 0 or n == 0:
            return c, None
        if k == 0:
            return (c.zero_() if bias is None else c.copy_(bias.expand(m, n))), None
        stream = _current_raw_stream(a.get_device())
        buffer, address = _gemm_args_buffer()
        _GEMM_ARGS.pack_into(buffer, 0, self._handle.value or 0, layout, ACCUM[accum], m, n, k, a.data_ptr(),
                             a.stride(0), b.data_ptr(), ldb, c.data_ptr(), ldc, stream)
        return c, address

    @contextlib.contextmanager
    def routed(self):
        """Routes 2-D fp16 CUDA torch.matmul and torch.nn.functional.linear through the runtime, an
        F.linear's fp16 bias included (added in the kernel's epilogue)."""
        import torch
        import torch.nn.functional as F

        matmul, linear = torch.matmul, F.linear

        def takes(*tensors):
            return all(isinstance(t, torch.Tensor) and t.dim() == 2 and t.dtype == torch.float16 and t.is_cuda
                       for t in tensors)

        def routed_matmul(a, b, *args, **kwargs):
            if args or kwargs or not takes(a, b):
                return matmul(a, b, *args, **kwargs)
            return self.matmul(a, b)

        def routed_linear(x, weight, bias=None):
            if not takes(x, weight):
                return linear(x, weight, bias)
            try:
                return self.matmul(x, weight.t(), bias=bias)
            except _UnfitBias:  # checked once, by matmul, before anything is called
                return linear(x, weight, bias)

        torch.matmul, F.linear = routed_matmul, routed_linear
        try:
            yield self
        finally:
            torch.matmul, F.linear = matmul, linear
