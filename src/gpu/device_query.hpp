#pragma once
// Which GPU is here, and what it is.
#include <string>

#include "core/device_info.hpp"
#include "search/device_limits.hpp"

namespace cl2 {

// "" when device `index` can be used; otherwise why not, in one line a user can act on
// (no driver, no GPU, index out of range).
std::string gpu_unavailable_reason(int index);

// Makes `index` current and reads its properties and the software versions.
DeviceInfo query_device(int index);

// The search-space view of a device; the rates are measured-ceiling estimates per architecture.
DeviceLimits device_limits(const DeviceInfo& info);

}  // namespace cl2
