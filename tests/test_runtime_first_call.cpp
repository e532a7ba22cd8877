// First-call timing of an untuned shape without a GPU, over a fake backend whose launch times the
// tests make up: the fastest (by median) of the model's first N is chosen, run last and kept; a
// call inside a graph capture runs the model's first and leaves the decision open; N below 2, a
// tuned shape or cuBLASLt time nothing; CL2_FIRST_CALL_TIMING and CL2_OPEN_NO_FIRST_CALL_TIMING.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <set>

#include "runtime/runtime.hpp"
#include "runtime/runtime_error.hpp"
#include "runtime/runtime_open.hpp"
#include "support/fake_gemm_backend.hpp"
#include "support/env_count_checks.hpp"
#include "support/runtime_fixtures.hpp"
#include "support/scoped_env.hpp"

using namespace cl2;
using namespace cl2_test;

namespace {

// Three tuned shapes whose winners all run at 3000x4096x4096, each without split-K variants (the
// entries' hashes are not their sources'): the model ranks exactly three choices there.
DispatchTable three_winner_table() {
  DispatchTable t;
  t.entries.push_back(entry(tn(4096, 4096, 4096), sm90_config(tn(4096, 4096, 4096), any_config, {{"KB_PAIR", 1}})));
  t.entries.push_back(entry(tn(256, 256, 256), sm90_config(tn(256, 256, 256), any_config, {{"KB_PAIR", 0}})));
  t.entries.push_back(entry(tn(4096, 4096, 1024), sm90_config(tn(4096, 4096, 1024), any_config,
                                                              {{"BM", 128}, {"BN", 256}, {"CONSUMERS", 2}})));
  return t;
}

const Problem kUntuned = tn(3000, 4096, 4096);

struct TimedRuntime {
  DispatchTable table = three_winner_table();
  std::vector<Decision> ranked = ranked_decisions(table, kUntuned, true, h200_rules());
  FakeBackend* fake = nullptr;
  std::unique_ptr<Runtime> runtime;

  explicit TimedRuntime(int timed_candidates = kDefaultTimedCandidates) {
    auto backend = std::make_unique<FakeBackend>();
    fake = backend.get();
    runtime = std::make_unique<Runtime>(table, h200_limits(), std::move(backend),
                                        DispatchOptions{.timed_candidates = timed_candidates});
  }
  // The runtime's copy of the model's i-th choice's entry (the table was copied into it).
  const DispatchEntry* entry_of(std::size_t i) const {
    return &runtime->table().entries[std::size_t(ranked.at(i).entry - table.entries.data())];
  }
};

}  // namespace

TEST(RuntimeFirstCall, TheFastestOfTheModelsFirstIsRunLastAndKept) {
  TimedRuntime t;
  ASSERT_EQ(t.ranked.size(), 3u);
  // The model's third is the fastest on the (fake) GPU.
  const DispatchEntry* third = t.entry_of(2);
  t.fake->launch_us = [&](const CandidateLaunch& run, std::size_t) { return run.entry == third ? 7.0 : 10.0; };
  EXPECT_NE(t.runtime->describe(kUntuned).find("; first-call timing of the model's first 3 pending"),
            std::string::npos)
      << t.runtime->describe(kUntuned);
  const Decision& first = t.runtime->gemm(call(kUntuned));
  EXPECT_EQ(first.config, t.ranked[2].config) << first.why;
  EXPECT_EQ(chosen_by(first), "nearest-timed");
  EXPECT_EQ(first.timed_us, (std::vector<double>{10, 10, 7}));
  // Round robin, the model's order in each of the 5 rounds; then the chosen kernel, so that C is
  // its result.
  ASSERT_EQ(t.fake->timed.size(), 1u);
  ASSERT_EQ(t.fake->timed[0].size(), std::size_t(3 * kTimingRounds));
  for (std::size_t i = 0; i < t.fake->timed[0].size(); ++i)
    EXPECT_EQ(t.fake->timed[0][i].entry, t.entry_of(i % 3)) << i;
  EXPECT_EQ(t.fake->order, "tk");
  EXPECT_EQ(t.fake->last_entry, third);
  const FamilySpec& sm90 = builtin_families().at("sm90");
  EXPECT_EQ(t.fake->last_geometry,
            launch_geometry(sm90, config_variables(sm90, t.ranked[2].config, kUntuned, h200_limits())));
  // Kept: later calls run it without timing.
  EXPECT_EQ(&t.runtime->gemm(call(kUntuned)), &first);
  EXPECT_EQ(t.fake->order, "tkk");
  const std::string described = t.runtime->describe(kUntuned);
  EXPECT_EQ(described, first.why);
  EXPECT_NE(described.find("model-ranked 3rd"), std::string::npos) << described;
  EXPECT_NE(described.find("; first-call timing of the model's first 3 (median of 5): 10.0, 10.0, 7.0 (chosen) us"),
            std::string::npos)
      << described;
}

