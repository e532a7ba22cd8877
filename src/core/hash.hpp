#pragma once
// Content hashes for cache keys and kernel identity. FNV-1a over two seeds gives 128 bits, plenty
// against accidental collisions among the few thousand sources a tuning database ever holds.
#include <cstdint>
#include <string>
#include <string_view>

namespace cl2 {

class ContentHash {
 public:
  ContentHash& add(std::string_view bytes);
  // Separates fields so that ("ab","c") and ("a","bc") hash differently.
  ContentHash& add_field(std::string_view bytes);
  std::string hex() const;  // 32 lowercase hex digits

 private:
  std::uint64_t low_ = 0xcbf29ce484222325ull;
  std::uint64_t high_ = 0x84222325cbf29ce4ull;
};

std::string content_hash(std::string_view bytes);

}  // namespace cl2
