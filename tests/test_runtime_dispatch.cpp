// The runtime's dispatch without a GPU: exact shape; for an untuned shape, the winners of the
// nearest tuned shapes valid there ranked by the cost model, with split-K re-chosen within a cubin;
// cuBLASLt where nothing fits, the best-of-both rule, operands our kernels do not take, and the
// Runtime's argument checks, plans and thread safety over a fake backend.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <thread>

#include "codegen/codegen.hpp"
#include "runtime/dispatch.hpp"
#include "runtime/runtime.hpp"
#include "runtime/runtime_error.hpp"
#include "support/fake_gemm_backend.hpp"
#include "support/runtime_fixtures.hpp"

using namespace cl2;
using namespace cl2_test;

namespace {

bool kb_pair(const KernelConfig& c) { return c.params.count("KB_PAIR") && c.at("KB_PAIR") == 1; }
bool no_kb_pair(const KernelConfig& c) { return c.params.count("KB_PAIR") && c.at("KB_PAIR") == 0; }

// Two tuned shapes: a large one whose winner loads k-blocks in pairs (needs K % 64 == 0) and a
// small one whose winner does not.
DispatchTable two_shape_table() {
  DispatchTable table;
  table.entries.push_back(entry(tn(4096, 4096, 4096), sm90_config(tn(4096, 4096, 4096), kb_pair)));
  table.entries.push_back(entry(tn(256, 256, 256), sm90_config(tn(256, 256, 256), no_kb_pair)));
  return table;
}

const DispatchTable& table() {
  static const DispatchTable t = two_shape_table();
  return t;
}

Decision choose(const Problem& problem, bool ours_allowed = true) {
  return decide(table(), problem, ours_allowed, h200_rules());
}

double model(const KernelConfig& config, const Problem& problem) { return h200_rules().model_us(config, problem).value(); }

KernelConfig with_split_k(KernelConfig config, std::int64_t split_k) {
  config.params["SPLIT_K"] = split_k;
  return config;
}

std::string source_hash(const KernelConfig& config, const Problem& problem) {
  return generate_source(builtin_families().at(config.family), config, problem.layout, problem.accum).hash;
}

}  // namespace

TEST(RuntimeDispatch, ExactShapeRunsItsWinner) {
  const Decision d = choose(tn(4096, 4096, 4096));
  EXPECT_EQ(d.route, Route::OursExact);
  EXPECT_EQ(d.entry, &table().entries[0]);
  EXPECT_NE(d.why.find("ours exact: sm90"), std::string::npos) << d.why;
}

TEST(RuntimeDispatch, UntunedShapeRunsOnlyWinnersValidThere) {
  // K % 64 == 0: both winners may run, and the model ranks the large shape's KB_PAIR one first.
  const Decision near_large = choose(tn(3000, 4096, 4096));
  EXPECT_EQ(near_large.route, Route::OursNearest);
  EXPECT_EQ(near_large.entry, &table().entries[0]);
  EXPECT_NE(near_large.why.find("tuned at 4096x4096x4096: winner 1 of the 2 nearest"), std::string::npos)
      << near_large.why;
  // K % 64 == 8 rules KB_PAIR out: the small shape's winner, the only one left.
  const Decision odd_k = choose(tn(3000, 4096, 4104));
  EXPECT_EQ(odd_k.route, Route::OursNearest);
  EXPECT_EQ(odd_k.entry, &table().entries[1]);
}

TEST(RuntimeDispatch, NearestIsTheTunedShapeNotTheFirstWithItsConfiguration) {
  // One configuration won at a far shape listed first and at a near one: the near shape is the one
  // dispatched to and named (it was reported as tuned at the far one).
  DispatchTable shared;
  const KernelConfig config = sm90_config(tn(256, 256, 256), no_kb_pair);
  shared.entries.push_back(entry(tn(64, 12288, 64), config));
  shared.entries.push_back(entry(tn(1024, 1024, 4096), config));
  const Decision d = decide(shared, tn(777, 1024, 4096), true, h200_rules());
  EXPECT_EQ(d.route, Route::OursNearest);
  EXPECT_EQ(d.entry, &shared.entries[1]);
  EXPECT_NE(d.why.find("tuned at 1024x1024x4096"), std::string::npos) << d.why;
}

