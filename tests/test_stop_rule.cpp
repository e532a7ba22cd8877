// When a measurement stops (gpu/stop_rule.hpp), on synthetic samples: the rule must end on a
// call whose samples keep their spread, which a rule on the spread itself did not.
#include <gtest/gtest.h>

#include <random>
#include <vector>

#include "gpu/stop_rule.hpp"

namespace cl2 {
namespace {

// Feeds rounds of samples (each call's next sample from its own normal distribution) to the rule
// until it stops; `seconds_per_sample` is what each sample adds to a call's measured time.
struct Outcome {
  StopReason reason = StopReason::GoOn;
  int rounds = 0;
  std::vector<TimingStats> stats;
};

Outcome run_rounds(const StopRule& rule, const std::vector<double>& spread_pct, double seconds_per_sample,
                   double wall_per_round = 0) {
  std::mt19937 rng(7);
  std::vector<std::normal_distribution<double>> draws;
  for (const double spread : spread_pct) draws.emplace_back(100.0, spread);
  std::vector<std::vector<double>> samples(spread_pct.size());
  std::vector<double> seconds(spread_pct.size(), 0.0);
  Outcome out;
  while (out.reason == StopReason::GoOn && out.rounds < 100000) {
    ++out.rounds;
    out.stats.clear();
    for (std::size_t i = 0; i < samples.size(); ++i) {
      samples[i].push_back(draws[i](rng));
      seconds[i] += seconds_per_sample;
      out.stats.push_back(summarize(samples[i], 1));
    }
    out.reason = stop_reason(rule, out.stats, seconds, wall_per_round * out.rounds);
  }
  return out;
}

TEST(StopRule, MedianErrorShrinksWithSamplesAtTheSameSpread) {
  TimingStats few{.spread_pct = 1.5, .samples = 16}, many{.spread_pct = 1.5, .samples = 64};
  EXPECT_NEAR(median_error(few), 1.2533 * 0.015 / 4, 1e-5);
  EXPECT_NEAR(median_error(many), median_error(few) / 2, 1e-9);
  EXPECT_FALSE(median_error(TimingStats{.spread_pct = 0, .samples = 1}) < 1.0);  // one sample tells nothing
}

TEST(StopRule, FinalRuleSettlesOnSpreadsTheH200Shows) {
  // 1.5% spread: (1.2533 * 1.5 / 0.2)^2 = 88 rounds for a median to 0.2%, well before the cap.
  const Outcome out = run_rounds(final_stop_rule(), {1.5, 0.8}, 300e-6);
  EXPECT_EQ(out.reason, StopReason::Settled);
  EXPECT_GT(out.rounds, 60);
  EXPECT_LT(out.rounds, 130);
  for (const auto& s : out.stats) EXPECT_LE(median_error(s), final_stop_rule().max_error);
}

TEST(StopRule, ScreeningStopsAtItsMinimumTimeForQuietCalls) {
  // 0.3% spread settles the error at once; 2 ms of 200 us samples takes 10 rounds.
  const Outcome out = run_rounds(screening_stop_rule(), {0.3, 0.3}, 200e-6);
  EXPECT_EQ(out.reason, StopReason::Settled);
  EXPECT_EQ(out.rounds, 10);
}

TEST(StopRule, TheNoisiestCallDecidesAndTheCapEndsIt) {
  // One call at 10% spread would need ~1570 rounds; the screening cap of 60 ends it.
  const Outcome out = run_rounds(screening_stop_rule(), {0.3, 10.0}, 200e-6);
  EXPECT_EQ(out.reason, StopReason::Capped);
  EXPECT_EQ(out.rounds, screening_stop_rule().max_samples);
}

TEST(StopRule, WallTimeEndsAMeasurementOnlyAfterTheMinimumSamples) {
  StopRule rule = final_stop_rule();
  // Each round takes longer than the whole budget: still min_samples rounds.
  const Outcome out = run_rounds(rule, {5.0}, 300e-6, rule.max_seconds * 2);
  EXPECT_EQ(out.reason, StopReason::OutOfTime);
  EXPECT_EQ(out.rounds, rule.min_samples);
}

// Two calls whose samples share a 3% round-to-round swing (the clock) on top of 0.2% of their own.
Outcome run_shared_noise_rounds(const StopRule& rule) {
  std::mt19937 rng(11);
  std::normal_distribution<double> shared(1.0, 0.03), own(0.0, 0.002);
  std::vector<std::vector<double>> samples(2);
  std::vector<double> seconds(2, 0.0);
  Outcome out;
  while (out.reason == StopReason::GoOn && out.rounds < 100000) {
    ++out.rounds;
    const double swing = shared(rng);
    samples[0].push_back(100.0 * swing * (1 + own(rng)));
    samples[1].push_back(120.0 * swing * (1 + own(rng)));
    out.stats = {summarize(samples[0], 1), summarize(samples[1], 1)};
    for (double& s : seconds) s += 200e-6;
    out.reason = stop_reason(rule, out.stats, seconds, 0, ratios_to_first(samples));
  }
  return out;
}

// A library call (first) with two candidates beside it, all swinging 3% together from round to
// round; the quiet candidate's ratio to the library spreads 0.2%, the noisy one's 3%. Rounds
// replay the calls calls_still_timed names; returns each call's samples at the end.
std::vector<std::size_t> samples_beside_first(const StopRule& rule) {
  std::mt19937 rng(5);
  std::normal_distribution<double> shared(1.0, 0.03), quiet(0.0, 0.002), noisy(0.0, 0.03);
  const std::vector<double> base = {100.0, 90.0, 120.0};
  std::vector<std::vector<double>> samples(3);
  std::vector<double> seconds(3, 0.0);
  std::vector<bool> timed(3, true);
  for (StopReason reason = StopReason::GoOn; reason == StopReason::GoOn;) {
    const double swing = shared(rng);
    const std::vector<double> own = {quiet(rng), quiet(rng), noisy(rng)};
    std::vector<TimingStats> stats;
    for (std::size_t i = 0; i < 3; ++i) {
      if (timed[i]) {
        samples[i].push_back(base[i] * swing * (1 + own[i]));
        seconds[i] += 200e-6;
      }
      stats.push_back(summarize(samples[i], 1));
    }
    const auto ratios = ratios_to_first(samples);
    reason = stop_reason(rule, stats, seconds, 0, ratios);
    timed = calls_still_timed(rule, stats, seconds, ratios);
  }
  return {samples[0].size(), samples[1].size(), samples[2].size()};
}

TEST(StopRule, ACandidateWhoseRatioSettledIsNoLongerTimedWhileTheFirstGoesOn) {
  const auto counts = samples_beside_first(screening_stop_rule());
  EXPECT_LE(counts[1], 12u) << "the quiet candidate stops once its ratio is known";
  EXPECT_EQ(counts[2], std::size_t(screening_stop_rule().max_samples)) << "the noisy one runs to the cap";
  EXPECT_EQ(counts[0], counts[2]) << "the library call is timed as long as any candidate";
  StopRule all_along = screening_stop_rule();
  all_along.settled_calls_stop = false;
  const auto together = samples_beside_first(all_along);
  EXPECT_EQ(together[1], together[2]) << "without it every call is timed in every round";
  EXPECT_TRUE(race_stop_rule().settled_calls_stop);
  EXPECT_FALSE(final_round_stop_rule().settled_calls_stop);  // finalists are settled together
}

TEST(StopRule, RatiosToFirstDivideRoundByRound) {
  const auto ratios = ratios_to_first({{100, 200, 50}, {110, 220, 55}, {50, 100, 25}});
  ASSERT_EQ(ratios.size(), 3u);
  EXPECT_DOUBLE_EQ(ratios[0].median_us, 1.0);
  EXPECT_DOUBLE_EQ(ratios[1].median_us, 1.1);
  EXPECT_NEAR(ratios[1].spread_pct, 0.0, 1e-9);  // the swing between rounds cancels
  EXPECT_DOUBLE_EQ(ratios[2].median_us, 0.5);
}

TEST(StopRule, ScreeningSettlesOnRatiosWhereTheRoundsShareTheirNoise) {
  // Each call alone spreads 3%: a median to 0.4% needs ~880 rounds, so the cap of 60 would end
  // it; their ratio spreads ~0.3% and is known to 0.4% within the 2 ms minimum.
  const Outcome on_ratios = run_shared_noise_rounds(screening_stop_rule());
  EXPECT_EQ(on_ratios.reason, StopReason::Settled);
  EXPECT_LE(on_ratios.rounds, 12);
  StopRule own_only = screening_stop_rule();
  own_only.settle_on_ratios = false;
  EXPECT_EQ(run_shared_noise_rounds(own_only).reason, StopReason::Capped);
}

TEST(StopRule, TunesFinalRoundSettlesOnRatiosWhereBenchsTimesKeepTheirOwn) {
  // The same shared 3% swing: a median to 0.2% alone needs ~350 rounds; the ratio (0.3% spread)
  // is known to the final round's 0.5% within a few, so its 10 ms minimum (50 rounds of 200 us)
  // ends it.
  const Outcome on_ratios = run_shared_noise_rounds(final_round_stop_rule());
  EXPECT_EQ(on_ratios.reason, StopReason::Settled);
  EXPECT_NEAR(on_ratios.rounds, 50, 1);  // the sum of 50 x 200e-6 may fall just short
  EXPECT_FALSE(final_stop_rule().settle_on_ratios);  // bench's peaks and tables are times themselves
  EXPECT_GT(run_shared_noise_rounds(final_stop_rule()).rounds, 300);
}

TEST(StopRule, TunesFinalRoundAsksAQuarterOfTheSamplesOfBenchsForAnEqualSpread) {
  // Alone, without shared noise: a 1.5% spread needs (1.2533 * 1.5 / 0.5)^2 = 15 rounds for 0.5%
  // (the minimum samples then decide) and 88 for bench's 0.2%.
  const Outcome tune = run_rounds(final_round_stop_rule(), {1.5, 0.8}, 1e-3);
  const Outcome bench = run_rounds(final_stop_rule(), {1.5, 0.8}, 1e-3);
  EXPECT_EQ(tune.reason, StopReason::Settled);
  EXPECT_LE(tune.rounds, 25);
  EXPECT_GT(bench.rounds, 60);
}

TEST(StopRule, ARequestOfSeveralCandidatesWaitsOneWatchdogPeriodAndEachFurtherOnesMeasurement) {
  const StopRule screening = screening_stop_rule();
  EXPECT_DOUBLE_EQ(request_timeout_seconds(screening, 1, 30), 30);
  EXPECT_DOUBLE_EQ(request_timeout_seconds(screening, 8, 30), 30 + 7 * (screening.max_seconds + 1));
  EXPECT_LT(request_timeout_seconds(race_stop_rule(), 8, 30), request_timeout_seconds(screening, 8, 30));
  EXPECT_LT(request_timeout_seconds(screening, 8, 30), 2 * 30) << "a hang costs about one period, not eight";
}

}  // namespace
}  // namespace cl2
