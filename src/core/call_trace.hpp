#pragma once
// What a call put on the GPU, as CUPTI's kernel records saw it during a traced pass
// (gpu/kernel_trace) of `calls` back-to-back calls: each kernel they launched, where, how often
// and for how long. Plain data (no CUDA header), because the worker protocol, the database and the
// exports carry it on machines without a GPU. Also the judgement the tuner makes with it: whether
// the call's event time can be trusted (timing_flag).
#include <array>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace cl2 {

// The launches of one kernel in one traced call, grouped by name, stream and geometry.
struct TracedKernel {
  std::string name;                // demangled where it was a mangled C++ name
  std::uint32_t stream_id = 0;     // CUPTI's id of the stream it ran on
  bool on_given_stream = true;     // that stream is the one the call was given
  std::array<int, 3> grid{}, block{};
  int launches = 0;
  double duration_us = 0;          // summed over its launches
  bool operator==(const TracedKernel&) const = default;
};

// One traced pass of a call's `calls` back-to-back launches, timed by two events on the given
// stream around it and by CUPTI's kernel records within it, the same launches at the same clocks:
// the kernels' summed time (busy), and the window from the first kernel's start to the last one's
// end (span). Events see the span and a little more (the first launch's start and the last one's
// end); busy is below the span by the gaps between kernels.
struct PassTiming {
  double event_us = 0;
  double kernel_us = 0;
  double span_us = 0;  // 0: not measured (passes stored before it was)
  bool operator==(const PassTiming&) const = default;
};

// The launches `longer` has beyond `shorter`, two traced replays of the same call's graph, of 2n
// and n launches: what each replay costs once, wherever it falls, drops out. Traced, a replay's
// events ran a near-constant 5-7 us above CUPTI's span of it (H200 and H100, with or without a
// replay before it), 5-16% of a replay of 2-6 us calls, which this difference leaves out.
PassTiming pass_difference(const PassTiming& longer, const PassTiming& shorter);

struct CallTrace {
  std::vector<TracedKernel> kernels;  // in the order of their first launch
  std::string absent;                 // why there is no trace (no CUPTI, no permission...); empty when traced
  // The back-to-back calls the kernels are of: as many as one timed sample launches. 1 in traces
  // recorded before the traced pass replayed a sample (one launch alone).
  int calls = 1;
  // The calls launched as one timed sample launches them (a graph replay; under the flush policy
  // one launch after the flush), traced and timed: where the kernels' time is held against event
  // time without the clock drift between a timed sample and the trace. nullopt where that pass was
  // not made (a kernel ran on another stream, whose graph capture would differ) or in traces
  // recorded before it was.
  std::optional<PassTiming> sample_pass{};
  bool operator==(const CallTrace&) const = default;

  bool traced() const { return absent.empty(); }
  double duration_us() const;  // every kernel's, summed over all the calls
  double kernel_us_per_call() const { return duration_us() / calls; }
  std::vector<std::string> kernel_names() const;  // each distinct name once, in launch order
};

// A trace whose kernels are unknown, and why.
CallTrace absent_trace(std::string reason);

// Kernel names joined by `separator`: "nvjet_..._splitK_TNN + splitKreduce_kernel".
std::string join_kernel_names(const std::vector<std::string>& names, std::string_view separator);

// Why a call's event time does not account for what it ran, or "" when it does (or when there is
// no trace to judge by): a kernel launched on a stream other than the one it was given, or event
// GPU time per call below its traced kernels' duration per call by more than kTraceTolerance.
std::string timing_flag(double event_us_per_call, const CallTrace& trace);

// The tolerance of that comparison. The traced pass launches the call as one timed sample does
// (the same number of back-to-back launches, the same operand rotation), so a correct call's
// event time per call is its kernels' time plus the gaps between them: at or above the traced
// time, but for the drift between two passes of the same call, and that drift is large where the
// GPU sits at its power cap: in bench --trace-kernels on 25 grid-125 shapes on the H200, the traced
// pass of correct compute-bound calls (ours and cuBLAS's alike) ran up to 17% longer than their
// event time (1024x12288x12288: 496 us per call timed, 595 us traced; 4096x12288x12288 12%), while
// small calls came out 3-17% below it (the gaps between kernels count in events only). A 10%
// margin flagged four correct winners there; 25% clears that drift, while a call whose events miss
// a quarter of its work or more is caught (the published kernels this is for hid 67-86%). Work on
// another stream is caught exactly by the stream check whatever the times.
inline constexpr double kTraceTolerance = 0.25;

// {"kernels": [...], "calls": n, "sample_pass": {"event_us": e, "kernel_us": k, "span_us": s}} or
// {"absent": "why"}; call_trace_from_json throws nlohmann::json::exception for a missing or
// mistyped field, and reads a trace without "calls" (recorded before it was) as one call, one
// without "sample_pass" as without that pass, and a pass without "span_us" (recorded before it was)
// with a span of 0, unmeasured.
nlohmann::json to_json(const CallTrace& trace);
CallTrace call_trace_from_json(const nlohmann::json& j);
// The trace at `key` of `object`; nullopt where the key is missing or null (written before traces
// were recorded, or by a call that was not traced).
std::optional<CallTrace> call_trace_at(const nlohmann::json& object, const std::string& key);

}  // namespace cl2