TEST(RuntimeDispatch, UntunedShapeRunsTheWinnerTheModelRanksFastestThere) {
  // The nearest tuned shape's winner is a 64x64 tile of one consumer; a farther one's, 128x256 of
  // two, which the model prices well below it at 3000x4096x4096.
  const Problem untuned = tn(3000, 4096, 4096);
  DispatchTable t;
  t.entries.push_back(entry(tn(2048, 4096, 4096), sm90_config(tn(2048, 4096, 4096), any_config)));
  t.entries.push_back(entry(tn(4096, 4096, 1024), sm90_config(tn(4096, 4096, 1024), any_config,
                                                              {{"BM", 128}, {"BN", 256}, {"CONSUMERS", 2}})));
  ASSERT_LT(model(t.entries[1].config, untuned), model(t.entries[0].config, untuned));
  const Decision d = decide(t, untuned, true, h200_rules());
  EXPECT_EQ(d.route, Route::OursNearest);
  EXPECT_EQ(d.entry, &t.entries[1]) << d.why;
  EXPECT_EQ(d.config, t.entries[1].config);
  EXPECT_NE(d.why.find("tuned at 4096x4096x1024: winner 2 of the 2 nearest, model-ranked first"), std::string::npos)
      << d.why;
}

TEST(RuntimeDispatch, OnlyTheNearestDistinctWinnersAreRanked) {
  // kRankedWinners - 1 distinct 64x64 winners near the shape, one of them twice, then the 128x256
  // one that the model prefers to all of them: it is the last one ranked, until one more distinct
  // winner lies nearer.
  const Problem untuned = tn(3000, 4096, 4096);
  const KernelConfig big = sm90_config(tn(4096, 4096, 1024), any_config, {{"BM", 128}, {"BN", 256}, {"CONSUMERS", 2}});
  std::vector<KernelConfig> small;
  for (const std::int64_t kb_pair : {0, 1})
    for (const std::int64_t stages : builtin_families().at("sm90").params.at("STAGES")) {
      KernelConfig c = sm90_config(untuned, any_config);
      c.params["KB_PAIR"] = kb_pair;
      c.params["STAGES"] = stages;
      if (h200_rules().allows(c, untuned) && small.size() < kRankedWinners) small.push_back(c);
    }
  ASSERT_EQ(small.size(), kRankedWinners);
  for (const KernelConfig& c : small) ASSERT_LT(model(big, untuned), model(c, untuned)) << c.label();
  DispatchTable t;
  t.entries.push_back(entry(tn(3000, 4096, 4096 - 64), small[0]));
  for (std::size_t i = 0; i + 1 < kRankedWinners; ++i)
    t.entries.push_back(entry(tn(3064 + 64 * std::int64_t(i), 4096, 4096), small[i]));  // small[0] again
  t.entries.push_back(entry(tn(4096, 4096, 1024), big));
  const Decision twelfth = decide(t, untuned, true, h200_rules());
  EXPECT_EQ(twelfth.entry, &t.entries.back()) << twelfth.why;
  t.entries.push_back(entry(tn(3000, 4096, 4096 + 64), small.back()));
  const Decision thirteenth = decide(t, untuned, true, h200_rules());
  EXPECT_EQ(thirteenth.route, Route::OursNearest);
  EXPECT_NE(thirteenth.config, big) << thirteenth.why;
  EXPECT_NE(thirteenth.why.find(fmt::format("of the {} nearest", kRankedWinners)), std::string::npos) << thirteenth.why;
}

