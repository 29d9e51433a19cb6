#pragma once
// Filesystem helpers: whole-file reads, atomic writes (temp + rename), an
// RAII temp dir, and an advisory file lock.
#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>

#include "core/error.hpp"

namespace sf::fs {

namespace stdfs = std::filesystem;

class Dir;

// What a file of this st_mode is, for messages: "a FIFO", "a socket",
// "a character device", "a block device", "a directory", "a symlink".
std::string file_kind(unsigned mode);

// A regular file opened for reading, without ever blocking in open(): it is
// opened O_NONBLOCK (a FIFO's open returns at once instead of waiting for a
// writer, a device's is not waited for), kept only when fstat says regular,
// then O_NONBLOCK is cleared. Anything else is an input error naming the
// file and what it is. Every file splitforge reads from disk is opened so.
class InputFile {
public:
    static Result<InputFile> open(const stdfs::path& p);
    InputFile(InputFile&& o) noexcept : fd_(std::exchange(o.fd_, -1)), size_(o.size_) {}
    InputFile& operator=(InputFile&& o) noexcept;
    ~InputFile();
    int fd() const { return fd_; }
    std::uint64_t size() const { return size_; }  // at open
    int release() { return std::exchange(fd_, -1); }
    // The rest of the file, refused once it grows past `max_bytes`.
    Result<std::string> read_all(const stdfs::path& p, std::uint64_t max_bytes);

private:
    InputFile(int fd, std::uint64_t size) : fd_(fd), size_(size) {}
    int fd_ = -1;
    std::uint64_t size_ = 0;
};

// A whole regular file (opened as InputFile).
Result<std::string> read_file(const stdfs::path& p);

// For inputs a user points us at (recipes, variant configs): a regular file
// (a FIFO or a link to /dev/zero is refused without blocking) of at most
// `max_bytes`.
inline constexpr std::uint64_t kMaxInputFile = 10u << 20;  // 10 MiB
Result<std::string> read_input_file(const stdfs::path& p, std::uint64_t max_bytes = kMaxInputFile);

// The rest of an open file, read in place into a buffer of `size_hint`
// bytes (its fstat size; grown if the file grew), so a 300 MB repodata
// cache entry is copied once, by the kernel. Fails with errno, EFBIG past
// `max_bytes`; the callers word the error.
Expected<std::string, int> read_fd(int fd, std::uint64_t size_hint, std::uint64_t max_bytes);

// Writes to a fresh temp name (fs::temp_name, O_EXCL|O_NOFOLLOW) in p's
// directory (created), fsyncs, then renames over p. Readers see the old file
// or the new one, never half of one. p's directory is the caller's to trust;
// below a root it did not choose, use Dir::write_atomic.
Result<void> write_file_atomic(const stdfs::path& p, std::string_view data);

// What to do when writing failed with `err` (errno): "free some space ..."
// for ENOSPC/EDQUOT, "check that the directory is writable" for EACCES,
// EPERM and EROFS, else empty. The message itself carries strerror(err).
std::string write_hint(int err);

enum class Overwrite { no, yes };

// Copies a regular file's bytes and permission bits (following a symlink
// `from`; never writing through a symlink `to`). Errors name the side that
// failed and carry strerror of the real cause: std::filesystem::copy_file
// says "Input/output error" when the disk fills up mid-copy.
Result<void> copy_file(const stdfs::path& from, const stdfs::path& to, Overwrite overwrite = Overwrite::yes);

// Copies a regular file's bytes and permission bits (following a symlink
// `from`) to `name` directly in `dir`: written under a temp name and renamed
// over `name`, so a symlink or file at `name` is replaced, never followed.
Result<void> copy_file_into(const Dir& dir, std::string_view name, const stdfs::path& from);

// Copies the tree `from` into `to` (created): directories, regular files (as
// copy_file, overwriting) and symlinks as symlinks. Devices, fifos and
// sockets are refused, and so is a symlink at `to` or below it (never
// written through).
Result<void> copy_tree(const stdfs::path& from, const stdfs::path& to);

// Removes fs::temp_name() files (write_file_atomic's, the archive writer's,
// the installer's) directly in `dir` whose process is gone: what a killed
// writer left. No other file is touched. Returns how many went.
std::size_t sweep_stale_temp_files(const stdfs::path& dir);

// Is process `pid` still running (as far as kill(pid, 0) can tell)?
bool process_alive(long pid);

// A unique directory under the system temp dir (or `parent`), removed on
// destruction unless release() was called. Throws RuntimeError (the job
// failed: exit 1) when it cannot be made.
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

// Exclusive flock() on a lock file, held for the object's lifetime. Throws
// RuntimeError when the file cannot be opened or locked (a symlink planted at
// its name is refused, never opened through: O_NOFOLLOW, as LockFile).
class FileLock {
public:
    explicit FileLock(const stdfs::path& lock_file);
    ~FileLock();
    FileLock(const FileLock&) = delete;
    FileLock& operator=(const FileLock&) = delete;

private:
    int fd_ = -1;
};

// A lock file that exists while it is held: try_create() takes it without
// waiting (nullptr when another process holds it; an error when the file
// cannot be made), and the destructor removes the file, then releases it. A
// lock won on a file that was removed meanwhile is retried, so two holders
// never overlap. A holder that dies leaves the file, unlocked: free to take.
class LockFile {
public:
    static Result<std::unique_ptr<LockFile>> try_create(const stdfs::path& p);
    ~LockFile();
    LockFile(const LockFile&) = delete;
    LockFile& operator=(const LockFile&) = delete;

private:
    LockFile(stdfs::path p, int fd) : path_(std::move(p)), fd_(fd) {}
    stdfs::path path_;
    int fd_ = -1;
};

}  // namespace sf::fs
