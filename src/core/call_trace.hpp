#pragma once
// What one call put on the GPU, as CUPTI's kernel records saw it during a traced pass
// (gpu/kernel_trace): each kernel it launched, where, how often and for how long. Plain data (no
// CUDA header), because the worker protocol, the database and the exports carry it on machines
// without a GPU. Also the judgement the tuner makes with it: whether the call's event time can be
// trusted (timing_flag).
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

struct CallTrace {
  std::vector<TracedKernel> kernels;  // in the order of their first launch
  std::string absent;                 // why there is no trace (no CUPTI, no permission...); empty when traced
  bool operator==(const CallTrace&) const = default;

  bool traced() const { return absent.empty(); }
  double duration_us() const;  // every kernel's, summed
  std::vector<std::string> kernel_names() const;  // each distinct name once, in launch order
};

// A trace whose kernels are unknown, and why.
CallTrace absent_trace(std::string reason);

// Kernel names joined by `separator`: "nvjet_..._splitK_TNN + splitKreduce_kernel".
std::string join_kernel_names(const std::vector<std::string>& names, std::string_view separator);

// Why a call's event time does not account for what it ran, or "" when it does (or when there is
// no trace to judge by): a kernel launched on a stream other than the one it was given, or event
// GPU time per call below its traced kernels' summed duration by more than kTraceTolerance.
std::string timing_flag(double event_us_per_call, const CallTrace& trace);

// The tolerance of that comparison. The trace is one launch run on its own after the timing rounds,
// the event time a median over back-to-back graph replays, and a lone launch runs slower: on the
// H200 the traced launch of correct kernels took 3-10% longer than the event time per call (ours
// 211.7 against 192.1 us on 3000x4096x4096, 2.91 against 2.73 us on 256x256x256; cuBLAS 26.9
// against 26.0 us), which a 3% margin failed as missed work. Work on another stream is caught
// exactly by the stream check; this catches gross misses (kernels that event timing reports
// several times too fast) without failing correct ones.
inline constexpr double kTraceTolerance = 0.25;

// {"kernels": [...]} or {"absent": "why"}; call_trace_from_json throws nlohmann::json::exception
// for a missing or mistyped field.
nlohmann::json to_json(const CallTrace& trace);
CallTrace call_trace_from_json(const nlohmann::json& j);
// The trace at `key` of `object`; nullopt where the key is missing or null (written before traces
// were recorded, or by a call that was not traced).
std::optional<CallTrace> call_trace_at(const nlohmann::json& object, const std::string& key);

}  // namespace cl2