TEST(RuntimeDispatch, RankedDecisionsListEveryChoiceInTheModelsOrder) {
  // What first-call timing picks from: decide()'s choice first, then the model's next ones, each
  // named by its place; cheaper estimates first.
  const Problem untuned = tn(3000, 4096, 4096);
  DispatchTable t = table();
  t.entries.push_back(entry(tn(4096, 4096, 1024), sm90_config(tn(4096, 4096, 1024), any_config,
                                                              {{"BM", 128}, {"BN", 256}, {"CONSUMERS", 2}})));
  const std::vector<Decision> ranked = ranked_decisions(t, untuned, true, h200_rules());
  ASSERT_EQ(ranked.size(), 3u) << "three winners, no split-K variants (their hashes are not their sources')";
  EXPECT_EQ(ranked.front().why, decide(t, untuned, true, h200_rules()).why);
  for (std::size_t i = 0; i < ranked.size(); ++i) {
    EXPECT_EQ(ranked[i].route, Route::OursNearest);
    EXPECT_EQ(chosen_by(ranked[i]), "nearest-model");
    const std::string place = fmt::format("model-ranked {} at", std::vector{"first", "2nd", "3rd"}[i]);
    EXPECT_NE(ranked[i].why.find(place), std::string::npos) << ranked[i].why;
    if (i > 0) {
      EXPECT_LE(model(ranked[i - 1].config, untuned), model(ranked[i].config, untuned));
    }
  }
  // Every other route is one decision.
  ASSERT_EQ(ranked_decisions(t, tn(4096, 4096, 4096), true, h200_rules()).size(), 1u);
  EXPECT_EQ(chosen_by(ranked_decisions(t, tn(4096, 4096, 4096), true, h200_rules()).front()), "exact");
  EXPECT_EQ(chosen_by(ranked_decisions(t, untuned, false, h200_rules()).front()), "library");
  Decision timed = ranked.front();
  timed.timed_us = {10, 12};
  EXPECT_EQ(chosen_by(timed), "nearest-timed");
}

TEST(RuntimeDispatch, SplitKIsRechosenWithinTheWinnersCubin) {
  // A 64x64 split-K-2 winner of 128x256x8192 at twice the K: the model wants more slices.
  const Problem tuned_at = tn(128, 256, 8192), untuned = tn(128, 256, 16384);
  DispatchTable t;
  t.entries.push_back(tuned_entry(tuned_at, sm90_config(tuned_at, any_config, {{"SPLIT_K", 2}})));
  const DispatchEntry& winner = t.entries[0];
  const Decision d = decide(t, untuned, true, h200_rules());
  ASSERT_EQ(d.route, Route::OursNearest);
  EXPECT_EQ(d.entry, &winner);
  const std::int64_t split_k = d.config.at("SPLIT_K");
  EXPECT_NE(split_k, 2) << d.why;
  EXPECT_EQ(with_split_k(d.config, 2), winner.config) << "only split-K changes";
  EXPECT_LT(model(d.config, untuned), model(winner.config, untuned));
  EXPECT_EQ(source_hash(d.config, untuned), winner.source_hash) << "the winner's cubin runs it";
  EXPECT_NE(d.why.find(fmt::format("SPLIT_K 2 -> {}", split_k)), std::string::npos) << d.why;
  // Factors the model ranks faster still, and the rules allow, compile to another kernel (sm90's
  // reduction of more than four slices): never run from this cubin.
  int faster_elsewhere = 0;
  for (const std::int64_t factor : builtin_families().at("sm90").params.at("SPLIT_K")) {
    const KernelConfig other = with_split_k(winner.config, factor);
    if (h200_rules().allows(other, untuned) && model(other, untuned) < model(d.config, untuned)) {
      ++faster_elsewhere;
      EXPECT_NE(source_hash(other, untuned), winner.source_hash) << factor;
    }
  }
  EXPECT_GT(faster_elsewhere, 0) << "the test needs a faster factor of another cubin";

  // The Runtime launches the re-chosen factor, with its geometry (kernel argument and workspace).
  auto backend = std::make_unique<FakeBackend>();
  FakeBackend& fake = *backend;
  Runtime runtime(t, h200_limits(), std::move(backend));
  runtime.gemm(call(untuned));
  EXPECT_EQ(fake.last_geometry.runtime.at("split_k"), split_k);
  const FamilySpec& sm90 = builtin_families().at("sm90");
  EXPECT_EQ(fake.last_geometry, launch_geometry(sm90, config_variables(sm90, d.config, untuned, h200_limits())));
}

