#include "runtime/runtime_export.hpp"

#include <fmt/format.h>

#include <set>

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
  std::vector<CompileJob> twins;
  std::set<std::string> keys;
  for (const DispatchEntry& entry : tables.front().entries)
    if (keys.insert(entry.kernel_key()).second && builtin_families().contains(entry.config.family))
      twins.push_back(bias_twin_job(entry, builtin_families().at(entry.config.family)));
  compiler.compile_all(twins);
  return make_bundle(
      std::move(tables.front()),
      [&](const DispatchEntry& entry) {
        const RebuiltKernel built = rebuild_entry_kernel(entry, compiler);
        return BundleKernel{read_cubin(built.compiled.cubin_path), built.source.text};
      },
      [&](const DispatchEntry& entry) -> std::optional<BundleKernel> {
        const std::optional<RebuiltKernel> twin = rebuild_bias_twin(entry, compiler);
        if (!twin) return std::nullopt;
        return BundleKernel{read_cubin(twin->compiled.cubin_path), twin->source.text};
      });
}

}  // namespace cl2
