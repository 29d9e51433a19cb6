#pragma once
// libshm: named POSIX shared-memory segments, as used by PyTorch's
// multiprocessing to share tensors between processes.
#include <cstddef>
#include <string>

#include <c10/Macros.h>

#ifdef SHM_BUILD_MAIN_LIB
#define SHM_API C10_EXPORT
#else
#define SHM_API C10_IMPORT
#endif

namespace shm {

// A mapped segment; unmaps (and unlinks, when it owns the name) on destruction.
class SHM_API Segment {
 public:
  // Creates a new segment of `size` bytes; throws c10::Error on failure.
  static Segment create(const std::string& name, std::size_t size);
  // Maps an existing segment; throws c10::Error on failure.
  static Segment open(const std::string& name);

  Segment(Segment&& other) noexcept;
  Segment& operator=(Segment&&) = delete;
  Segment(const Segment&) = delete;
  ~Segment();

  void* data() const { return data_; }
  std::size_t size() const { return size_; }

 private:
  enum class Owner { yes, no };
  Segment(std::string name, void* data, std::size_t size, Owner owner)
      : name_(std::move(name)), data_(data), size_(size), owner_(owner) {}
  std::string name_;
  void* data_ = nullptr;
  std::size_t size_ = 0;
  Owner owner_ = Owner::no;
};

}  // namespace shm