TEST(RuntimeFirstCall, TheMedianDecidesNotTheFastestLaunch) {
  // The model's first has one quick launch and is otherwise slow; the second one slow launch.
  TimedRuntime t(2);
  const DispatchEntry* model_first = t.entry_of(0);
  t.fake->launch_us = [&](const CandidateLaunch& run, std::size_t i) {
    const bool first_round = i < 2;
    if (run.entry == model_first) return first_round ? 1.0 : 20.0;
    return first_round ? 50.0 : 12.0;
  };
  const Decision& d = t.runtime->gemm(call(kUntuned));
  EXPECT_EQ(d.config, t.ranked[1].config) << d.why;
  EXPECT_EQ(d.timed_us, (std::vector<double>{20, 12}));
}

TEST(RuntimeFirstCall, EqualTimesKeepTheModelsFirst) {
  TimedRuntime t;
  const Decision& d = t.runtime->gemm(call(kUntuned));
  EXPECT_EQ(d.config, t.ranked[0].config) << d.why;
  EXPECT_EQ(chosen_by(d), "nearest-timed");
}

TEST(RuntimeFirstCall, InsideAGraphCaptureTheModelsFirstRunsAndNothingIsKept) {
  TimedRuntime t;
  const DispatchEntry* second = t.entry_of(1);
  t.fake->launch_us = [&](const CandidateLaunch& run, std::size_t) { return run.entry == second ? 5.0 : 10.0; };
  t.fake->stream_captured = true;
  for (int i = 0; i < 2; ++i) {
    const Decision& captured = t.runtime->gemm(call(kUntuned));
    EXPECT_EQ(captured.config, t.ranked[0].config) << captured.why;
    EXPECT_EQ(chosen_by(captured), "nearest-model");
  }
  EXPECT_EQ(t.fake->order, "kk") << "nothing timed while the stream is captured";
  EXPECT_EQ(t.fake->last_entry, t.entry_of(0));
  EXPECT_NE(t.runtime->describe(kUntuned).find("pending"), std::string::npos) << "still undecided";
  // The first call outside a capture decides.
  t.fake->stream_captured = false;
  const Decision& decided = t.runtime->gemm(call(kUntuned));
  EXPECT_EQ(decided.config, t.ranked[1].config) << decided.why;
  EXPECT_EQ(t.fake->order, "kktk");
  t.fake->stream_captured = true;
  EXPECT_EQ(&t.runtime->gemm(call(kUntuned)), &decided) << "once decided, a capture runs the decision";
}

TEST(RuntimeFirstCall, FewerThanTwoCandidatesTimeNothing) {
  for (const int count : {0, 1}) {
    TimedRuntime t(count);
    const Decision& d = t.runtime->gemm(call(kUntuned));
    EXPECT_EQ(d.config, t.ranked[0].config) << count;
    EXPECT_EQ(chosen_by(d), "nearest-model");
    EXPECT_EQ(t.fake->order, "k") << count;
    EXPECT_EQ(t.runtime->describe(kUntuned), t.ranked[0].why) << "no timing to mention";
  }
}

