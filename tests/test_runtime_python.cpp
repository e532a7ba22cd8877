// The cl2tune Python package (python/cl2tune, ctypes over libcl2): its errors on any machine, and
// on a GPU with PyTorch, cl2tune.matmul against torch.matmul (skipped, saying why, without them).
// The scripts over it on any machine: the shapes torch_demo.py calls, and the input errors of
// cl2tune_percall.py and runtime-check.sh.
#include <gtest/gtest.h>

#include <filesystem>

#include "db_test_support.hpp"
#include "gpu/device_query.hpp"
#include "runtime/bundle.hpp"
#include "support/require_gpu.hpp"
#include "support/run_tool.hpp"
#include "support/runtime_fixtures.hpp"

using namespace cl2;

namespace {

cl2_test::CommandResult run_python(const cl2_test::ScratchDir& dir, const std::string& script) {
  return cl2_test::run_command("PYTHONDONTWRITEBYTECODE=1 PYTHONPATH=" + cl2_test::source_path("python") +
                                   " CL2_LIBRARY=" CL2_RUNTIME_LIBRARY " python3 " + dir.write("t.py", script),
                               dir);
}

bool python_has(const cl2_test::ScratchDir& dir, const std::string& module) {
  return cl2_test::run_command("python3 -c 'import " + module + "'", dir).status == 0;
}

}  // namespace

TEST(RuntimePython, ErrorsCarryTheStatusAndMessage) {
  cl2_test::ScratchDir dir;
  if (!python_has(dir, "ctypes")) GTEST_SKIP() << "no python3 with ctypes";
  const auto r = run_python(dir, R"(
import cl2tune
try:
    cl2tune.Runtime(")" + dir.file("missing.sqlite") + R"(")
except cl2tune.Cl2Error as e:
    print(e.status)
    print(e)
)");
  ASSERT_EQ(r.status, 0) << r.err;
  CL2_EXPECT_CONTAINS(r.out, "CL2_ERROR_BAD_INPUT_FILE\nCL2_ERROR_BAD_INPUT_FILE: ");
  CL2_EXPECT_CONTAINS(r.out, "missing.sqlite");
}

// The arguments matmul packs (cl2_gemm_args, one pointer through ctypes) reach the real library.
TEST(RuntimePython, PackedGemmArgumentsReachTheLibrary) {
  cl2_test::ScratchDir dir;
  if (!python_has(dir, "ctypes")) GTEST_SKIP() << "no python3 with ctypes";
  const auto r = run_python(dir, R"(
import cl2tune
lib = cl2tune._library()
buffer, address = cl2tune._gemm_args_buffer()
cl2tune._GEMM_ARGS.pack_into(buffer, 0, 0, cl2tune.LAYOUT_TN, cl2tune.ACCUM["f32"], 4, 4, 4, 0, 4, 0, 4, 0, 4, 0)
print(lib.cl2_status_name(lib.cl2_gemm_packed(address)).decode(), lib.cl2_last_error().decode())
)");
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.out, "CL2_ERROR_INVALID_ARGUMENT cl2_gemm: handle is null; open one with cl2_open first\n");
}

TEST(RuntimePython, OpenKeywordsPassTheirFlags) {
  cl2_test::ScratchDir dir;
  if (!python_has(dir, "ctypes")) GTEST_SKIP() << "no python3 with ctypes";
  // A bad CL2_FIRST_CALL_TIMING is an error at open, unless first_call_timing=False leaves it
  // unread; weights_read_only=True adds a flag the library knows (an unknown one would be
  // CL2_ERROR_INVALID_ARGUMENT), so the missing file is what fails.
  const auto r = run_python(dir, R"(
import os, cl2tune
assert cl2tune.OPEN_WEIGHTS_READ_ONLY == 4
os.environ["CL2_FIRST_CALL_TIMING"] = "lots"
for keywords in ({}, {"first_call_timing": False}, {"first_call_timing": False, "weights_read_only": True}):
    try:
        cl2tune.Runtime(")" + dir.file("missing.sqlite") + R"(", **keywords)
    except cl2tune.Cl2Error as e:
        print(e.status)
)");
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.out, "CL2_ERROR_INVALID_ARGUMENT\nCL2_ERROR_BAD_INPUT_FILE\nCL2_ERROR_BAD_INPUT_FILE\n");
}

