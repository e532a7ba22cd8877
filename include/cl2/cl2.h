/* libcl2: the runtime library of cuda-l2-tune. It opens what `cuda-l2-tune tune` measured (a
 * tuning database, a bundle written by `export --format bundle`, or a header written by `export
 * --format cpp`) and computes each fp16 GEMM with the kernel that won for its shape, the winner of
 * a nearby tuned shape that timed fastest at its first call among those the cost model ranks
 * first, or cuBLASLt (README.md, "The runtime library").
 *
 * C = A * B: A row-major M x K (lda), C row-major M x N (ldc), B column-major for CL2_LAYOUT_TN
 * (N rows of K, ldb) or row-major K x N for CL2_LAYOUT_NN; all fp16, accumulated in fp32 or fp16.
 * Every function returns a status; on failure cl2_last_error() says why in one line (per thread).
 * The library never links libcuda: on a machine without a driver cl2_open fails with
 * CL2_ERROR_NO_DEVICE instead of the process failing to load. */
#ifndef CL2_CL2_H
#define CL2_CL2_H

#include <stddef.h>
#include <stdint.h>

#if defined(__GNUC__)
#define CL2_API __attribute__((visibility("default")))
#else
#define CL2_API
#endif

#ifdef __cplusplus
extern "C" {
#endif

typedef enum cl2_status {
  CL2_SUCCESS = 0,
  CL2_ERROR_INVALID_ARGUMENT = 1, /* null handle or pointer, size <= 0, leading dimension too small */
  CL2_ERROR_NO_DEVICE = 2,        /* no driver or no GPU */
  CL2_ERROR_DEVICE_MISMATCH = 3,  /* tuned on another GPU or architecture (see CL2_OPEN_LIBRARY_FALLBACK) */
  CL2_ERROR_BAD_INPUT_FILE = 4,   /* missing, unreadable or corrupt database or bundle */
  CL2_ERROR_CUDA = 5,             /* a CUDA, driver or cuBLASLt call failed */
  CL2_ERROR_INTERNAL = 6
} cl2_status;

typedef enum cl2_layout { CL2_LAYOUT_TN = 0, CL2_LAYOUT_NN = 1 } cl2_layout;
typedef enum cl2_accum { CL2_ACCUM_F32 = 0, CL2_ACCUM_F16 = 1 } cl2_accum;

/* cl2_open_with_options flags. */
enum {
  /* Tuned on another GPU: open anyway, print one warning to stderr, and compute every GEMM with
   * cuBLASLt (instead of failing with CL2_ERROR_DEVICE_MISMATCH). */
  CL2_OPEN_LIBRARY_FALLBACK = 1u << 0,
  /* Run the cost model's first choice for an untuned shape without timing any at its first call.
   * Without it, the first call of an untuned shape (per handle, shape, layout and accumulation)
   * times the model's first CL2_FIRST_CALL_TIMING choices (default 3, 0 to 16, 0 for none; read at
   * open, a bad value is CL2_ERROR_INVALID_ARGUMENT) on its own operands and stream, 5 rounds each,
   * waits for them, and keeps the fastest; C is that kernel's result. Opened from a tuning
   * database (not a bundle), the first call also compiles (through the kernel cache) and times the
   * first CL2_PLANNED_CANDIDATES configurations tune would plan at the shape itself (default 2, 0
   * to 8, 0 for none; read at open likewise). Inside a CUDA graph capture nothing is timed: the
   * model's first runs, and the first call outside one decides. */
  CL2_OPEN_NO_FIRST_CALL_TIMING = 1u << 1,
  /* The caller promises that no kernel writes a GEMM's B (a model's weights) just before the GEMM
   * on its stream. Kernels tuned with PDL=1 (under --l2 rotate) are then launched with
   * programmatic dependent launch: they start while the previous kernel of the stream finishes and
   * request their first weight tiles before waiting for it (A and C only after). Without this flag
   * every kernel waits for the previous one, since it may have written B. */
  CL2_OPEN_WEIGHTS_READ_ONLY = 1u << 2
};

typedef struct cl2_handle cl2_handle;

/* A kernel of a header written by `export --format cpp`: its cubin, by the key table_json uses. */
typedef struct cl2_embedded_kernel {
  const char* key;
  const unsigned char* cubin;
  size_t cubin_bytes;
} cl2_embedded_kernel;

typedef struct cl2_embedded_bundle {
  const char* table_json;
  size_t table_json_bytes;
  const cl2_embedded_kernel* kernels;
  size_t kernel_count;
} cl2_embedded_bundle;

/* Opens a tuning database (a file) or a bundle (a folder with table.json) for the current CUDA
 * device; GEMMs through the handle run on that device. */
CL2_API cl2_status cl2_open(const char* path, cl2_handle** handle);
CL2_API cl2_status cl2_open_with_options(const char* path, unsigned flags, cl2_handle** handle);
/* Opens the table and cubins compiled into a program (`export --format cpp`). */
CL2_API cl2_status cl2_open_embedded(const cl2_embedded_bundle* bundle, unsigned flags, cl2_handle** handle);
/* Frees the handle's modules, workspaces and cuBLASLt state; null is allowed. Call it before the
 * CUDA context is destroyed and after the handle's GEMMs have finished. */
CL2_API void cl2_close(cl2_handle* handle);

/* Enqueues C = A * B on `stream` (a cudaStream_t; null is the default stream). Thread-safe. */
CL2_API cl2_status cl2_gemm(cl2_handle* handle, cl2_layout layout, cl2_accum accum, int64_t m, int64_t n,
                            int64_t k, const void* a, int64_t lda, const void* b, int64_t ldb, void* c,
                            int64_t ldc, void* stream);

/* C = A * B + bias, as torch.nn.functional.linear: `bias` holds N fp16 values added to every row
 * of C (not null). Our kernel adds it to its accumulators before it writes C: the winner's bias
 * twin, the same configuration compiled with the bias, through the kernel cache at its first use
 * (opened from a database) or exported beside the winner (a bundle or an embedded header); where
 * there is none (a bundle exported before twins existed), the call goes to cuBLASLt, whose
 * epilogue adds it. A shape's route is otherwise cl2_gemm's; an untuned shape's first call times
 * the kernels without the bias. Thread-safe. */
CL2_API cl2_status cl2_gemm_bias(cl2_handle* handle, cl2_layout layout, cl2_accum accum, int64_t m, int64_t n,
                                 int64_t k, const void* a, int64_t lda, const void* b, int64_t ldb,
                                 const void* bias, void* c, int64_t ldc, void* stream);

/* cl2_gemm's arguments as one struct, for callers that pay per argument passed: Python's ctypes
 * converts cl2_gemm's 13 arguments in about 2.8 us, one pointer in 0.5 (python/cl2tune packs this
 * struct as "@PiiqqqPqPqPqP", 96 bytes). */
typedef struct cl2_gemm_args {
  cl2_handle* handle;
  int32_t layout; /* a cl2_layout */
  int32_t accum;  /* a cl2_accum */
  int64_t m, n, k;
  const void* a;
  int64_t lda;
  const void* b;
  int64_t ldb;
  void* c;
  int64_t ldc;
  void* stream;
} cl2_gemm_args;
/* cl2_gemm with the arguments `args` holds (read before it returns). Thread-safe. */
CL2_API cl2_status cl2_gemm_packed(const cl2_gemm_args* args);
/* cl2_gemm_bias with the arguments `args` holds and `bias`. Thread-safe. */
CL2_API cl2_status cl2_gemm_bias_packed(const cl2_gemm_args* args, const void* bias);
/* Per-call GPU time of a GEMM, as cl2_time_gemm_packed measured it. */
typedef struct cl2_timing {
  double median_us, min_us, max_us; /* per call, over the samples */
  double spread_pct;                /* 100 * stdev / mean of the samples */
  double sm_clock_mhz;              /* median SM clock over the kept samples; 0 without NVML */
  int32_t samples;                  /* graph replays timed */
  int32_t calls_per_sample;         /* calls captured into the graph */
  int32_t throttled_rounds;         /* replays discarded because the GPU ran throttled */
  int32_t reserved;
} cl2_timing;
/* Times the GEMM `args` describes as `cuda-l2-tune bench` times its offline GPU figure, in the
 * calling process: it waits for args->stream, makes the call once, captures it into a CUDA graph
 * as many times as fill about 300 us (on a stream the handle keeps for timing), and replays the
 * graph between events until the median is known to 0.2% (at least 15 replays and 20 ms, at most
 * 0.6 s), discarding replays the GPU ran throttled. Blocks until done (about 0.1 to 1 s); C is
 * overwritten. Not while args->stream is being captured (CL2_ERROR_INVALID_ARGUMENT). Thread-safe;
 * a handle's timings run one at a time. */
CL2_API cl2_status cl2_time_gemm_packed(const cl2_gemm_args* args, cl2_timing* timing);
/* What cl2_gemm would run for a problem with tight leading dimensions and aligned pointers, as one
 * line ("ours exact: sm90 ACC_CHAINS=1 ...", "ours nearest (tuned at 4096x12288x1024: winner 9 of
 * the 12 nearest, model-ranked 2nd at 140.0 us): sm90 ...; first-call timing of the model's first
 * 3 (median of 5): 131.2, 128.0 (chosen), 135.9 us" (before the first call: "...; first-call
 * timing of the model's first 3 pending ..."), "cublaslt recorded: algo 66 ...", "cublaslt
 * heuristic: <why>"), written to `text` (truncated to `size` bytes, NUL-ended; 1024 hold it). */
CL2_API cl2_status cl2_describe(cl2_handle* handle, cl2_layout layout, cl2_accum accum, int64_t m, int64_t n,
                                int64_t k, char* text, size_t size);

/* The calling thread's last error message ("" when none); valid until its next call. */
CL2_API const char* cl2_last_error(void);
CL2_API const char* cl2_status_name(cl2_status status);

#ifdef __cplusplus
}
#endif

#endif /* CL2_CL2_H */