TEST(RuntimeDispatch, ARechosenSplitKMeetsThePlanningRulesThatReadIt) {
  // The H200's worst nearest-shape call: 64x1024x4096's split-K-8 DSMEM winner (64x72 tiles) at
  // 77x768x3072 runs 22 clusters of 8 CTAs, more than fit at once. Six slices share its cubin
  // and the model prices them lower, but 22 clusters of 6 do not fit at once either: sm90 splits
  // through DSMEM only in one wave, a planning rule, so six is never tried; eight stays.
  const Problem tuned_at = tn(64, 1024, 4096), untuned = tn(77, 768, 3072);
  DispatchTable t;
  t.entries.push_back(tuned_entry(
      tuned_at, sm90_config(tuned_at, any_config, {{"BN", 72}, {"SPLIT_K", 8}, {"SPLIT_DSMEM", 1}})));
  const KernelConfig six = with_split_k(t.entries[0].config, 6);
  ASSERT_TRUE(h200_rules().allows(six, untuned));
  ASSERT_EQ(source_hash(six, untuned), t.entries[0].source_hash);
  ASSERT_LT(model(six, untuned), model(t.entries[0].config, untuned));
  const Decision d = decide(t, untuned, true, h200_rules());
  EXPECT_EQ(d.route, Route::OursNearest);
  EXPECT_EQ(d.config.at("SPLIT_K"), 8) << d.why;
}

TEST(RuntimeDispatch, AWinnerWithoutAMatchingSourceHashKeepsItsSplitK) {
  // The same winner recorded with another source hash (a template changed since): no factor is
  // known to share its cubin, so its own is kept.
  const Problem tuned_at = tn(128, 256, 8192), untuned = tn(128, 256, 16384);
  DispatchTable t;
  t.entries.push_back(entry(tuned_at, sm90_config(tuned_at, any_config, {{"SPLIT_K", 2}})));
  const Decision d = decide(t, untuned, true, h200_rules());
  EXPECT_EQ(d.route, Route::OursNearest);
  EXPECT_EQ(d.config, t.entries[0].config) << d.why;
}

TEST(RuntimeDispatch, NothingValidGoesToTheLibrary) {
  // sm90 reads rows of A with TMA: K % 8 != 0 fits no tuned configuration.
  EXPECT_EQ(choose(tn(3000, 4096, 4097)).route, Route::LibraryHeuristic);
  // Nothing was tuned for NN.
  EXPECT_EQ(choose(tn(4096, 4096, 4096, Layout::NN)).route, Route::LibraryHeuristic);
  // Nor for fp16 accumulation.
  Problem f16 = tn(4096, 4096, 4096);
  f16.accum = Accum::F16;
  EXPECT_EQ(choose(f16).route, Route::LibraryHeuristic);
  // An empty table.
  const Decision empty = decide({}, tn(64, 64, 64), true, h200_rules());
  EXPECT_EQ(empty.route, Route::LibraryHeuristic);
  EXPECT_EQ(empty.entry, nullptr);
}

TEST(RuntimeDispatch, AFamilyThisBuildDoesNotKnowNeverRuns) {
  DispatchTable t;
  t.entries.push_back(entry(tn(256, 256, 256), {"retired", {{"BM", 128}}}));
  EXPECT_EQ(decide(t, tn(256, 256, 256), true, h200_rules()).route, Route::LibraryHeuristic);
}

TEST(RuntimeDispatch, RecordedLibraryAlgorithmWhereItMeasuredFaster) {
  DispatchTable t = table();
  t.entries[0].library_us = 9;  // faster than ours (10 us)...
  EXPECT_EQ(decide(t, tn(4096, 4096, 4096), true, h200_rules()).route, Route::OursExact)
      << "...but no algorithm recorded: nothing to call";
  t.entries[0].library_algo = lt_algo();
  const Decision d = decide(t, tn(4096, 4096, 4096), true, h200_rules());
  EXPECT_EQ(d.route, Route::LibraryRecorded);
  EXPECT_EQ(d.entry, &t.entries[0]);
  // Only at the shape it was measured at: a neighbour gets our nearest winner.
  EXPECT_EQ(decide(t, tn(3000, 4096, 4096), true, h200_rules()).route, Route::OursNearest);
  t.entries[0].library_us = 11;  // slower than ours: ours
  EXPECT_EQ(decide(t, tn(4096, 4096, 4096), true, h200_rules()).route, Route::OursExact);
}

