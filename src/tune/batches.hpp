#pragma once
// A run's shapes in batches, each planned and compiled (through the kernel cache) while the GPU
// tunes the one before it, so that the GPU waits only for the first, a small one. With seeds
// (--strategy seeded), the first batch is an even sample of the shapes and is tuned before the
// second is planned, so that its winners seed all the others; a batch planned while another is
// tuned is seeded by the winners of shapes outside that one, so that its plan does not depend on
// how far the GPU got.
#include <future>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "db/tuning_db.hpp"
#include "tune/candidate_build.hpp"
#include "tune/progress.hpp"
#include "tune/tune_options.hpp"
#include "tune/tune_session.hpp"

namespace cl2 {

struct BatchPlan {
  std::vector<Problem> problems;  // in the order the batches take them
  std::vector<std::size_t> ends;  // where each batch ends in `problems`
  bool seeded = false;            // batch 1 waits for batch 0's winners

  std::size_t begin(std::size_t batch) const { return batch == 0 ? 0 : ends[batch - 1]; }
};

BatchPlan plan_batches(const std::vector<Problem>& listed, std::size_t seeds);

// `listed` with the shapes that have no winner on `device` in `db` first, each part in file order.
// A resumed run skips a tuned shape only once it is planned (a new candidate in its plan is tuned),
// so with the shapes in file order the GPU waited while every tuned shape ahead of the first
// untuned one was planned: 79 s of 211 s in the third call of grid-1000 on an H100. First, their
// planning runs beside the tuning of the rest.
std::vector<Problem> untuned_first(const std::vector<Problem>& listed, const TuningDb& db, const DeviceInfo& device);

// Plans `problems` and compiles their candidates, handing the slots of variants that do not
// compile clean to the next ones (tune/clean_plan.hpp), saying so on `progress` after `label`;
// with `foreground`, also when compiling starts and how far it is, in the status line (which a
// batch compiled in the background leaves to the tuning it runs beside).
std::vector<std::vector<BuiltCandidate>> compile_stage(const TuneOptions& options,
                                                       const std::vector<Problem>& problems,
                                                       const std::vector<const FamilySpec*>& families,
                                                       const DeviceLimits& limits, const KernelCompiler& compiler,
                                                       BuildCounts& counts,
                                                       const std::vector<std::vector<KernelConfig>>& seeds,
                                                       Progress& progress, const std::string& label,
                                                       bool foreground);

// Compiles batch `batch` for every session (identical GPUs find the kernels in the cache) in this
// thread, the run waiting on it: its time counts as compiling. The candidates planned for the
// first session.
std::size_t compile_waited(const TuneOptions& options, const std::vector<std::unique_ptr<TuneSession>>& sessions,
                           const BatchPlan& plan, std::size_t batch,
                           std::vector<std::vector<std::vector<BuiltCandidate>>>& built, Progress& progress);

// A batch compiled in a thread of its own while the GPU tunes batch `tuning`: at a lower CPU
// priority than the tuning (whose launches it must not delay), reading seeds through its own
// read-only connection to the database, writing only its own slots of `built`.
class BackgroundBatch {
 public:
  void start(const TuneOptions& options, const std::vector<std::unique_ptr<TuneSession>>& sessions,
             const BatchPlan& plan, std::size_t batch, std::size_t tuning,
             std::vector<std::vector<std::vector<BuiltCandidate>>>& built, Progress& progress);
  bool running() const { return result_.valid(); }
  // Waits for it, the wait counting as compiling; the candidates planned for the first session.
  // Rethrows what the compile threw.
  std::size_t wait(StageTimes& stages);

 private:
  std::future<std::size_t> result_;
  std::unique_ptr<TuningDb> seeds_db_;  // opened by the first seeded batch, kept for the later ones
};

}  // namespace cl2
