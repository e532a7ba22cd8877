#pragma once
// Progress of a long run on stderr: full lines for events, and a status line (shape i of n,
// candidates compiled / verified / timed, best so far, ETA) that is redrawn in place on a terminal
// and printed every few seconds otherwise, so CI logs stay readable. Safe to share between the
// threads of a run on several GPUs.
#include <chrono>
#include <cstddef>
#include <mutex>
#include <string>

namespace cl2 {

class Progress {
 public:
  explicit Progress(std::size_t total_units);

  void line(const std::string& text);
  void status(const std::string& text);
  void add_units(std::ptrdiff_t delta);  // the plan changed (skipped or extra work)
  void unit_done();
  std::string eta() const;  // "ETA 3m12s", or "" until there is a rate to go by
  // tune --budget-seconds: the run stops trying new candidates this long after it started, so the
  // ETA never goes past it.
  void set_budget(double seconds);

 private:
  void clear_status();
  mutable std::mutex mutex_;
  using Clock = std::chrono::steady_clock;
  Clock::time_point start_ = Clock::now();
  Clock::time_point last_print_{};
  std::size_t total_ = 0, done_ = 0;
  double budget_seconds_ = 0;  // 0: none
  bool tty_ = false;
  bool status_shown_ = false;
};

}  // namespace cl2
