#include "runtime/bundle.hpp"

#include <fmt/format.h>

#include <fstream>
#include <iterator>

#include "compiler/kernel_compiler.hpp"
#include "core/atomic_file.hpp"
#include "core/errors.hpp"
#include "core/hash.hpp"
#include "runtime/runtime_error.hpp"

namespace cl2 {

namespace {

constexpr const char* kFormat = "cl2-bundle";
constexpr int kVersion = 1;
constexpr const char* kManifestName = "table.json";

std::string cubin_path(const std::string& key) { return "kernels/" + key + ".cubin"; }
std::string source_path(const std::string& key) { return "kernels/" + key + ".cu"; }

bool is_bundle_or_empty(const std::filesystem::path& dir) {
  std::error_code error;
  if (!std::filesystem::exists(dir, error)) return true;
  if (!std::filesystem::is_directory(dir, error)) return false;
  return std::filesystem::is_empty(dir, error) || std::filesystem::exists(dir / kManifestName, error);
}

}  // namespace

Bundle make_bundle(DispatchTable table, const KernelFiles& files, const TwinFiles& bias_twins) {
  Bundle bundle;
  for (const DispatchEntry& entry : table.entries) {
    if (bundle.kernels.contains(entry.kernel_key())) continue;
    bundle.kernels.emplace(entry.kernel_key(), files(entry));
    if (!bias_twins) continue;
    if (std::optional<BundleKernel> twin = bias_twins(entry)) bundle.kernels.emplace(entry.bias_twin_key(), *twin);
  }
  bundle.table = std::move(table);
  return bundle;
}

std::string bundle_manifest(const Bundle& bundle) {
  nlohmann::json kernels = nlohmann::json::object();
  for (const auto& [key, kernel] : bundle.kernels)
    kernels[key] = {{"cubin", cubin_path(key)}, {"source", source_path(key)}, {"cubin_hash", content_hash(kernel.cubin)}};
  const nlohmann::json manifest = {{"format", kFormat},
                                   {"version", kVersion},
                                   {"exported_by", {{"tool", "cuda-l2-tune"}, {"nvrtc", nvrtc_version_text()}}},
                                   {"table", table_to_json(bundle.table)},
                                   {"kernels", std::move(kernels)}};
  return manifest.dump(1) + "\n";
}

void write_bundle(const Bundle& bundle, const std::filesystem::path& dir) {
  if (!is_bundle_or_empty(dir))
    throw UserError(fmt::format("{}: exists and is not a bundle (no {}); choose another -o folder", dir.string(),
                                kManifestName));
  const std::string fix = "choose a writable -o folder";
  write_directory_atomically(
      dir,
      [&](const std::filesystem::path& into) {
        std::filesystem::create_directory(into / "kernels");
        for (const auto& [key, kernel] : bundle.kernels) {
          write_file_atomically(into / cubin_path(key), kernel.cubin, fix);
          write_file_atomically(into / source_path(key), kernel.source, fix);
        }
        write_file_atomically(into / kManifestName, bundle_manifest(bundle), fix);
      },
      fix);
}

Bundle parse_bundle(std::string_view manifest,
                    const std::function<std::string(const std::string& key, const std::string& path)>& cubin_of,
                    const std::string& what) {
  auto corrupt = [&](const std::string& why) {
    return RuntimeError(CL2_ERROR_BAD_INPUT_FILE,
                        fmt::format("{}: {}; export the bundle again (cuda-l2-tune export --format bundle)", what, why));
  };
  Bundle bundle;
  try {
    const nlohmann::json json = nlohmann::json::parse(manifest);
    if (!json.is_object() || json.value("format", "") != kFormat) throw corrupt("not a cl2 bundle");
    if (json.at("version").get<int>() > kVersion)
      throw corrupt(fmt::format("bundle version {} is newer than this library reads ({})",
                                json.at("version").get<int>(), kVersion));
    bundle.table = table_from_json(json.at("table"));
    for (const auto& [key, kernel] : json.at("kernels").items()) {
      const std::string path = kernel.at("cubin").get<std::string>();
      std::string cubin = cubin_of(key, path);
      if (content_hash(cubin) != kernel.at("cubin_hash").get<std::string>())
        throw corrupt(fmt::format("{} is damaged (its hash is not the recorded one)", path));
      bundle.kernels.emplace(key, BundleKernel{std::move(cubin), {}});
    }
  } catch (const RuntimeError&) {
    throw;
  } catch (const std::exception& e) {  // nlohmann's parse and type errors, UserError for a bad spelling
    throw corrupt(fmt::format("malformed ({})", e.what()));
  }
  for (const DispatchEntry& entry : bundle.table.entries)
    if (!bundle.kernels.contains(entry.kernel_key()))
      throw corrupt(fmt::format("kernel {} of {} is missing", entry.kernel_key(), entry.problem.text()));
  return bundle;
}

Bundle read_bundle(const std::filesystem::path& dir) {
  auto read = [](const std::filesystem::path& path, std::string& bytes) {
    std::ifstream in(path, std::ios::binary);
    if (!in) return false;
    bytes.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
    return !in.bad();
  };
  std::string manifest;
  const std::string what = (dir / kManifestName).string();
  if (!read(dir / kManifestName, manifest))
    throw RuntimeError(CL2_ERROR_BAD_INPUT_FILE,
                       fmt::format("{}: cannot read it; pass a bundle folder (cuda-l2-tune export --format bundle "
                                   "-o DIR) or a tuning database",
                                   what));
  return parse_bundle(
      manifest,
      [&](const std::string&, const std::string& path) {
        std::string bytes;
        // A path from the manifest stays inside the bundle.
        if (std::filesystem::path(path).is_absolute() || path.find("..") != std::string::npos ||
            !read(dir / path, bytes))
          throw RuntimeError(CL2_ERROR_BAD_INPUT_FILE,
                             fmt::format("{}: cannot read {}; export the bundle again", what, path));
        return bytes;
      },
      what);
}

}  // namespace cl2
