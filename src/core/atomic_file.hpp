#pragma once
// Writing a whole file so that readers see the old content or the new, never a part: the bytes go
// to a name unique to this host, process and thread (and a random number: pods of a Kubernetes job
// all run as process 1 and may share the kernel cache) beside the target, then renamed over it.
// Used for exports, reports, comparison outputs and kernel-cache entries.
#include <filesystem>
#include <functional>
#include <string>
#include <string_view>

namespace cl2 {

// Throws UserError "<path>: cannot write the file; <fix>" when the file cannot be written.
void write_file_atomically(const std::filesystem::path& path, std::string_view bytes, std::string_view fix);

// A name beside `path`, unique as above, for what is written before it takes `path`'s place.
std::filesystem::path temporary_name_for(const std::filesystem::path& path);

// The same for a folder (a runtime bundle): `fill` writes the contents into a fresh folder beside
// `dir`, which then takes the place of `dir` (an existing `dir` is replaced whole). Where `fill`
// throws or the folder cannot be written, the fresh folder is removed and `dir` is as it was;
// throws UserError "<dir>: cannot write the folder; <fix>" for the latter.
void write_directory_atomically(const std::filesystem::path& dir,
                                const std::function<void(const std::filesystem::path&)>& fill, std::string_view fix);

}  // namespace cl2
