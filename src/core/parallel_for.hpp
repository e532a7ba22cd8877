#pragma once
// Runs body(i) for i in [0, count) on up to `threads` threads (0 = one per hardware thread),
// handing out indices in order. The first exception a body throws (lowest index among those
// thrown) is rethrown once every thread has stopped.
#include <cstddef>
#include <functional>

namespace cl2 {

void parallel_for(std::size_t count, unsigned threads, const std::function<void(std::size_t)>& body);

}  // namespace cl2