namespace {

// A stand-in for PyTorch under `dir`/standin (put first on sys.path): tensors that carry a shape,
// strides, a data pointer and a device, the raw current-stream accessor, and
// torch.nn.functional.linear, which prints what it was given.
void write_standin_torch(const cl2_test::ScratchDir& dir) {
  std::filesystem::create_directories(dir.path() / "standin" / "torch" / "nn");
  dir.write("standin/torch/__init__.py", R"(
float16 = "float16"
class _C:
    @staticmethod
    def _cuda_getCurrentRawStream(index):
        return 1000 + index
class cuda:
    @staticmethod
    def current_stream(index):
        raise AssertionError("the stream object is built where the raw handle is at hand")
class Tensor:
    dtype = float16
    is_cuda = True
    def __init__(self, shape, strides, ptr, device):
        self.shape, self.strides, self.ptr, self.device = shape, strides, ptr, device
    def dim(self): return len(self.shape)
    def get_device(self): return self.device
    def stride(self, i): return self.strides[i]
    def data_ptr(self): return self.ptr
    def t(self): return Tensor(self.shape[::-1], self.strides[::-1], self.ptr, self.device)
def empty(shape, dtype, device):
    return Tensor(tuple(shape), (shape[1], 1), 7777, device)
def matmul(a, b):
    raise AssertionError("torch.matmul called")
from . import nn
)");
  dir.write("standin/torch/nn/__init__.py", "from . import functional\n");
  dir.write("standin/torch/nn/functional.py", R"(
def linear(x, weight, bias=None):
    print("torch linear", x.shape, weight.shape, bias.ptr if bias is not None else None)
    return x
)");
}

// The start of a script over the stand-ins: PyTorch's (write_standin_torch, done here) and
// libcl2's, a class Library with `methods` (plus cl2_close) that cl2tune calls in place of the
// library, and `rt`, a Runtime whose handle is 4242.
std::string standin_prelude(const cl2_test::ScratchDir& dir, const std::string& methods) {
  write_standin_torch(dir);
  return "import sys\nsys.path.insert(0, \"" + dir.file("standin") + "\")\nimport ctypes, cl2tune, torch\nclass Library:\n" +
         methods +
         "    def cl2_close(self, handle):\n        pass\n"
         "cl2tune._library = lambda: Library()\nrt = object.__new__(cl2tune.Runtime)\nrt._handle = ctypes.c_void_p(4242)\n";
}

}  // namespace

