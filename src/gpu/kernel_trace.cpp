#include "gpu/kernel_trace.hpp"

#include <cxxabi.h>
#include <fmt/format.h>

#include <cstddef>
#include <cstdlib>
#include <memory>
#include <mutex>
#include <optional>
#include <utility>
#include <vector>

#include "core/kernel_activity.hpp"
#include "gpu/cuda_check.hpp"
#include "gpu/cuda_event.hpp"
#include "gpu/stream_gate.hpp"

namespace cl2 {

namespace {

// Enough for thousands of kernel records; a traced sample launches at most a few hundred calls of
// a handful of kernels each, and CUPTI asks for another buffer when one fills.
constexpr std::size_t kBufferBytes = 1 << 20;
constexpr std::size_t kBufferAlignment = 8;  // CUPTI's requirement for activity buffers

// The records are read through CUpti_ActivityKernel10 (this toolkit's), but an older CUPTI loaded
// at run time writes its own version. Every version extends the last at the end, so the fields
// read here sit at the same offsets in all of them.
static_assert(offsetof(CUpti_ActivityKernel9, name) == offsetof(CUpti_ActivityKernel10, name));
static_assert(offsetof(CUpti_ActivityKernel9, streamId) == offsetof(CUpti_ActivityKernel10, streamId));
static_assert(offsetof(CUpti_ActivityKernel9, start) == offsetof(CUpti_ActivityKernel10, start));

// CUPTI hands its buffers back through C callbacks without a user pointer, so what they deliver
// goes to this one collector of the process; traces run one at a time.
struct Collector {
  std::mutex mutex;
  const CuptiApi* api = nullptr;
  std::vector<KernelActivity> records;
};

Collector& collector() {
  static Collector instance;
  return instance;
}

std::string demangled(const char* name) {
  if (!name) return "(unnamed kernel)";
  int status = 0;
  const std::unique_ptr<char, decltype(&std::free)> plain(abi::__cxa_demangle(name, nullptr, nullptr, &status),
                                                          &std::free);
  return status == 0 && plain ? std::string(plain.get()) : std::string(name);
}

void CUPTIAPI buffer_requested(uint8_t** buffer, size_t* size, size_t* max_records) {
  *buffer = static_cast<uint8_t*>(std::aligned_alloc(kBufferAlignment, kBufferBytes));
  *size = *buffer ? kBufferBytes : 0;
  *max_records = 0;  // as many as fit
}

void CUPTIAPI buffer_completed(CUcontext, uint32_t, uint8_t* buffer, size_t, size_t valid_bytes) {
  Collector& c = collector();
  {
    const std::lock_guard lock(c.mutex);
    CUpti_Activity* record = nullptr;
    while (c.api->activity_get_next_record(buffer, valid_bytes, &record) == CUPTI_SUCCESS) {
      if (record->kind != CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL) continue;
      const auto* k = reinterpret_cast<const CUpti_ActivityKernel10*>(record);
      c.records.push_back({demangled(k->name), k->streamId, {k->gridX, k->gridY, k->gridZ},
                           {k->blockX, k->blockY, k->blockZ}, k->start, k->end});
    }
  }
  std::free(buffer);
}

std::vector<KernelActivity> take_records() {
  Collector& c = collector();
  const std::lock_guard lock(c.mutex);
  return std::exchange(c.records, {});
}

// Kernel records are on from construction to destruction: only around the traced launches, so the
// timed launches run without CUPTI's overhead.
class KernelRecordsOn {
 public:
  explicit KernelRecordsOn(const CuptiApi& api) : api_(api) {}
  CUptiResult enable() {
    const CUptiResult status = api_.activity_enable(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL);
    enabled_ = status == CUPTI_SUCCESS;
    return status;
  }
  ~KernelRecordsOn() {
    if (!enabled_) return;
    api_.activity_disable(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL);
    api_.activity_flush_all(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);  // delivers every record to the collector
  }
  KernelRecordsOn(const KernelRecordsOn&) = delete;
  KernelRecordsOn& operator=(const KernelRecordsOn&) = delete;

 private:
  const CuptiApi& api_;
  bool enabled_ = false;
};

}  // namespace

CallTrace KernelTracer::trace(cudaStream_t stream, const std::function<void(cudaStream_t)>& launches, int calls,
                              bool hold_until_enqueued, int lead_in) {
  if (!cupti_) cupti_ = &cupti_library();
  if (!cupti_->api) return absent_trace(cupti_->unavailable);
  if (!refused_.empty()) return absent_trace(refused_);
  const CuptiApi& api = *cupti_->api;
  if (!callbacks_registered_) {
    collector().api = &api;
    if (const CUptiResult status = api.activity_register_callbacks(buffer_requested, buffer_completed);
        status != CUPTI_SUCCESS) {
      refused_ = cupti_refusal(api, "cuptiActivityRegisterCallbacks", status);
      return absent_trace(refused_);
    }
    callbacks_registered_ = true;
  }
  const int passes = hold_until_enqueued ? lead_in + 1 : 1;  // the lead-in runs only where held
  std::uint32_t given_stream = 0;
  double pass_us = 0;
  {
    KernelRecordsOn records(api);
    if (const CUptiResult status = records.enable(); status != CUPTI_SUCCESS) {
      refused_ = cupti_refusal(api, "cuptiActivityEnable", status);
      return absent_trace(refused_);
    }
    CL2_CUDA(cudaDeviceSynchronize());  // nothing launched earlier may overlap the traced kernels
    take_records();  // anything left from a trace that threw
    if (const CUptiResult status = api.get_stream_id_ex(nullptr, reinterpret_cast<CUstream>(stream), 0, &given_stream);
        status != CUPTI_SUCCESS) {
      refused_ = cupti_refusal(api, "cuptiGetStreamIdEx", status);
      return absent_trace(refused_);
    }
    const Event pass_start, pass_stop;
    std::optional<StreamGate> gate;
    if (hold_until_enqueued) gate.emplace(stream);
    for (int i = 1; i < passes; ++i) launches(stream);
    CL2_CUDA(cudaEventRecord(pass_start.get(), stream));
    launches(stream);
    CL2_CUDA(cudaEventRecord(pass_stop.get(), stream));
    if (gate) gate->release();
    CL2_CUDA(cudaDeviceSynchronize());
    pass_us = 1000.0 * elapsed_ms(pass_start, pass_stop);
  }
  std::vector<KernelActivity> records = last_pass(take_records(), passes);
  if (records.empty()) return absent_trace("CUPTI recorded no kernel of the call");
  const double span = span_us(records);
  CallTrace trace = trace_of_calls(std::move(records), given_stream, calls);
  trace.sample_pass = PassTiming{pass_us, trace.duration_us(), span};
  return trace;
}

}  // namespace cl2
