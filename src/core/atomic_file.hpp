#pragma once
// Writing a whole file so that readers see the old content or the new, never a part: the bytes go
// to a name unique to this host, process and thread (and a random number: pods of a Kubernetes job
// all run as process 1 and may share the kernel cache) beside the target, then renamed over it.
// Used for exports, reports, comparison outputs and kernel-cache entries.
#include <filesystem>
#include <string>
#include <string_view>

namespace cl2 {

// Throws UserError "<path>: cannot write the file; <fix>" when the file cannot be written.
void write_file_atomically(const std::filesystem::path& path, std::string_view bytes, std::string_view fix);

}  // namespace cl2