// cl2tune.matmul's glue, on any machine: a stand-in for PyTorch (tensors with shapes, strides,
// pointers and a device) and for libcl2 (recording the cl2_gemm_args of its calls) show what
// reaches cl2_gemm: an nn.Linear weight seen transposed goes as TN with its row stride, a row-major
// B as NN, an out= tensor as C with its row stride, the current stream comes from PyTorch's raw
// accessor of the tensors' device, and tensors on two devices or an out= of the wrong shape or
// strides are refused before anything is called.
TEST(RuntimePython, MatmulHandsTheTensorsLayoutAndCurrentStreamToTheLibrary) {
  cl2_test::ScratchDir dir;
  if (!python_has(dir, "ctypes")) GTEST_SKIP() << "no python3 with ctypes";
  const auto r = run_python(dir, standin_prelude(dir, R"(
    def cl2_gemm_packed(self, address):
        args = cl2tune._GEMM_ARGS.unpack(ctypes.string_at(address, cl2tune._GEMM_ARGS.size))
        assert args[0] == 4242, args
        calls.append(args[1:])
        return 0
)") + R"(calls = []
a = torch.Tensor((64, 128), (128, 1), 100, 1)
weight = torch.Tensor((256, 128), (136, 1), 200, 1)
rt.matmul(a, weight.t())
rt.matmul(a, torch.Tensor((128, 256), (264, 1), 300, 1))
rt.matmul(a, weight.t(), out=torch.Tensor((64, 256), (272, 1), 500, 1))
try:
    rt.matmul(a, torch.Tensor((128, 256), (256, 1), 400, 0))
except ValueError as e:
    print(e)
for out in (torch.Tensor((64, 255), (256, 1), 600, 1), torch.Tensor((64, 256), (1, 64), 600, 1),
            torch.Tensor((64, 256), (256, 1), 600, 0)):
    try:
        rt.matmul(a, weight.t(), out=out)
    except ValueError as e:
        print(e)
for call in calls:
    print(call)
)");
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.out,
            "cl2tune.matmul takes CUDA tensors on one device\n"
            "cl2tune.matmul: out must be a (64, 256) float16 CUDA tensor on a's device with contiguous rows\n"
            "cl2tune.matmul: out must be a (64, 256) float16 CUDA tensor on a's device with contiguous rows\n"
            "cl2tune.matmul: out must be a (64, 256) float16 CUDA tensor on a's device with contiguous rows\n"
            "(0, 0, 64, 256, 128, 100, 128, 200, 136, 7777, 256, 1001)\n"
            "(1, 0, 64, 256, 128, 100, 128, 300, 264, 7777, 256, 1001)\n"
            "(0, 0, 64, 256, 128, 100, 128, 200, 136, 500, 272, 1001)\n");
}

// Runtime.time: the arguments matmul would pack reach cl2_time_gemm_packed, and the cl2_timing it
// fills comes back as a dict; an empty product has no time to take.
TEST(RuntimePython, TimeHandsThePackedArgumentsAndReturnsTheTiming) {
  cl2_test::ScratchDir dir;
  if (!python_has(dir, "ctypes")) GTEST_SKIP() << "no python3 with ctypes";
  const auto r = run_python(dir, standin_prelude(dir, R"(
    def cl2_time_gemm_packed(self, address, timing):
        print(cl2tune._GEMM_ARGS.unpack(ctypes.string_at(address, cl2tune._GEMM_ARGS.size)))
        t = timing._obj
        t.median_us, t.min_us, t.max_us, t.samples, t.calls_per_sample = 12.5, 12.0, 14.0, 30, 24
        return 0
)") + R"(a = torch.Tensor((64, 128), (128, 1), 100, 1)
weight = torch.Tensor((256, 128), (136, 1), 200, 1)
timing = rt.time(a, weight.t())
print(timing["median_us"], timing["min_us"], timing["max_us"], timing["samples"], timing["calls_per_sample"],
      timing["throttled_rounds"], "reserved" in timing)
try:
    rt.time(torch.Tensor((0, 128), (128, 1), 100, 1), weight.t())
except ValueError as e:
    print(e)
)");
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.out,
            "(4242, 0, 0, 64, 256, 128, 100, 128, 200, 136, 7777, 256, 1001)\n"
            "12.5 12.0 14.0 30 24 0 False\n"
            "cl2tune.time: M, N and K must be at least 1\n");
}

