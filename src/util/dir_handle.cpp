#include "util/dir_handle.hpp"

#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>
#include <dirent.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <random>
#include <vector>

#include "util/fs.hpp"

namespace sf::fs {
namespace {

constexpr std::string_view kTempTag = ".sftmp-";

std::string z(std::string_view s) { return std::string(s); }

// Splits `rel` into components, refusing what could leave the directory.
Result<std::vector<std::string>> components(const stdfs::path& root, std::string_view rel) {
    std::vector<std::string> out;
    if (!rel.empty() && rel.front() == '/')
        return fail(SourceLoc{root.string()}, "'" + z(rel) + "' is an absolute path, not one inside this directory");
    std::size_t start = 0;
    while (start <= rel.size()) {
        std::size_t end = rel.find('/', start);
        if (end == std::string_view::npos) end = rel.size();
        std::string_view part = rel.substr(start, end - start);
        if (part == "..")
            return fail(SourceLoc{(root / stdfs::path(rel)).string()}, "'..' would lead outside " + root.string());
        if (!part.empty() && part != ".") out.emplace_back(part);
        start = end + 1;
    }
    return out;
}

}  // namespace

std::string random_hex(int n) {
    static thread_local std::mt19937_64 rng{std::random_device{}()};
    std::string s;
    for (int i = 0; i < n; ++i) s += "0123456789abcdef"[rng() % 16];
    return s;
}

std::string temp_name(std::string_view stem) {
    // Long stems are cut: the name must stay under NAME_MAX (255).
    std::string s(stem.substr(0, 160));
    return "." + s + std::string(kTempTag) + std::to_string(::getpid()) + "-" + random_hex(12);
}

long temp_name_pid(std::string_view name) {
    auto at = name.rfind(kTempTag);
    if (name.empty() || name.front() != '.' || at == std::string_view::npos) return 0;
    std::string_view tail = name.substr(at + kTempTag.size());  // <pid>-<12 hex>
    auto dash = tail.find('-');
    if (dash == 0 || dash == std::string_view::npos || tail.size() - dash - 1 != 12) return 0;
    for (char c : tail.substr(0, dash))
        if (c < '0' || c > '9') return 0;
    for (char c : tail.substr(dash + 1))
        if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) return 0;
    return std::strtol(std::string(tail.substr(0, dash)).c_str(), nullptr, 10);
}

bool is_plain_name(std::string_view name) {
    return !name.empty() && name != "." && name != ".." && name.find('/') == std::string_view::npos &&
           name.find('\0') == std::string_view::npos;
}

Dir::~Dir() {
    if (fd_ >= 0) ::close(fd_);
}

Dir& Dir::operator=(Dir&& o) noexcept {
    if (this != &o) {
        if (fd_ >= 0) ::close(fd_);
        fd_ = o.fd_;
        path_ = std::move(o.path_);
        o.fd_ = -1;
    }
    return *this;
}

Error Dir::error_at(std::string_view name, const std::string& what, int err) const {
    std::string where = name.empty() ? path_.string() : (path_ / stdfs::path(name)).string();
    return Error{SourceLoc{where}, what + ": " + std::strerror(err), write_hint(err), ErrorKind::runtime};
}

Result<Dir> Dir::open(const stdfs::path& path, Create create) {
    if (create == Create::yes) {
        std::error_code ec;
        stdfs::create_directories(path, ec);
        if (ec) return fail_runtime(SourceLoc{path.string()}, "cannot create directory: " + ec.message(), write_hint(ec.value()));
    }
    int fd = ::open(path.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0) {
        int e = errno;
        if (e == ENOENT || e == ENOTDIR) return fail(SourceLoc{path.string()}, std::string("cannot open directory: ") + std::strerror(e));
        return fail_runtime(SourceLoc{path.string()}, std::string("cannot open directory: ") + std::strerror(e));
    }
    return Dir(fd, path);
}

