#include "tune/candidate_build.hpp"

#include <map>

namespace cl2 {

std::string BuiltCandidate::rejection() const {
  if (!compiled.ok) return "compile failed";
  return compiled.report.rejection();
}

KernelRun kernel_run(const BuiltCandidate& built, const StopRule& rule) {
  return {built.compiled.cubin_path, built.candidate.launch, built.candidate.config, rule};
}

std::vector<std::vector<BuiltCandidate>> build_candidates(
    const std::vector<Problem>& problems, const std::vector<std::vector<Candidate>>& candidates,
    const std::string& arch, const KernelCompiler& compiler, BuildCounts& counts,
    const std::function<void(std::size_t, std::size_t)>& on_compiled) {
  std::vector<std::vector<BuiltCandidate>> built(problems.size());
  std::vector<CompileJob> jobs;
  std::map<std::string, std::size_t> job_of_key;
  std::vector<std::vector<std::size_t>> job_index(problems.size());
  for (std::size_t p = 0; p < problems.size(); ++p) {
    for (const Candidate& candidate : candidates[p]) {
      BuiltCandidate b{candidate,
                       generate_source(*candidate.family, candidate.config, problems[p].layout,
                                       problems[p].accum),
                       arch, {}};
      CompileJob job{b.source, compile_options(*candidate.family, arch), arch};
      const std::string key = compiler.cache_key(job);
      auto [it, inserted] = job_of_key.emplace(key, jobs.size());
      if (inserted) jobs.push_back(std::move(job));
      job_index[p].push_back(it->second);
      built[p].push_back(std::move(b));
    }
  }
  std::size_t done = 0;
  const auto results = compiler.compile_all(jobs, 0, [&](std::size_t, const CompiledKernel&) {
    if (on_compiled) on_compiled(++done, jobs.size());
  });
  counts.unique = jobs.size();
  for (const auto& r : results) {
    counts.from_cache += r.from_cache ? 1 : 0;
    counts.failed += r.ok ? 0 : 1;
    counts.rejected += (r.ok && !r.report.rejection().empty()) ? 1 : 0;
  }
  for (std::size_t p = 0; p < problems.size(); ++p)
    for (std::size_t i = 0; i < built[p].size(); ++i) built[p][i].compiled = results[job_index[p][i]];
  return built;
}

}  // namespace cl2
