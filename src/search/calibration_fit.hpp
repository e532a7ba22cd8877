#pragma once
// Fits a family's calibration factors (search/cost_model.hpp) to measured trials: least squares on
// log time, each problem's mean taken out first, since planning only compares the variants of one
// problem with each other. Judges a set of factors by how well the model then ranks each problem's
// measured variants.
#include <cstddef>
#include <string>
#include <utility>
#include <vector>

#include "search/candidates.hpp"

namespace cl2 {

struct CalibrationSample {
  std::string shape;              // the problem (held out together in cross-validation)
  std::string group;              // the variants compared with each other: one problem in one run
  double log_base_cost = 0;       // log of the uncalibrated model cost
  std::vector<bool> features;     // which calibration factors apply
  double log_time = 0;            // log of the measured time
};

struct RankingQuality {
  std::size_t groups = 0;         // problems with at least three measured variants
  double mean_spearman = 0;       // rank correlation of model and measurement, averaged over them
  double top1_regret = 1;         // geomean of (time of the model's first choice / best time)
  // Geomean of (best time among the model's first N / best time), and the problems where that is
  // within 2%: with N = kDefaultMaxCandidates, how often tune's default plan would hold the best.
  double first_regret = 1;
  std::size_t first_within_2pct = 0;
  // The problems whose first N hold nothing within 2% of their best: the group, and the place of
  // its fastest measured variant in the model's order (from 1), in the groups' order.
  std::vector<std::pair<std::string, std::size_t>> missed;
};

// Log factors w minimising the sum over samples of (log_time - log_base_cost - w . features)^2,
// each term centred on its group's mean and weighted by how close the sample is to its group's
// fastest (the order of the fast variants is what planning needs), plus ridge * |w|^2 (which keeps
// factors that the data hardly constrains near 1).
std::vector<double> fit_log_factors(const std::vector<CalibrationSample>& samples, std::size_t feature_count,
                                    double ridge);

// The log of the family's calibration scale: the mean over samples of log_time - log_base_cost -
// log_factors . features (what is left of the measured time once the factors are applied).
double fit_log_scale(const std::vector<CalibrationSample>& samples, const std::vector<double>& log_factors);

// first_n: the N of RankingQuality's "first N" (a race screens from 4x --max-candidates).
RankingQuality ranking_quality(const std::vector<CalibrationSample>& samples, const std::vector<double>& log_factors,
                               std::size_t first_n = kDefaultMaxCandidates);

// Fits on every other shape (in name order, all its groups together) and judges on the rest, then
// the other way round; the quality of the two held-out halves together. What a fit can be expected
// to do on shapes it has not seen.
RankingQuality cross_validated_quality(const std::vector<CalibrationSample>& samples, std::size_t feature_count,
                                       double ridge, std::size_t first_n = kDefaultMaxCandidates);

}  // namespace cl2
