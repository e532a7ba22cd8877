#include "runtime/runtime_export.hpp"

#include <fmt/format.h>

#include <map>

#include "core/errors.hpp"
#include "runtime/cubin_source.hpp"

namespace cl2 {

Bundle bundle_from_db(const TuningDb& db, const std::string& device_filter, const KernelCompiler& compiler) {
  std::vector<DispatchTable> tables = dispatch_tables(db, device_filter);
  const std::string filter = device_filter.empty() ? "" : fmt::format(" matching --device {}", device_filter);
  if (tables.empty())
    throw UserError(fmt::format("{}: no winners{}; tune first, or check --device", db.path(), filter));
  if (tables.size() > 1) {
    std::string names;
    for (const DispatchTable& table : tables) names += (names.empty() ? "" : ", ") + table.device.name;
    throw UserError(fmt::format("{}: holds winners of {} GPUs{} ({}); a bundle is for one, choose it with --device",
                                db.path(), tables.size(), filter, names));
  }
  // The bias twins first, on every core: tune never times them, so they are seldom in the cache,
  // and one by one they would take a second or more each.
  std::map<std::string, std::size_t> twin_job;  // kernel key -> its twin's job
  std::vector<CompileJob> jobs;
  for (const DispatchEntry& entry : tables.front().entries)
    if (builtin_families().contains(entry.config.family) && twin_job.emplace(entry.kernel_key(), jobs.size()).second)
      jobs.push_back(bias_twin_job(entry, builtin_families().at(entry.config.family)));
  const std::vector<CompiledKernel> twins = compiler.compile_all(jobs);
  return make_bundle(
      std::move(tables.front()),
      [&](const DispatchEntry& entry) {  // checks that the template is the one the kernel was tuned with
        const RebuiltKernel built = rebuild_entry_kernel(entry, compiler);
        return BundleKernel{read_cubin(built.compiled.cubin_path), built.source.text};
      },
      [&](const DispatchEntry& entry) -> std::optional<BundleKernel> {
        const std::size_t job = twin_job.at(entry.kernel_key());
        if (!twins[job].ok) return std::nullopt;
        return BundleKernel{read_cubin(twins[job].cubin_path), jobs[job].source.text};
      });
}

}  // namespace cl2
