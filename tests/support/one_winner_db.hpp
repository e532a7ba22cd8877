#pragma once
// A tuning database holding one winner on this machine's GPU, tuned by nobody: the planner's first
// configuration for the shape (or one the test gives), recorded as if it had won. For the GPU tests
// of what reads winners back (libcl2, bench).
#include <gtest/gtest.h>

#include <optional>
#include <string>
#include <vector>

#include "codegen/codegen.hpp"
#include "../db_test_support.hpp"
#include "gpu/device_query.hpp"
#include "search/candidates.hpp"
#include "search/family_spec.hpp"

namespace cl2::test {

// A database holding one winner for `tuned` on this GPU (or on `on`, without one): the planner's
// first configuration, or `config` where given (of a family that GPU runs).
inline void write_one_winner_db(const std::string& path, const Problem& tuned,
                                const std::optional<KernelConfig>& config = std::nullopt,
                                const std::optional<DeviceInfo>& on = std::nullopt) {
  const DeviceInfo device = on ? *on : query_device(0);
  const DeviceLimits limits = device_limits(device);
  std::vector<const FamilySpec*> families;
  for (const auto& [name, family] : builtin_families())
    if (family.supports_cc(device.cc())) families.push_back(&family);
  ASSERT_FALSE(families.empty()) << "no family for sm_" << device.cc();
  const Candidate first = plan_candidates(families, tuned, limits, 1).front();
  const FamilySpec& family = config ? builtin_families().at(config->family) : *first.family;
  const KernelConfig& won = config ? *config : first.config;
  auto db = TuningDb::open(path, DbMode::ReadWrite);
  const std::int64_t run = db->begin_run("test", "");
  const std::int64_t device_id = db->upsert_device(device);
  KernelRecord kernel;
  kernel.family = family.name;
  kernel.config_json = won.to_json();
  kernel.source_hash = generate_source(family, won, tuned.layout, tuned.accum).hash;
  kernel.arch = limits.nvrtc_arch();
  kernel.compiled = true;
  const std::int64_t kernel_id = db->upsert_kernel(kernel);
  WinnerRecord winner = test_winner(tuned, 10, 20, 20, 20);
  winner.device_id = device_id;
  winner.run_id = run;
  winner.kernel_id = kernel_id;
  winner.trial_id = db->insert_trial(ok_trial(run, device_id, kernel_id, tuned, 10));
  db->put_winner(winner);
}

}  // namespace cl2::test
