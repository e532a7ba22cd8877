#pragma once
// What `cuda-l2-tune profile` prints: our kernel's counters next to the library call's, metric by
// metric, and each one's limiter (core/limiter.hpp) with the figures it was judged by.
#include <string>

#include "core/call_counters.hpp"
#include "core/problem.hpp"
#include "core/provider.hpp"

namespace cl2 {

struct ProfiledCall {
  Provider provider = Provider::Ours;
  std::string description;  // our kernel's configuration; the library's algorithm and how it was chosen
  CallCounters counters;
};

std::string render_profile(const Problem& problem, const std::string& device_name, const ProfiledCall& ours,
                           const ProfiledCall& library);

}  // namespace cl2
