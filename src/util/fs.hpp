#pragma once
// Filesystem helpers: whole-file reads, atomic writes (temp + rename), an
// RAII temp dir, and an advisory file lock.
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>

#include "core/error.hpp"

namespace sf::fs {

namespace stdfs = std::filesystem;

Result<std::string> read_file(const stdfs::path& p);

// Writes to "<p>.tmp-<pid>-<n>" in the same directory, fsyncs, then renames
// over p. Readers see the old file or the new one, never half of one.
Result<void> write_file_atomic(const stdfs::path& p, std::string_view data);

// A unique directory under the system temp dir (or `parent`), removed on
// destruction unless release() was called.
class TempDir {
public:
    explicit TempDir(std::string_view prefix = "splitforge", const stdfs::path& parent = {});
    ~TempDir();
    TempDir(const TempDir&) = delete;
    TempDir& operator=(const TempDir&) = delete;
    const stdfs::path& path() const { return path_; }
    stdfs::path release();

private:
    stdfs::path path_;
    bool keep_ = false;
};

// The newest modification time (seconds since the epoch) of the files and
// symlinks under `dir` (not following links, skipping .git), or nullopt when
// there are none. A reproducible default timestamp for what is made from them.
std::optional<std::int64_t> newest_mtime(const stdfs::path& dir);

// Exclusive flock() on a lock file, held for the object's lifetime.
class FileLock {
public:
    explicit FileLock(const stdfs::path& lock_file);
    ~FileLock();
    FileLock(const FileLock&) = delete;
    FileLock& operator=(const FileLock&) = delete;

private:
    int fd_ = -1;
};

}  // namespace sf::fs