TEST(RuntimeFirstCall, OnlyAnUntunedShapeIsTimed) {
  TimedRuntime t;
  EXPECT_EQ(chosen_by(t.runtime->gemm(call(tn(4096, 4096, 4096)))), "exact");
  GemmCall strided = call(kUntuned);
  strided.lda = 4104;
  EXPECT_EQ(chosen_by(t.runtime->gemm(strided)), "library");
  EXPECT_EQ(t.fake->order, "kl");
}

TEST(RuntimeFirstCall, ASplitKWinnersFactorsAreTimedEachWithItsGeometry) {
  // A split-K-2 winner at twice its K: the model ranks several of its factors, all from its cubin.
  const Problem tuned_at = tn(128, 256, 8192), untuned = tn(128, 256, 16384);
  DispatchTable table;
  table.entries.push_back(tuned_entry(tuned_at, sm90_config(tuned_at, any_config, {{"SPLIT_K", 2}})));
  const std::vector<Decision> ranked = ranked_decisions(table, untuned, true, h200_rules());
  ASSERT_GE(ranked.size(), 2u);
  auto backend = std::make_unique<FakeBackend>();
  FakeBackend& fake = *backend;
  Runtime runtime(table, h200_limits(), std::move(backend));
  // The model's second factor is the fastest.
  const std::int64_t second_factor = ranked[1].config.at("SPLIT_K");
  fake.launch_us = [&](const CandidateLaunch& run, std::size_t) {
    return run.geometry->runtime.at("split_k") == second_factor ? 3.0 : 9.0;
  };
  const Decision& d = runtime.gemm(call(untuned));
  EXPECT_EQ(d.config.at("SPLIT_K"), second_factor) << d.why;
  ASSERT_EQ(fake.timed.size(), 1u);
  std::set<std::int64_t> factors;
  for (const CandidateLaunch& run : fake.timed[0]) {
    EXPECT_EQ(run.entry, &runtime.table().entries[0]);
    factors.insert(run.geometry->runtime.at("split_k"));
  }
  EXPECT_EQ(factors.size(), std::min<std::size_t>(ranked.size(), kDefaultTimedCandidates));
  EXPECT_EQ(fake.last_geometry.runtime.at("split_k"), second_factor);
}

TEST(RuntimeFirstCall, TheEnvironmentVariableIsACountOrAnError) {
  EXPECT_EQ(timed_candidates_from_env(nullptr), kDefaultTimedCandidates);
  EXPECT_EQ(timed_candidates_from_env(""), kDefaultTimedCandidates);
  EXPECT_EQ(timed_candidates_from_env("0"), 0);
  EXPECT_EQ(timed_candidates_from_env("5"), 5);
  EXPECT_EQ(timed_candidates_from_env("16"), kMaxTimedCandidates);
  expect_counts_refused(timed_candidates_from_env, {"17", "-1", "three", "3x", " 3", "1e1"}, [](const char* bad) {
    return fmt::format("CL2_FIRST_CALL_TIMING={}: not a count from 0 to 16; set how many of the cost model's first "
                       "choices an untuned shape's first call times (0: none), or unset it for 3",
                       bad);
  });
}

TEST(RuntimeFirstCall, TheOpenFlagTurnsItOffWhateverTheVariableSays) {
  ScopedEnv bad("CL2_FIRST_CALL_TIMING", "lots");
  EXPECT_EQ(open_options(CL2_OPEN_NO_FIRST_CALL_TIMING).timed_candidates, 0);
  EXPECT_THROW(open_options(0), RuntimeError);
  ScopedEnv seven("CL2_FIRST_CALL_TIMING", "7");
  EXPECT_EQ(open_options(0).timed_candidates, 7);
  EXPECT_TRUE(open_options(CL2_OPEN_LIBRARY_FALLBACK).library_fallback);
}
