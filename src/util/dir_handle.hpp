#pragma once
// A directory splitforge opened itself, and every write, link, rename and
// removal below it made relative to that handle (openat and friends). Names
// are walked one component at a time with O_NOFOLLOW|O_DIRECTORY: no "..",
// no absolute path, no symlink on the way, so a symlink someone planted in a
// channel, a feedstock, a work dir or a cache never redirects a write. New
// files are created with O_EXCL|O_NOFOLLOW under a temp name only splitforge
// makes, so the stale-temp sweep never touches anyone else's file.
#include <cstddef>
#include <filesystem>
#include <string>
#include <string_view>

#include "core/error.hpp"

namespace sf::fs {

namespace stdfs = std::filesystem;

enum class Create { no, yes };

// What lstat says is at a name, without following it.
enum class Kind { missing, file, dir, symlink, other };

// `n` random lowercase hex digits (temp and trash names; not for secrets).
std::string random_hex(int n);
// "<stem>.sftmp-<pid>-<random>": a temp name only splitforge creates (the
// ".sftmp-" tag and the pid let the sweep find the ones whose writer died).
std::string temp_name(std::string_view stem);
// Is `name` one temp_name() makes? Returns the writer's pid, or 0.
long temp_name_pid(std::string_view name);

class Dir {
public:
    Dir() = default;
    ~Dir();
    Dir(Dir&& o) noexcept : fd_(o.fd_), path_(std::move(o.path_)) { o.fd_ = -1; }
    Dir& operator=(Dir&& o) noexcept;
    Dir(const Dir&) = delete;
    Dir& operator=(const Dir&) = delete;

    // The root: a path the user or the caller chose (symlinks in it are the
    // user's own and followed). Created with its parents under Create::yes.
    static Result<Dir> open(const stdfs::path& path, Create create = Create::no);
    // `rel` below this directory, walked component by component: refused when
    // absolute, when it holds "..", or when any component is a symlink or not a
    // directory. Missing components are made under Create::yes.
    Result<Dir> sub(std::string_view rel, Create create = Create::no) const;

    int fd() const { return fd_; }
    const stdfs::path& path() const { return path_; }
    explicit operator bool() const { return fd_ >= 0; }

    Kind kind(std::string_view name) const;
    // Opens the regular file `rel` for reading, no symlink at any component.
    Result<int> open_file(std::string_view rel) const;
    // The bytes of the regular file `rel` (as open_file), at most `max_bytes`.
    Result<std::string> read(std::string_view rel, std::size_t max_bytes = std::size_t{64} << 20) const;
    // A new file `name` (O_CREAT|O_EXCL|O_NOFOLLOW); returns its descriptor.
    Result<int> create_file(std::string_view name, unsigned mode) const;
    // `data` into a fresh temp name, fsynced, then renamed over `name`:
    // readers see the old file or the new one, never half of one.
    Result<void> write_atomic(std::string_view name, std::string_view data, unsigned mode = 0644) const;
    // renameat within this directory (replaces `to`; a symlink at `to` is
    // replaced, never followed).
    Result<void> rename(std::string_view from, std::string_view to) const;
    // Removes the file or symlink `name` (never follows it; a directory is refused).
    Result<void> remove(std::string_view name) const;
    Result<void> symlink(const std::string& target, std::string_view name) const;
    // Hard-links `from_dir`/`from` (never through a symlink) to `name` here.
    Result<void> hardlink(const Dir& from_dir, std::string_view from, std::string_view name) const;
    // Removes temp_name() files directly here whose writer is gone (what a
    // killed run left); nothing else. Returns how many went.
    std::size_t sweep_stale_temps() const;

private:
    Dir(int fd, stdfs::path path) : fd_(fd), path_(std::move(path)) {}
    Error error_at(std::string_view name, const std::string& what, int err) const;
    int fd_ = -1;
    stdfs::path path_;
};

// Is `name` one plain path component (not empty, ".", "..", no '/')?
bool is_plain_name(std::string_view name);

}  // namespace sf::fs
