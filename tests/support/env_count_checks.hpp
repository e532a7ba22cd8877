#pragma once
// The check both runtime environment counts (CL2_FIRST_CALL_TIMING, CL2_PLANNED_CANDIDATES) share:
// each value they must refuse is refused with CL2_ERROR_INVALID_ARGUMENT and the message that
// names the variable, the value and the fix.
#include <gtest/gtest.h>

#include <functional>
#include <initializer_list>
#include <string>

#include "runtime/runtime_error.hpp"

namespace cl2_test {

inline void expect_counts_refused(const std::function<int(const char*)>& read, std::initializer_list<const char*> bad,
                                  const std::function<std::string(const char*)>& message) {
  for (const char* value : bad) {
    try {
      read(value);
      ADD_FAILURE() << "accepted " << value;
    } catch (const cl2::RuntimeError& e) {
      EXPECT_EQ(e.status, CL2_ERROR_INVALID_ARGUMENT) << value;
      EXPECT_EQ(std::string(e.what()), message(value));
    }
  }
}

}  // namespace cl2_test
