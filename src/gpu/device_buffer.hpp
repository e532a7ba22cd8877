#pragma once
// Owning device allocation (cudaMalloc), moved not copied.
#include <cstddef>
#include <utility>

namespace cl2 {

class DeviceBuffer {
 public:
  DeviceBuffer() = default;
  explicit DeviceBuffer(std::size_t bytes);
  ~DeviceBuffer();
  DeviceBuffer(DeviceBuffer&& other) noexcept { swap(other); }
  DeviceBuffer& operator=(DeviceBuffer&& other) noexcept {
    DeviceBuffer(std::move(other)).swap(*this);
    return *this;
  }
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;

  void* get() const { return ptr_; }
  template <typename T>
  T* as() const { return static_cast<T*>(ptr_); }
  std::size_t bytes() const { return bytes_; }

 private:
  void swap(DeviceBuffer& other) noexcept {
    std::swap(ptr_, other.ptr_);
    std::swap(bytes_, other.bytes_);
  }
  void* ptr_ = nullptr;
  std::size_t bytes_ = 0;
};

}  // namespace cl2
