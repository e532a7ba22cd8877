#pragma once
// The runtime library's core, without the GPU: checks a call's arguments, decides where it goes
// (runtime/dispatch), once per problem, with the kernel's launch geometry there, and hands it to
// the backend. Thread-safe.
#include <map>
#include <memory>
#include <mutex>
#include <tuple>

#include "runtime/dispatch.hpp"
#include "runtime/gemm_backend.hpp"

namespace cl2 {

class Runtime {
 public:
  // `library_only`: every call goes to cuBLASLt (a table tuned on another GPU, opened with
  // CL2_OPEN_LIBRARY_FALLBACK).
  Runtime(DispatchTable table, const DeviceLimits& device, std::unique_ptr<GemmBackend> backend,
          bool library_only = false);

  // Throws RuntimeError (CL2_ERROR_INVALID_ARGUMENT) for a size < 1 or beyond 2^31 - 1, a null
  // pointer, or a leading dimension smaller than its matrix's row; returns what ran.
  const Decision& gemm(const GemmCall& call);

  // What gemm() runs for `problem` with tight, aligned operands.
  const Decision& describe(const Problem& problem);

  const DispatchTable& table() const { return table_; }

 private:
  struct Plan {
    Decision decision;
    LaunchGeometry geometry;  // of decision.config at the problem, where ours
  };
  const Plan& plan(const Problem& problem, bool ours_allowed);

  DispatchTable table_;
  DeviceLimits device_;
  FamilyRules rules_;
  std::unique_ptr<GemmBackend> backend_;
  bool library_only_;
  std::mutex mutex_;
  // Plans never move once made (std::map), so callers may keep references to them.
  std::map<std::tuple<std::int64_t, std::int64_t, std::int64_t, Layout, Accum, bool>, Plan> plans_;
};

}  // namespace cl2