// Runtime.routed(): F.linear goes through cl2_gemm, or with an fp16 bias of N values on its
// device through cl2_gemm_bias (the bias added in the kernel's epilogue); any other bias stays
// with torch's F.linear.
TEST(RuntimePython, LinearHandsItsBiasToTheLibrary) {
  cl2_test::ScratchDir dir;
  if (!python_has(dir, "ctypes")) GTEST_SKIP() << "no python3 with ctypes";
  const auto r = run_python(dir, standin_prelude(dir, R"(
    def cl2_gemm_packed(self, address):
        print("cl2_gemm", shape_of(address))
        return 0
    def cl2_gemm_bias_packed(self, address, bias):
        print("cl2_gemm_bias", shape_of(address), bias)
        return 0
)") + R"(
def shape_of(address):
    return cl2tune._GEMM_ARGS.unpack(ctypes.string_at(address, cl2tune._GEMM_ARGS.size))[3:6]
x = torch.Tensor((64, 128), (128, 1), 100, 1)
weight = torch.Tensor((512, 128), (128, 1), 200, 1)
with rt.routed():
    for bias in (None, torch.Tensor((512,), (1,), 900, 1), torch.Tensor((512,), (1,), 901, 0),
                 torch.Tensor((256,), (1,), 902, 1), torch.Tensor((512,), (2,), 903, 1)):
        torch.nn.functional.linear(x, weight, bias)
)");
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.out,
            "cl2_gemm (64, 512, 128)\n"
            "cl2_gemm_bias (64, 512, 128) 900\n"
            "torch linear (64, 128) (512, 128) 901\n"
            "torch linear (64, 128) (512, 128) 902\n"
            "torch linear (64, 128) (512, 128) 903\n");
}

namespace {

// A bundle tuned on no GPU, written to `dir`/b: the runtime takes cuBLASLt for every call (with a
// warning), which is enough to check the package's strides, layouts, stream and graph capture; the
// kernels' own results are the C API test's.
std::string library_only_bundle(const cl2_test::ScratchDir& dir) {
  DispatchTable table;
  table.device = cl2::test::test_device("NVIDIA Imaginary 9000");
  write_bundle(make_bundle(table, [](const DispatchEntry&) { return BundleKernel{}; }), dir.path() / "b");
  return dir.file("b");
}

// A Python script that opens `rt`, libcl2 over that bundle, seeds torch, then runs `body`.
std::string with_library_runtime(const cl2_test::ScratchDir& dir, const std::string& body) {
  return "import torch, cl2tune\nrt = cl2tune.Runtime(\"" + library_only_bundle(dir) +
         "\", library_fallback=True)\ntorch.manual_seed(0)\n" + body;
}

}  // namespace

TEST(RuntimePythonGpu, MatmulMatchesTorch) {
  CL2_REQUIRE_GPU();
  cl2_test::ScratchDir dir;
  if (!python_has(dir, "torch")) GTEST_SKIP() << "PyTorch is not installed";
  const auto r = run_python(dir, with_library_runtime(dir, R"(
for m, n, k in [(1, 4096, 4096), (777, 512, 4096), (64, 12288, 64)]:
    a = torch.rand(m, k, device="cuda", dtype=torch.float16) - 0.5
    w = torch.rand(n, k, device="cuda", dtype=torch.float16) - 0.5
    for b in (w.t(), w.t().contiguous()):
        got, want = rt.matmul(a, b), torch.matmul(a.float(), b.float())
        assert (got.float() - want).abs().max().item() < 0.05 * k ** 0.5 / 8, (m, n, k)
        padded = torch.zeros(m, n + 8, device="cuda", dtype=torch.float16)
        rt.matmul(a, b, out=padded[:, :n])
        assert torch.equal(padded[:, :n], got) and not padded[:, n:].any(), (m, n, k)
    bias = torch.rand(n, device="cuda", dtype=torch.float16) - 0.5
    with rt.routed():
        y = torch.nn.functional.linear(a, w)
        y_bias = torch.nn.functional.linear(a, w, bias)
    assert (y.float() - a.float() @ w.float().t()).abs().max().item() < 0.05 * k ** 0.5 / 8
    assert (y_bias.float() - a.float() @ w.float().t() - bias.float()).abs().max().item() < 0.05 * k ** 0.5 / 8
timing = rt.time(a, w.t(), out=got)
assert timing["samples"] >= 15 and 0 < timing["min_us"] <= timing["median_us"] <= timing["max_us"], timing
assert torch.equal(got, rt.matmul(a, w.t())), "C after the timing is the product"
print("ok")
)"));
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.out, "ok\n");
}

