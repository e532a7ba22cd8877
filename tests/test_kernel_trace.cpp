// The kernel tracer where CUPTI cannot trace, which needs no GPU: a CUPTI that does not load, and
// one that loads but refuses (CUPTI_ERROR_INSUFFICIENT_PRIVILEGES, from a stand-in library) give
// an absent trace with a one-line reason and its fix, without launching the call; a refusal
// holds for every later trace.
#include <gtest/gtest.h>

#include "gpu/kernel_trace.hpp"
#include "support/run_tool.hpp"

using namespace cl2;

namespace {

// Traces a call that only notes it was launched.
CallTrace trace_noting_launch(KernelTracer& tracer, bool& launched) {
  return tracer.trace(nullptr, [&](cudaStream_t) { launched = true; }, 1);
}

}  // namespace

TEST(KernelTrace, MissingCuptiGivesAnAbsentTraceNamingTheLibraryAndTheFix) {
  const CuptiLibrary missing = load_cupti({"/nonexistent/libcupti.so"});
  ASSERT_FALSE(missing.api.has_value());
  KernelTracer tracer(missing);
  bool launched = false;
  const CallTrace trace = trace_noting_launch(tracer, launched);
  EXPECT_FALSE(trace.traced());
  EXPECT_FALSE(launched);
  EXPECT_NE(trace.absent.find("/nonexistent/libcupti.so"), std::string::npos) << trace.absent;
  EXPECT_NE(trace.absent.find("set CL2_CUPTI_LIBRARY"), std::string::npos) << trace.absent;
  EXPECT_EQ(trace.absent.find('\n'), std::string::npos) << trace.absent;
}

TEST(KernelTrace, RefusedPermissionGivesAnAbsentTraceWithTheFixEveryTime) {
  const CuptiLibrary refusing = load_cupti({"/nonexistent/libcupti.so", cl2_test::fake_cupti_library()});
  ASSERT_TRUE(refusing.api.has_value()) << refusing.unavailable;  // the next path loads
  KernelTracer tracer(refusing);
  bool launched = false;
  const CallTrace first = trace_noting_launch(tracer, launched);
  EXPECT_FALSE(first.traced());
  EXPECT_FALSE(launched);
  EXPECT_NE(first.absent.find("cuptiActivityEnable failed: CUPTI_ERROR_INSUFFICIENT_PRIVILEGES (35)"),
            std::string::npos)
      << first.absent;
  EXPECT_NE(first.absent.find("NVreg_RestrictProfilingToAdminUsers=0"), std::string::npos) << first.absent;
  EXPECT_EQ(first.absent.find('\n'), std::string::npos) << first.absent;
  EXPECT_EQ(trace_noting_launch(tracer, launched), first);
  EXPECT_FALSE(launched);
}

TEST(KernelTrace, LibraryWithoutTheFunctionsIsNotTaken) {
  // libm loads, but is no CUPTI: the reason names what it lacks.
  const CuptiLibrary wrong = load_cupti({"libm.so.6"});
  EXPECT_FALSE(wrong.api.has_value());
  EXPECT_NE(wrong.unavailable.find("libm.so.6 has no cuptiActivityEnable"), std::string::npos) << wrong.unavailable;
}
