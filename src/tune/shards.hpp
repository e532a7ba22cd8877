#pragma once
// `tune --shard I/N`: N machines (a job array, an indexed job) each tune a part of one shapes
// file, and `merge` puts their databases together. Every shard must compute the same partition
// without talking to the others, so it depends only on the shapes, the selected families and
// their cost models evaluated for a fixed reference GPU (not the one the shard runs on), and it
// balances the estimated tuning time: the longest shapes first, each to the least loaded shard.
#include <string>
#include <vector>

#include "core/problem.hpp"
#include "search/family_spec.hpp"

namespace cl2 {

struct ShardSpec {
  int index = 0;  // 0 .. count - 1
  int count = 1;
};

// "I/N" with 0 <= I < N; UserError naming --shard otherwise.
ShardSpec parse_shard(const std::string& text);

// Indices (ascending) of the weights that shard `spec` takes.
std::vector<std::size_t> shard_members(const std::vector<double>& weights, const ShardSpec& spec);

// The problems of shard `spec`, in shapes-file order, weighted by the plans tune will make
// (`max_candidates` and `family_share` as the strategy's SearchPlan has them).
std::vector<Problem> select_shard(const std::vector<Problem>& problems,
                                  const std::vector<const FamilySpec*>& families,
                                  std::size_t max_candidates, std::size_t family_share, const ShardSpec& spec);

}  // namespace cl2
