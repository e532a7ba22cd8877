#pragma once
// GPU tests skip, saying why, where there is no usable GPU. GTEST_SKIP must be in the test body
// itself to end the test, hence a macro.
#include <gtest/gtest.h>

#include <string>

#include "gpu/device_query.hpp"

#define CL2_REQUIRE_GPU() \
  if (const std::string reason = cl2::gpu_unavailable_reason(0); !reason.empty()) GTEST_SKIP() << reason
