#include "db/device_match.hpp"

#include <fmt/format.h>

#include "core/errors.hpp"

namespace cl2 {

std::optional<std::int64_t> device_with_fingerprint(const TuningDb& db, const DeviceInfo& device) {
  for (const auto& [id, stored] : db.devices())
    if (stored.fingerprint() == device.fingerprint()) return id;
  return std::nullopt;
}

std::int64_t device_in_db(const TuningDb& db, const DeviceInfo& device) {
  if (const auto id = device_with_fingerprint(db, device)) return *id;
  std::int64_t by_name = 0;
  for (const auto& [id, stored] : db.devices())
    if (stored.name == device.name) by_name = id;
  if (by_name == 0)
    throw UserError(fmt::format("{}: has no tuning results for {}; run `cuda-l2-tune tune` on this GPU first",
                                db.path(), device.name));
  return by_name;
}

}  // namespace cl2
