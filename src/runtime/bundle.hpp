#pragma once
// A runtime bundle (`export --format bundle -o DIR`): what libcl2 needs to dispatch on a machine
// without the tuning database or the kernel cache.
//   DIR/table.json            {"format": "cl2-bundle", "version": 1, "exported_by": {...},
//                              "table": <dispatch table: device, versions, entries>,
//                              "kernels": {KEY: {"cubin": "kernels/KEY.cubin",
//                                                "source": "kernels/KEY.cu", "cubin_hash": ...}}}
//   DIR/kernels/KEY.cubin     each winner's cubin (KEY = DispatchEntry::kernel_key()), and its bias
//                             twin's (KEY = bias_twin_key(), where the twin compiles)
//   DIR/kernels/KEY.cu        and the source it was compiled from
// The same manifest, with the cubins as byte arrays, is what `export --format cpp` writes.
#include <filesystem>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>

#include "runtime/dispatch_table.hpp"

namespace cl2 {

struct BundleKernel {
  std::string cubin;
  std::string source;  // empty where only the cubin was read back
};

struct Bundle {
  DispatchTable table;
  std::map<std::string, BundleKernel> kernels;  // by DispatchEntry::kernel_key() and bias_twin_key()
};

// The kernel of an entry, compiled (or taken from the cache) for the export.
using KernelFiles = std::function<BundleKernel(const DispatchEntry& entry)>;
// Its bias twin, or nullopt where there is none.
using TwinFiles = std::function<std::optional<BundleKernel>(const DispatchEntry& entry)>;

// The table with each distinct kernel of its entries, asked of `files` once, and of `bias_twins`
// (where given) each one's bias twin.
Bundle make_bundle(DispatchTable table, const KernelFiles& files, const TwinFiles& bias_twins = {});

// table.json's text.
std::string bundle_manifest(const Bundle& bundle);

// Writes the bundle as a whole or not at all (core/atomic_file). Throws UserError where `dir` is a
// non-empty folder that is not a bundle (it is never replaced) or cannot be written.
void write_bundle(const Bundle& bundle, const std::filesystem::path& dir);

// A manifest and its cubins, read back: `cubin_of(key, relative path)` gives a kernel's bytes.
// Throws RuntimeError (CL2_ERROR_BAD_INPUT_FILE) naming `what` and the fix for a manifest that
// does not parse, is not a bundle's or is of a newer version, a kernel that is missing, or a cubin
// whose hash is not the recorded one.
Bundle parse_bundle(std::string_view manifest,
                    const std::function<std::string(const std::string& key, const std::string& path)>& cubin_of,
                    const std::string& what);

// DIR's bundle (sources left unread); errors as parse_bundle's.
Bundle read_bundle(const std::filesystem::path& dir);

}  // namespace cl2