Result<Dir> Dir::sub(std::string_view rel, Create create) const {
    auto parts = components(path_, rel);
    if (!parts) return Unexpected<Error>{parts.error()};
    int cur = ::fcntl(fd_, F_DUPFD_CLOEXEC, 0);
    if (cur < 0) return Unexpected<Error>{error_at("", "cannot open directory", errno)};
    stdfs::path where = path_;
    for (const auto& part : *parts) {
        where /= part;
        int next = ::openat(cur, part.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        if (next < 0 && errno == ENOENT && create == Create::yes) {
            if (::mkdirat(cur, part.c_str(), 0755) != 0 && errno != EEXIST) {
                int e = errno;
                ::close(cur);
                return fail_runtime(SourceLoc{where.string()}, std::string("cannot create directory: ") + std::strerror(e), write_hint(e));
            }
            next = ::openat(cur, part.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        }
        if (next < 0) {
            int e = errno;
            struct stat st{};
            bool link = ::fstatat(cur, part.c_str(), &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISLNK(st.st_mode);
            ::close(cur);
            if (link || e == ELOOP)
                return fail(SourceLoc{where.string()}, "is a symlink; refusing to write through it",
                            "remove the symlink; splitforge writes only into real directories");
            if (e == ENOTDIR) return fail(SourceLoc{where.string()}, "is not a directory");
            if (e == ENOENT) return fail(SourceLoc{where.string()}, "no such directory");
            return fail_runtime(SourceLoc{where.string()}, std::string("cannot open directory: ") + std::strerror(e));
        }
        ::close(cur);
        cur = next;
    }
    return Dir(cur, where);
}

Kind Dir::kind(std::string_view name) const {
    struct stat st{};
    if (::fstatat(fd_, z(name).c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0) return Kind::missing;
    if (S_ISLNK(st.st_mode)) return Kind::symlink;
    if (S_ISDIR(st.st_mode)) return Kind::dir;
    if (S_ISREG(st.st_mode)) return Kind::file;
    return Kind::other;
}

Result<int> Dir::open_file(std::string_view rel) const {
    stdfs::path r{std::string(rel)};
    std::string name = r.filename().string();
    auto parent = sub(r.parent_path().string());
    if (!parent) return Unexpected<Error>{parent.error()};
    if (!is_plain_name(name)) return fail(SourceLoc{(path_ / r).string()}, "is not a file name");
    int fd = ::openat(parent->fd(), name.c_str(), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0) {
        int e = errno;
        if (e == ELOOP) return fail(SourceLoc{(path_ / r).string()}, "is a symlink, not a file");
        return fail(SourceLoc{(path_ / r).string()}, std::string("cannot open: ") + std::strerror(e));
    }
    struct stat st{};
    if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        ::close(fd);
        return fail(SourceLoc{(path_ / r).string()}, "is not a regular file");
    }
    return fd;
}

Result<std::string> Dir::read(std::string_view rel, std::size_t max_bytes) const {
    auto fd = open_file(rel);
    if (!fd) return Unexpected<Error>{fd.error()};
    struct stat st {};
    const std::uint64_t size = ::fstat(*fd, &st) == 0 && st.st_size > 0 ? static_cast<std::uint64_t>(st.st_size) : 0;
    auto out = read_fd(*fd, size, max_bytes);
    ::close(*fd);
    if (!out && out.error() == EFBIG) return fail(SourceLoc{(path_ / stdfs::path(rel)).string()}, "file is too large");
    if (!out)
        return fail(SourceLoc{(path_ / stdfs::path(rel)).string()}, std::string("cannot read: ") + std::strerror(out.error()));
    return std::move(*out);
}

Result<int> Dir::create_file(std::string_view name, unsigned mode) const {
    if (!is_plain_name(name)) return fail(SourceLoc{(path_ / stdfs::path(name)).string()}, "is not a file name");
    int fd = ::openat(fd_, z(name).c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode);
    if (fd < 0) return Unexpected<Error>{error_at(name, "cannot create", errno)};
    return fd;
}

Result<void> Dir::write_atomic(std::string_view name, std::string_view data, unsigned mode) const {
    if (!is_plain_name(name)) return fail(SourceLoc{(path_ / stdfs::path(name)).string()}, "is not a file name");
    const std::string tmp = temp_name(name);
    auto fd = create_file(tmp, mode);
    if (!fd) return Unexpected<Error>{error_at(name, "cannot write", errno)};  // errno of the openat
    auto failed = [&](const char* what, int e) {
        ::unlinkat(fd_, tmp.c_str(), 0);
        return Unexpected<Error>{error_at(name, what, e)};
    };
    for (std::size_t off = 0; off < data.size();) {
        ssize_t n = ::write(*fd, data.data() + off, data.size() - off);
        if (n < 0 && errno == EINTR) continue;
        if (n < 0) {
            int e = errno;
            ::close(*fd);
            return failed("write failed", e);
        }
        off += static_cast<std::size_t>(n);
    }
    // A full disk may only show at fsync or close (delayed allocation, NFS).
    if (::fsync(*fd) != 0 && errno != EINVAL && errno != EROFS) {
        int e = errno;
        ::close(*fd);
        return failed("write failed", e);
    }
    if (::close(*fd) != 0) return failed("write failed", errno);
    if (::renameat(fd_, tmp.c_str(), fd_, z(name).c_str()) != 0) return failed("rename failed", errno);
    return {};
}

Result<void> Dir::rename(std::string_view from, std::string_view to) const {
    if (!is_plain_name(from) || !is_plain_name(to)) return fail(SourceLoc{path_.string()}, "rename: not a file name");
    if (::renameat(fd_, z(from).c_str(), fd_, z(to).c_str()) != 0)
        return Unexpected<Error>{error_at(to, "cannot rename '" + z(from) + "' to it", errno)};
    return {};
}

Result<void> Dir::remove(std::string_view name) const {
    if (!is_plain_name(name)) return fail(SourceLoc{path_.string()}, "remove: '" + z(name) + "' is not a file name");
    if (::unlinkat(fd_, z(name).c_str(), 0) != 0 && errno != ENOENT)
        return Unexpected<Error>{error_at(name, "cannot remove", errno)};
    return {};
}

Result<void> Dir::symlink(const std::string& target, std::string_view name) const {
    if (!is_plain_name(name)) return fail(SourceLoc{path_.string()}, "symlink: '" + z(name) + "' is not a file name");
    if (::symlinkat(target.c_str(), fd_, z(name).c_str()) != 0)
        return Unexpected<Error>{error_at(name, "cannot create symlink", errno)};
    return {};
}

Result<void> Dir::hardlink(const Dir& from_dir, std::string_view from, std::string_view name) const {
    if (!is_plain_name(from) || !is_plain_name(name))
        return fail(SourceLoc{path_.string()}, "hardlink: not a file name");
    // No AT_SYMLINK_FOLLOW: a symlink at `from` is linked as itself.
    if (::linkat(from_dir.fd(), z(from).c_str(), fd_, z(name).c_str(), 0) != 0)
        return Unexpected<Error>{error_at(name, "cannot create hard link", errno)};
    return {};
}

std::size_t Dir::sweep_stale_temps() const {
    int dup = ::fcntl(fd_, F_DUPFD_CLOEXEC, 0);
    if (dup < 0) return 0;
    DIR* d = ::fdopendir(dup);
    if (!d) {
        ::close(dup);
        return 0;
    }
    ::rewinddir(d);
    std::vector<std::string> stale;
    while (auto* e = ::readdir(d)) {
        long pid = temp_name_pid(e->d_name);
        if (pid <= 0 || pid == ::getpid() || process_alive(pid)) continue;
        if (kind(e->d_name) == Kind::file) stale.emplace_back(e->d_name);
    }
    ::closedir(d);
    std::size_t n = 0;
    for (const auto& name : stale) n += ::unlinkat(fd_, name.c_str(), 0) == 0;
    return n;
}

}  // namespace sf::fs