// torch_demo.py --graphs and cl2tune_percall.py capture routed calls into a CUDA graph with
// cl2tune.capture_graph: warmed up on the capture's stream, a routed call records into the graph,
// and a replay computes on the inputs of its time.
TEST(RuntimePythonGpu, RoutedCallsReplayInACudaGraph) {
  CL2_REQUIRE_GPU();
  cl2_test::ScratchDir dir;
  if (!python_has(dir, "torch")) GTEST_SKIP() << "PyTorch is not installed";
  const auto r = run_python(dir, with_library_runtime(dir, R"(
a = torch.rand(16, 4096, device="cuda", dtype=torch.float16) - 0.5
w = torch.rand(4096, 4096, device="cuda", dtype=torch.float16) - 0.5
def routed_linear():
    with rt.routed():
        return torch.nn.functional.linear(a, w)
graph, y = cl2tune.capture_graph(routed_linear)
a.copy_(torch.rand_like(a) - 0.5)
graph.replay()
torch.cuda.synchronize()
assert (y.float() - a.float() @ w.float().t()).abs().max().item() < 0.05 * 4096 ** 0.5 / 8
print("ok")
)"));
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.out, "ok\n");
}

// The Llama block (the default) is 8H/3 wide rounded up to a multiple of 256, the GELU block 4H.
TEST(RuntimePython, TorchDemoWritesTheShapesItCalls) {
  cl2_test::ScratchDir dir;
  const auto shapes_of = [&](const std::string& options) {
    const auto r = cl2_test::run_command("python3 " + cl2_test::source_path("scripts/torch_demo.py") +
                                             " --shapes-out " + dir.file("mlp.json") + " --tokens 1,16 --hidden 96" +
                                             options,
                                         dir);
    EXPECT_EQ(r.status, 0) << r.err;
    return nlohmann::json::parse(cl2_test::read_all(dir.file("mlp.json")));
  };
  EXPECT_EQ(shapes_of(""), nlohmann::json::parse(R"([{"m": 1, "n": 256, "k": 96}, {"m": 1, "n": 96, "k": 256},
                                                     {"m": 16, "n": 256, "k": 96}, {"m": 16, "n": 96, "k": 256}])"));
  EXPECT_EQ(shapes_of(" --block gelu"),
            nlohmann::json::parse(R"([{"m": 1, "n": 384, "k": 96}, {"m": 1, "n": 96, "k": 384},
                                     {"m": 16, "n": 384, "k": 96}, {"m": 16, "n": 96, "k": 384}])"));
}

TEST(RuntimePython, PerCallCheckNamesABadBenchCsv) {
  cl2_test::ScratchDir dir;
  const auto r = cl2_test::run_command("python3 " + cl2_test::source_path("scripts/cl2tune_percall.py") +
                                           " --db " + dir.file("any.sqlite") + " --shapes " +
                                           cl2_test::source_path("configs/shapes/quickstart.json") +
                                           " --bench-csv " + dir.file("missing.csv"),
                                       dir);
  EXPECT_EQ(r.status, 2) << r.err;
  EXPECT_EQ(cl2_test::line_count(r.err), 1) << r.err;
  CL2_EXPECT_CONTAINS(r.err, "cl2tune_percall: " + dir.file("missing.csv") + ": cannot read bench's per-call figures");
}

TEST(RuntimePython, RuntimeCheckRefusesAMissingBaseDb) {
  cl2_test::ScratchDir dir;
  const auto r = cl2_test::run_command("OUT=" + dir.file("out") + " BASE_DB=" + dir.file("missing.sqlite") +
                                           " STEPS=direct bash " + cl2_test::source_path("scripts/runtime-check.sh"),
                                       dir);
  EXPECT_EQ(r.status, 2) << r.err;
  CL2_EXPECT_CONTAINS(r.err, "BASE_DB=" + dir.file("missing.sqlite") + ": no such file");
}
