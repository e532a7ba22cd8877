#include "measure/problem_measurement.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <stdexcept>

#include "core/verification.hpp"
#include "gpu/call_graph.hpp"
#include "gpu/cuda_check.hpp"

namespace cl2 {

namespace {

Layout other_layout(Layout layout) { return layout == Layout::TN ? Layout::NN : Layout::TN; }

}  // namespace

ProblemMeasurement::ProblemMeasurement(GpuContext& gpu, const Problem& problem)
    : gpu_(gpu),
      buffers_(make_problem_buffers(problem, gpu.device, gpu.utility, gpu.cublas, gpu.stream)),
      checker_(*buffers_, gpu.utility, gpu.stream) {}

TimedCall ProblemMeasurement::rotated(const std::function<TimedCall(int slot)>& call_on) const {
  TimedCall call = call_on(0);
  for (const int slot : buffers_->rotation_slots()) call.rotation.push_back(call_on(slot).launch);
  return call;
}

ProviderCall ProblemMeasurement::slot_call(Provider provider, const SlotLaunch& launch) const {
  return {provider, rotated([&](int slot) {
            return TimedCall{std::string(to_string(provider)), [launch, slot](cudaStream_t s) { launch(s, slot); }, {}};
          })};
}

ProblemMeasurement::SlotLaunch ProblemMeasurement::slot_launch(BufferGemm gemm) const {
  // Pointers are read here, not per launch: a captured or timed call does no lookups of its own.
  std::vector<GemmOperands> slots;
  for (int slot = 0; slot < buffers_->slot_count(); ++slot) slots.push_back(gemm_operands(*buffers_, slot));
  return [gemm = std::move(gemm), slots = std::move(slots)](cudaStream_t s, int slot) {
    gemm(slots.at(std::size_t(slot)), s);
  };
}

ProviderCall ProblemMeasurement::kernel_call(const PreparedKernel& kernel) const {
  return slot_call(Provider::Ours, [&kernel](cudaStream_t s, int slot) { kernel.launch(s, slot); });
}

ProviderCall ProblemMeasurement::gemm_call(Provider provider, BufferGemm gemm) const {
  return slot_call(provider, slot_launch(std::move(gemm)));
}

void ProblemMeasurement::warm_up(const BufferGemm& gemm) const {
  const SlotLaunch launch = slot_launch(gemm);
  for (int slot = 0; slot < buffers_->slot_count(); ++slot) launch(gpu_.stream, slot);
  CL2_CUDA(cudaStreamSynchronize(gpu_.stream));
}

std::array<double, 2> ProblemMeasurement::max_abs_reference() const {
  return {buffers_->sets[0].max_abs_ref, buffers_->sets[1].max_abs_ref};
}

std::unique_ptr<PreparedKernel> ProblemMeasurement::prepare_kernel(const std::string& cubin_path,
                                                                  const LaunchGeometry& launch) const {
  return std::make_unique<PreparedKernel>(cubin_path, launch, *buffers_);
}

double ProblemMeasurement::max_diff(const TimedCall& call) const { return checker_.max_diff(call.launch, 0); }

Verification ProblemMeasurement::verify(const PreparedKernel& kernel) const {
  return verify_slots([&kernel](cudaStream_t s, int slot) { kernel.launch(s, slot); });
}

Verification ProblemMeasurement::verify_first_set(const PreparedKernel& kernel) const {
  return verify_slots([&kernel](cudaStream_t s, int slot) { kernel.launch(s, slot); }, 1);
}

Verification ProblemMeasurement::verify(const BufferGemm& gemm) const { return verify_slots(slot_launch(gemm)); }

Verification ProblemMeasurement::verify_slots(const SlotLaunch& launch, int input_sets) const {
  Verification worst{true, 0, 0, ""};
  for (int set = 0; set < input_sets; ++set) {  // input set i is operand slot i
    const double diff = checker_.max_diff([&](cudaStream_t s) { launch(s, set); }, set);
    // The hash is for verify_again, which only a full check (both sets) is followed by.
    if (set == 0 && input_sets > 1) worst.output_hash = checker_.output_hash();
    const double tol = checker_.tolerance(set);
    if (!passes_verification(diff, tol)) {
      const float half_range = buffers_->sets[std::size_t(set)].scale / 2;
      return {false, diff, tol,
              fmt::format("max_diff {:.4g} above tolerance {:.4g} on input set {} (uniform in [-{}, {}])", diff,
                          tol, set + 1, half_range, half_range)};
    }
    if (diff / tol >= worst.max_diff / std::max(worst.tolerance, 1e-30)) {
      worst.max_diff = diff;
      worst.tolerance = tol;
    }
  }
  return worst;
}

Verification ProblemMeasurement::verify_again(const PreparedKernel& kernel, const Verification& verified,
                                              long long launches) const {
  const double again = max_diff(kernel_call(kernel).call);
  const double tol = tolerance();
  if (!passes_verification(again, tol))
    return {false, again, tol,
            fmt::format("right on the first launch, max_diff {:.4g} after {} more", again, launches)};
  if (checker_.output_hash() != verified.output_hash)
    return {false, again, tol,
            fmt::format("not deterministic: after {} more launches its output differs bit for bit from its first "
                        "launch on the same inputs",
                        launches)};
  return {true, again, tol, "", verified.output_hash};
}

void ProblemMeasurement::forget_lt_replays() {
  for (const Provider provider : {Provider::CublasltHeuristic, Provider::CublasltAutotune})
    kept_replays_[provider].reset();
}

void ProblemMeasurement::find_lt_algorithms(int max_algorithms) {
  forget_lt_replays();
  lt_fastest_.reset();
  lt_algorithms_ = gpu_.cublas.lt_algorithms(*buffers_, max_algorithms);
}

void ProblemMeasurement::autotune_lt(const StopRule& screen) {
  if (lt_algorithms_.empty()) return;
  std::vector<TimedCall> calls;
  for (const auto& algorithm : lt_algorithms_)
    calls.push_back(rotated([&](int slot) { return gpu_.cublas.lt_matmul(*buffers_, slot, algorithm); }));
  const auto screened = time_interleaved(calls, screen);
  std::size_t fastest = 0;
  for (std::size_t i = 1; i < screened.size(); ++i)
    if (screened[i].median_us < screened[fastest].median_us) fastest = i;
  forget_lt_replays();
  lt_fastest_ = fastest;
}

bool ProblemMeasurement::choose_lt_algorithm(const LtAlgoConfig& config) {
  for (std::size_t i = 0; i < lt_algorithms_.size(); ++i)
    if (lt_algorithms_[i].config == config) {
      forget_lt_replays();
      lt_fastest_ = i;
      return true;
    }
  return false;
}

std::string ProblemMeasurement::lt_autotune_detail() const {
  return lt_fastest_ ? fmt::format("algo #{} of {} tried", *lt_fastest_, lt_algorithms_.size()) : "";
}

const LtAlgorithm* ProblemMeasurement::lt_algorithm(Provider provider) const {
  if (provider == Provider::CublasltHeuristic && !lt_algorithms_.empty()) return &lt_algorithms_.front();
  if (provider == Provider::CublasltAutotune && lt_fastest_) return &lt_algorithms_[*lt_fastest_];
  return nullptr;
}

std::optional<LtAlgoConfig> ProblemMeasurement::lt_algo_config(Provider provider) const {
  const LtAlgorithm* algorithm = lt_algorithm(provider);
  return algorithm ? algorithm->config : std::nullopt;
}

std::vector<Provider> ProblemMeasurement::library_providers() const {
  const Layout own = problem().layout;
  std::vector<Provider> providers = {cublas_gemm_ex(own), cublas_gemm_ex(other_layout(own))};
  if (!lt_algorithms_.empty()) providers.push_back(Provider::CublasltHeuristic);
  if (lt_fastest_) providers.push_back(Provider::CublasltAutotune);
  return providers;
}

Provider ProblemMeasurement::timed_as(Provider provider) const {
  return provider == Provider::CublasltHeuristic && lt_fastest_ == std::size_t(0) ? Provider::CublasltAutotune
                                                                                   : provider;
}

bool ProblemMeasurement::has_call(Provider provider) const {
  const auto providers = library_providers();
  return std::find(providers.begin(), providers.end(), provider) != providers.end();
}

ProviderCall ProblemMeasurement::library_call(Provider provider) {
  ProviderCall call = unkept_library_call(provider);
  call.call.kept = &kept_replays_[provider];
  return call;
}

ProviderCall ProblemMeasurement::unkept_library_call(Provider provider) {
  switch (provider) {
    case Provider::CublasNn:
    case Provider::CublasTn: {
      const Layout layout = provider == Provider::CublasNn ? Layout::NN : Layout::TN;
      return {provider, rotated([&](int slot) { return gpu_.cublas.gemm_ex(*buffers_, slot, layout); })};
    }
    case Provider::CublasltHeuristic:
    case Provider::CublasltAutotune:
      if (const LtAlgorithm* algorithm = lt_algorithm(provider))
        return {provider, rotated([&](int slot) { return gpu_.cublas.lt_matmul(*buffers_, slot, *algorithm); })};
      break;
    default:
      break;
  }
  throw std::logic_error(
      fmt::format("no library call for provider {} on {}", to_string(provider), problem().text()));
}

ProviderTimes ProblemMeasurement::time_side_by_side(const std::vector<ProviderCall>& calls,
                                                     const StopRule& rule) {
  std::vector<TimedCall> timed;
  for (const auto& call : calls) timed.push_back(call.call);
  const std::vector<TimingStats> stats = time_interleaved(timed, rule);
  ProviderTimes times;
  for (std::size_t i = 0; i < calls.size(); ++i) times[calls[i].provider] = stats[i];
  return times;
}

std::vector<IntervalTimer::BesideFirst> ProblemMeasurement::time_beside_first(const std::vector<TimedCall>& calls,
                                                                              const StopRule& rule) {
  return gpu_.timer.beside_first(calls, rule, flusher());
}

std::vector<TimingStats> ProblemMeasurement::time_interleaved(const std::vector<TimedCall>& calls,
                                                             const StopRule& rule) {
  return gpu_.timer.interleaved(calls, rule, flusher());
}

L2Flusher* ProblemMeasurement::flusher() {
  return problem().l2 == L2Policy::Flush ? &gpu_.l2_flusher() : nullptr;
}

CallTrace ProblemMeasurement::trace_kernels(const TimedCall& call, int calls) {
  // The tracer synchronizes before its launches, so the flush is done and not among them.
  const bool flushed = problem().l2 == L2Policy::Flush;
  if (flushed) gpu_.l2_flusher().flush(gpu_.stream);
  // Launched one by one, as the call would be outside a graph: work it puts on another stream
  // runs here, where the trace sees it (captured into a graph, it would run at capture time).
  CallTrace trace = gpu_.tracer.trace(
      gpu_.stream,
      [&](cudaStream_t stream) {
        for (int i = 0; i < calls; ++i) call.launch_number(i)(stream);
      },
      calls, /*hold_until_enqueued=*/flushed);  // flushed: one launch
  if (flushed || !trace.traced()) return trace;  // a flushed sample is that one launch: its pass stands
  trace.sample_pass.reset();
  if (!std::all_of(trace.kernels.begin(), trace.kernels.end(), [](const TracedKernel& k) { return k.on_given_stream; }))
    return trace;
  // A timed sample replays these launches as one graph (gpu/timing), right behind the sample
  // before it; replayed so once more, after the replay that uploads it, behind one replay. Twice:
  // as a graph of these launches and of twice as many, whose difference is these launches without
  // what tracing costs each replay once (core/call_trace's pass_difference).
  const auto traced_replay = [&](int launches) {
    const CallGraph graph(call, launches, gpu_.stream);
    graph.launch(gpu_.stream);
    return gpu_.tracer.trace(
        gpu_.stream, [&](cudaStream_t stream) { graph.launch(stream); }, launches, /*hold_until_enqueued=*/true,
        /*lead_in=*/1);
  };
  const CallTrace single = traced_replay(calls), doubled = traced_replay(2 * calls);
  if (single.sample_pass && doubled.sample_pass)
    trace.sample_pass = pass_difference(*doubled.sample_pass, *single.sample_pass);
  return trace;
}

CallCounters ProblemMeasurement::count(const TimedCall& call) { return gpu_.counters.measure(gpu_.stream, call.launch); }

}  // namespace cl2