TEST(RuntimeDispatch, OperandsOurKernelsWereNotVerifiedWithGoToTheLibrary) {
  EXPECT_EQ(choose(tn(4096, 4096, 4096), false).route, Route::LibraryHeuristic);
  const Problem p = tn(64, 32, 16);
  alignas(16) static unsigned short data[32];
  EXPECT_TRUE(operands_fit_our_kernels(p, data, 16, data, 16, data, 32));
  EXPECT_FALSE(operands_fit_our_kernels(p, data, 24, data, 16, data, 32));  // lda > K
  EXPECT_FALSE(operands_fit_our_kernels(p, data, 16, data, 16, data, 40));  // ldc > N
  EXPECT_FALSE(operands_fit_our_kernels(p, data + 1, 16, data, 16, data, 32));  // A 2 bytes off
  Problem nn = p;
  nn.layout = Layout::NN;
  EXPECT_TRUE(operands_fit_our_kernels(nn, data, 16, data, 32, data, 32));
  EXPECT_FALSE(operands_fit_our_kernels(nn, data, 16, data, 16, data, 32));  // ldb = K is not NN's
}

TEST(RuntimeCore, RunsTheDecisionWithItsGeometryOncePlanned) {
  auto backend = std::make_unique<FakeBackend>();
  FakeBackend& fake = *backend;
  Runtime runtime(table(), h200_limits(), std::move(backend));
  const Decision& first = runtime.gemm(call(tn(3000, 4096, 4096)));
  EXPECT_EQ(first.route, Route::OursNearest);
  EXPECT_EQ(fake.kernels, 1);
  const FamilySpec& sm90 = builtin_families().at("sm90");
  const LaunchGeometry expected =
      launch_geometry(sm90, config_variables(sm90, table().entries[0].config, tn(3000, 4096, 4096), h200_limits()));
  EXPECT_EQ(fake.last_geometry, expected) << "the geometry at the called shape, not at the tuned one";
  EXPECT_EQ(&runtime.gemm(call(tn(3000, 4096, 4096))), &first) << "planned once, then looked up";
  // Strided A: cuBLASLt's heuristic.
  GemmCall strided = call(tn(4096, 4096, 4096));
  strided.lda = 4104;
  EXPECT_EQ(runtime.gemm(strided).route, Route::LibraryHeuristic);
  EXPECT_EQ(fake.libraries, 1);
  EXPECT_FALSE(fake.last_algo.has_value());
}

TEST(RuntimeCore, PassesTheRecordedAlgorithmToTheLibrary) {
  DispatchTable t = table();
  t.entries[0].library_us = 9;
  t.entries[0].library_algo = lt_algo();
  auto backend = std::make_unique<FakeBackend>();
  FakeBackend& fake = *backend;
  Runtime runtime(std::move(t), h200_limits(), std::move(backend));
  runtime.gemm(call(tn(4096, 4096, 4096)));
  EXPECT_EQ(fake.kernels, 0);
  ASSERT_TRUE(fake.last_algo.has_value());
  EXPECT_EQ(*fake.last_algo, lt_algo());
}

// A call with a bias runs the winner's bias twin where the backend has one; else cuBLASLt, whose
// epilogue adds it, with the algorithm tune recorded at that very shape (none at an untuned one).
TEST(RuntimeCore, ABiasRunsTheBiasTwinElseTheLibrarysEpilogue) {
  DispatchTable t = table();
  t.entries[0].library_us = 11;  // recorded, but slower than ours (10 us)
  t.entries[0].library_algo = lt_algo();
  auto backend = std::make_unique<FakeBackend>();
  FakeBackend& fake = *backend;
  Runtime runtime(std::move(t), h200_limits(), std::move(backend));
  static const unsigned short bias[4096] = {};
  GemmCall tuned = call(tn(4096, 4096, 4096));
  tuned.bias = bias;
  EXPECT_EQ(runtime.gemm(tuned).route, Route::OursExact);
  EXPECT_EQ(fake.order, "k");
  EXPECT_EQ(fake.last_bias, bias);
  fake.bias_twins = false;  // a bundle's cubins
  EXPECT_EQ(runtime.gemm(tuned).route, Route::OursExact);
  EXPECT_EQ(fake.order, "kl");
  EXPECT_EQ(fake.last_bias, bias);
  ASSERT_TRUE(fake.last_algo.has_value());
  EXPECT_EQ(*fake.last_algo, lt_algo());
  GemmCall untuned = call(tn(3000, 4096, 4096));
  untuned.bias = bias;
  EXPECT_EQ(runtime.gemm(untuned).route, Route::OursNearest);
  EXPECT_EQ(fake.order, "kltl") << "timed without the bias, then run by the library";
  EXPECT_FALSE(fake.last_algo.has_value()) << "an algorithm recorded at another shape";
  runtime.gemm(call(tn(4096, 4096, 4096)));
  EXPECT_EQ(fake.order, "kltlk");
  EXPECT_EQ(fake.last_bias, nullptr);
}

