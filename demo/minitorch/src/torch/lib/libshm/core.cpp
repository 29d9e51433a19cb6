#include "libshm.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <utility>

#include <c10/Core.h>

namespace shm {

namespace {
[[noreturn]] void fail(const std::string& what, const std::string& name) {
  throw c10::Error("libshm: " + what + " '" + name + "': " + std::strerror(errno));
}
}  // namespace

Segment Segment::create(const std::string& name, std::size_t size) {
  const int fd = shm_open(name.c_str(), O_CREAT | O_EXCL | O_RDWR, 0600);
  if (fd < 0) fail("cannot create", name);
  if (ftruncate(fd, static_cast<off_t>(size)) != 0) {
    close(fd);
    shm_unlink(name.c_str());
    fail("cannot size", name);
  }
  void* p = mmap(nullptr, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  close(fd);
  if (p == MAP_FAILED) {
    shm_unlink(name.c_str());
    fail("cannot map", name);
  }
  return Segment(name, p, size, Owner::yes);
}

Segment Segment::open(const std::string& name) {
  const int fd = shm_open(name.c_str(), O_RDWR, 0600);
  if (fd < 0) fail("cannot open", name);
  struct stat st {};
  if (fstat(fd, &st) != 0) {
    close(fd);
    fail("cannot stat", name);
  }
  const auto size = static_cast<std::size_t>(st.st_size);
  void* p = mmap(nullptr, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  close(fd);
  if (p == MAP_FAILED) fail("cannot map", name);
  return Segment(name, p, size, Owner::no);
}

Segment::Segment(Segment&& other) noexcept
    : name_(std::move(other.name_)),
      data_(std::exchange(other.data_, nullptr)),
      size_(std::exchange(other.size_, 0)),
      owner_(std::exchange(other.owner_, Owner::no)) {}

Segment::~Segment() {
  if (data_ != nullptr) munmap(data_, size_);
  if (owner_ == Owner::yes) shm_unlink(name_.c_str());
}

}  // namespace shm
