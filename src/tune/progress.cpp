#include "tune/progress.hpp"

#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>

#include "report/text_table.hpp"

namespace cl2 {

Progress::Progress(std::size_t total_units) : total_(total_units), tty_(isatty(STDERR_FILENO)) {}

void Progress::clear_status() {
  if (tty_ && status_shown_) std::fputs("\r\033[K", stderr);
  status_shown_ = false;
}

void Progress::line(const std::string& text) {
  std::lock_guard lock(mutex_);
  clear_status();
  std::fprintf(stderr, "%s\n", text.c_str());
  std::fflush(stderr);
}

void Progress::status(const std::string& text) {
  std::lock_guard lock(mutex_);
  const auto now = Clock::now();
  if (tty_) {
    std::fprintf(stderr, "\r\033[K%s", text.c_str());
    status_shown_ = true;
  } else if (now - last_print_ >= std::chrono::seconds(10)) {
    std::fprintf(stderr, "%s\n", text.c_str());
    last_print_ = now;
  }
  std::fflush(stderr);
}

void Progress::add_units(std::ptrdiff_t delta) {
  std::lock_guard lock(mutex_);
  total_ = std::size_t(std::max<std::ptrdiff_t>(std::ptrdiff_t(done_), std::ptrdiff_t(total_) + delta));
}

void Progress::unit_done() {
  std::lock_guard lock(mutex_);
  ++done_;
}

std::string Progress::eta() const {
  std::lock_guard lock(mutex_);
  if (done_ == 0 || total_ <= done_) return "";
  const double elapsed = std::chrono::duration<double>(Clock::now() - start_).count();
  double left = elapsed / double(done_) * double(total_ - done_);
  if (budget_seconds_ > 0) left = std::min(left, std::max(0.0, budget_seconds_ - elapsed));
  return "ETA " + format_duration(left);
}

void Progress::set_budget(double seconds) {
  std::lock_guard lock(mutex_);
  budget_seconds_ = seconds;
}

}  // namespace cl2