TEST(RuntimeCore, LibraryOnlyRuntimeNeverRunsOurKernels) {
  auto backend = std::make_unique<FakeBackend>();
  FakeBackend& fake = *backend;
  Runtime runtime(table(), h200_limits(), std::move(backend), {.library_only = true});
  EXPECT_EQ(runtime.gemm(call(tn(4096, 4096, 4096))).route, Route::LibraryHeuristic);
  EXPECT_EQ(fake.kernels, 0);
  EXPECT_EQ(fake.libraries, 1);
}

TEST(RuntimeCore, BadArgumentsAreErrorsThatNameTheFix) {
  auto backend = std::make_unique<FakeBackend>();
  FakeBackend& fake = *backend;
  Runtime runtime(table(), h200_limits(), std::move(backend));
  auto expect_invalid = [&](GemmCall c, const std::string& needle) {
    try {
      runtime.gemm(c);
      ADD_FAILURE() << "accepted: " << needle;
    } catch (const RuntimeError& e) {
      EXPECT_EQ(e.status, CL2_ERROR_INVALID_ARGUMENT);
      EXPECT_NE(std::string(e.what()).find(needle), std::string::npos) << e.what();
    }
  };
  expect_invalid(call(tn(0, 64, 64)), "at least 1");
  expect_invalid(call(tn(64, -3, 64)), "at least 1");
  expect_invalid(call(tn(std::int64_t(1) << 31, 64, 64)), "below 2^31");
  GemmCall c = call(tn(64, 64, 64));
  c.a = nullptr;
  expect_invalid(c, "must not be null");
  c = call(tn(64, 64, 64));
  c.c = nullptr;
  expect_invalid(c, "must not be null");
  c = call(tn(64, 64, 64));
  c.lda = 32;
  expect_invalid(c, "lda 32 is smaller than K; pass lda >= K");
  c = call(tn(64, 128, 64, Layout::NN));
  c.ldb = 64;
  expect_invalid(c, "ldb 64 is smaller than a row of B (128)");
  c = call(tn(64, 64, 64));
  c.ldc = 8;
  expect_invalid(c, "ldc 8 is smaller than N");
  EXPECT_EQ(fake.kernels + fake.libraries, 0) << "nothing runs after a bad argument";
}

TEST(RuntimeCore, ConcurrentCallsFromManyThreads) {
  auto backend = std::make_unique<FakeBackend>();
  FakeBackend& fake = *backend;
  Runtime runtime(table(), h200_limits(), std::move(backend));
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t)
    threads.emplace_back([&, t] {
      for (int i = 0; i < 50; ++i) runtime.gemm(call(tn(1000 + 8 * ((t + i) % 5), 4096, 4096)));
    });
  for (auto& thread : threads) thread.join();
  EXPECT_EQ(fake.kernels, 200);
}

// A fit the database keeps for the GPU (calibrate --store) reaches the runtime's ranking as it
// reaches tune's plan: here its scale, which replaces the space file's.
TEST(RuntimeDispatch, StoredCalibrationRanksAsTunePlans) {
  const double file_scale = builtin_families().at("sm90").calibration_scale.value_or(1.0);
  const FamilyRules calibrated(h200_limits(), {{"NVIDIA H200", "sm90", {}, 2.0 * file_scale, 100, "now"},
                                               {"NVIDIA H200", "no_such_family", {}, 5.0, 1, "now"}});
  const Problem p = tn(3000, 4096, 4096);
  const KernelConfig& config = table().entries[0].config;
  EXPECT_NEAR(calibrated.model_us(config, p).value(), 2.0 * model(config, p), 1e-9 * model(config, p));
}
