#include "util/fs.hpp"

#include "util/dir_handle.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <signal.h>
#include <unistd.h>

#include <cstdlib>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstring>
#include <limits>
#include <random>
#include <vector>

namespace sf::fs {

std::string file_kind(unsigned mode) {
    switch (mode & S_IFMT) {
        case S_IFREG: return "a regular file";
        case S_IFDIR: return "a directory";
        case S_IFLNK: return "a symlink";
        case S_IFIFO: return "a FIFO";
        case S_IFSOCK: return "a socket";
        case S_IFCHR: return "a character device";
        case S_IFBLK: return "a block device";
        default: return "a special file";
    }
}

namespace {
constexpr const char* kPlainOnly = "splitforge reads only plain files";
}

Result<InputFile> InputFile::open(const stdfs::path& p) {
    int fd = ::open(p.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
    if (fd < 0) {
        int e = errno;
        if (e == ENOENT) return fail(SourceLoc{p.string()}, "cannot read file", "check that it exists and is readable");
        if (e == ENXIO) return fail(SourceLoc{p.string()}, "a socket, not a regular file", kPlainOnly);
        return fail(SourceLoc{p.string()}, std::string("cannot read file: ") + std::strerror(e));
    }
    InputFile f(fd, 0);
    struct stat st{};
    if (::fstat(fd, &st) != 0) return fail(SourceLoc{p.string()}, std::string("cannot read file: ") + std::strerror(errno));
    if (!S_ISREG(st.st_mode))
        return fail(SourceLoc{p.string()}, file_kind(st.st_mode) + ", not a regular file", kPlainOnly);
    // Reads of a regular file never wait, but code that takes the fd may
    // expect blocking semantics.
    ::fcntl(fd, F_SETFL, ::fcntl(fd, F_GETFL) & ~O_NONBLOCK);
    f.size_ = static_cast<std::uint64_t>(st.st_size);
    return f;
}

InputFile& InputFile::operator=(InputFile&& o) noexcept {
    if (this != &o) {
        if (fd_ >= 0) ::close(fd_);
        fd_ = std::exchange(o.fd_, -1);
        size_ = o.size_;
    }
    return *this;
}

InputFile::~InputFile() {
    if (fd_ >= 0) ::close(fd_);
}

Result<std::string> InputFile::read_all(const stdfs::path& p, std::uint64_t max_bytes) {
    auto too_big = [&] {
        return fail(SourceLoc{p.string()}, "file is larger than " + std::to_string(max_bytes >> 20) + " MiB",
                    "recipes and configs are limited to " + std::to_string(max_bytes >> 20) + " MiB");
    };
    if (size_ > max_bytes) return too_big();
    auto out = read_fd(fd_, size_, max_bytes);
    if (!out && out.error() == EFBIG) return too_big();  // grew while we read
    if (!out) return fail(SourceLoc{p.string()}, std::string("cannot read file: ") + std::strerror(out.error()));
    return std::move(*out);
}

Expected<std::string, int> read_fd(int fd, std::uint64_t size_hint, std::uint64_t max_bytes) {
    std::string out(static_cast<size_t>(std::min(size_hint, max_bytes)) + 1, '\0');
    size_t used = 0;
    while (true) {
        if (used == out.size()) out.resize(out.size() * 2);
        ssize_t n = ::read(fd, out.data() + used, out.size() - used);
        if (n < 0 && errno == EINTR) continue;
        if (n < 0) return Unexpected<int>{errno};
        if (n == 0) break;
        used += static_cast<size_t>(n);
        if (used > max_bytes) return Unexpected<int>{EFBIG};
    }
    out.resize(used);
    return out;
}

Result<std::string> read_file(const stdfs::path& p) {
    auto f = InputFile::open(p);
    if (!f) return unexpected(f.error());
    return f->read_all(p, std::numeric_limits<std::uint64_t>::max());
}

Result<std::string> read_input_file(const stdfs::path& p, std::uint64_t max_bytes) {
    auto f = InputFile::open(p);
    if (!f) return unexpected(f.error());
    return f->read_all(p, max_bytes);
}

std::string write_hint(int err) {
    switch (err) {
        case ENOSPC:
        case EDQUOT: return "free some space on that disk, or write somewhere else";
        case EACCES:
        case EPERM:
        case EROFS: return "check that the directory is writable";
        default: return {};
    }
}

Result<void> write_file_atomic(const stdfs::path& p, std::string_view data) {
    const stdfs::path parent = p.has_parent_path() ? p.parent_path() : stdfs::path(".");
    auto dir = Dir::open(parent, Create::yes);
    if (!dir) {
        Error e = dir.error();
        e.kind = ErrorKind::runtime;  // as any write that failed
        e.message = "cannot write: " + e.message;
        e.loc = SourceLoc{p.string()};
        return Unexpected<Error>{std::move(e)};
    }
    return dir->write_atomic(p.filename().string(), data);
}

namespace {

// The bytes of `in` into `out`, then `mode` on `out`; closes both. Errors
// name the side that failed.
Result<void> copy_fd(int in, int out, unsigned mode, const stdfs::path& from, const stdfs::path& to) {
    auto failed = [&](const stdfs::path& where, const char* what, int e) {
        ::close(in);
        ::close(out);
        return fail_runtime(SourceLoc{where.string()}, std::string(what) + std::strerror(e), write_hint(e));
    };
    bool kernel_copy = true;  // copy_file_range, until the file system says no
    std::vector<char> buf;
    while (true) {
        if (kernel_copy) {
            ssize_t n = ::copy_file_range(in, nullptr, out, nullptr, std::size_t{1} << 30, 0);
            if (n > 0) continue;
            if (n == 0) break;
            if (errno == EINTR) continue;
            if (errno != EXDEV && errno != ENOSYS && errno != EINVAL && errno != EOPNOTSUPP && errno != EPERM)
                return failed(to, "write failed: ", errno);
            kernel_copy = false;
            buf.resize(1 << 20);
        }
        ssize_t n = ::read(in, buf.data(), buf.size());
        if (n < 0 && errno == EINTR) continue;
        if (n < 0) return failed(from, "read failed: ", errno);
        if (n == 0) break;
        for (ssize_t off = 0; off < n;) {
            ssize_t w = ::write(out, buf.data() + off, static_cast<std::size_t>(n - off));
            if (w < 0 && errno == EINTR) continue;
            if (w < 0) return failed(to, "write failed: ", errno);
            off += w;
        }
    }
    ::fchmod(out, mode & 07777);
    ::close(in);
    if (::close(out) != 0) {
        int e = errno;
        return fail_runtime(SourceLoc{to.string()}, std::string("write failed: ") + std::strerror(e), write_hint(e));
    }
    return {};
}

// `from` opened for reading (never blocking on a FIFO) with its stat.
Result<int> open_source(const stdfs::path& from, struct stat& st) {
    auto src = InputFile::open(from);
    if (!src) return unexpected(src.error());
    if (::fstat(src->fd(), &st) != 0)
        return fail(SourceLoc{from.string()}, std::string("cannot read: ") + std::strerror(errno));
    return src->release();
}

}  // namespace

Result<void> copy_file(const stdfs::path& from, const stdfs::path& to, Overwrite overwrite) {
    struct stat st{};
    auto in = open_source(from, st);
    if (!in) return unexpected(in.error());
    struct stat dst{};
    if (::stat(to.c_str(), &dst) == 0 && dst.st_dev == st.st_dev && dst.st_ino == st.st_ino) {
        ::close(*in);
        return fail(SourceLoc{to.string()}, "cannot copy a file onto itself");
    }
    // O_NONBLOCK: a FIFO in the way fails (ENXIO, or EAGAIN once full) instead
    // of waiting for a reader.
    int flags = O_WRONLY | O_CREAT | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK | (overwrite == Overwrite::yes ? O_TRUNC : O_EXCL);
    int out = ::open(to.c_str(), flags, 0600);
    if (out < 0) {
        int e = errno;
        ::close(*in);
        return fail_runtime(SourceLoc{to.string()}, std::string("cannot write: ") + std::strerror(e), write_hint(e));
    }
    return copy_fd(*in, out, st.st_mode, from, to);
}

Result<void> copy_file_into(const Dir& dir, std::string_view name, const stdfs::path& from) {
    const stdfs::path to = dir.path() / stdfs::path(std::string(name));
    if (!is_plain_name(name)) return fail(SourceLoc{to.string()}, "is not a file name");
    struct stat st{};
    auto in = open_source(from, st);
    if (!in) return unexpected(in.error());
    const std::string tmp = temp_name(name);
    auto out = dir.create_file(tmp, 0600);
    if (!out) {
        ::close(*in);
        return unexpected(out.error());
    }
    if (auto ok = copy_fd(*in, *out, st.st_mode, from, to); !ok) {
        (void)dir.remove(tmp);
        return ok;
    }
    if (auto ok = dir.rename(tmp, name); !ok) {
        (void)dir.remove(tmp);
        return ok;
    }
    return {};
}

Result<void> copy_tree(const stdfs::path& from, const stdfs::path& to) {
    std::error_code ec;
    // A symlink at `to` (one copied a moment ago) is never written through.
    struct stat lst{};
    if (::lstat(to.c_str(), &lst) == 0 && !S_ISDIR(lst.st_mode))
        return fail(SourceLoc{to.string()}, S_ISLNK(lst.st_mode) ? "is a symlink; refusing to copy a tree through it"
                                                                 : "cannot copy a tree over a file");
    stdfs::create_directories(to, ec);
    if (ec) return fail_runtime(SourceLoc{to.string()}, "cannot create directory: " + ec.message(), write_hint(ec.value()));
    stdfs::directory_iterator it(from, ec), end;
    if (ec) return fail(SourceLoc{from.string()}, "cannot read directory: " + ec.message());
    for (; it != end; it.increment(ec)) {
        if (ec) return fail(SourceLoc{from.string()}, "cannot read directory: " + ec.message());
        const stdfs::path src = it->path(), dst = to / src.filename();
        struct stat st{};
        if (::lstat(src.c_str(), &st) != 0)
            return fail(SourceLoc{src.string()}, std::string("cannot read: ") + std::strerror(errno));
        if (S_ISDIR(st.st_mode)) {
            if (auto r = copy_tree(src, dst); !r) return r;
        } else if (S_ISLNK(st.st_mode)) {
            auto target = stdfs::read_symlink(src, ec);
            if (ec) return fail(SourceLoc{src.string()}, "cannot read symlink: " + ec.message());
            stdfs::remove(dst, ec);
            stdfs::create_symlink(target, dst, ec);
            if (ec) return fail_runtime(SourceLoc{dst.string()}, "cannot create symlink: " + ec.message(), write_hint(ec.value()));
        } else if (S_ISREG(st.st_mode)) {
            if (auto r = copy_file(src, dst, Overwrite::yes); !r) return r;
        } else {
            return fail(SourceLoc{src.string()}, file_kind(st.st_mode) + ", not a regular file", "remove it from the tree");
        }
    }
    return {};
}

bool process_alive(long pid) {
    if (pid <= 0) return false;
    return ::kill(static_cast<pid_t>(pid), 0) == 0 || errno != ESRCH;
}

std::size_t sweep_stale_temp_files(const stdfs::path& dir) {
    auto d = Dir::open(dir);
    return d ? d->sweep_stale_temps() : 0;
}

TempDir::TempDir(std::string_view prefix, const stdfs::path& parent) {
    std::error_code ec;
    stdfs::path base = parent.empty() ? stdfs::temp_directory_path(ec) : parent;
    if (ec) {
        const char* tmpdir = std::getenv("TMPDIR");
        throw RuntimeError(Error{{tmpdir && *tmpdir ? tmpdir : "/tmp"}, "cannot create temp dir: " + ec.message(),
                                 "set TMPDIR to a writable directory"});
    }
    stdfs::create_directories(base, ec);
    if (ec) throw RuntimeError(Error{{base.string()}, "cannot create temp dir: " + ec.message(), {}});
    std::string tmpl = (base / (std::string(prefix) + "-XXXXXX")).string();
    if (::mkdtemp(tmpl.data()) == nullptr)
        throw RuntimeError(Error{{base.string()}, std::string("cannot create temp dir: ") + std::strerror(errno), {}});
    path_ = tmpl;
}

TempDir::~TempDir() {
    if (!keep_ && !path_.empty()) {
        std::error_code ec;
        stdfs::remove_all(path_, ec);
    }
}

stdfs::path TempDir::release() {
    keep_ = true;
    return path_;
}

FileLock::FileLock(const stdfs::path& lock_file) {
    std::error_code ec;
    if (lock_file.has_parent_path()) stdfs::create_directories(lock_file.parent_path(), ec);
    fd_ = ::open(lock_file.c_str(), O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0644);
    if (fd_ < 0)
        throw RuntimeError(Error{{lock_file.string()}, std::string("cannot open lock file: ") + std::strerror(errno), {}});
    while (::flock(fd_, LOCK_EX) != 0) {
        if (errno != EINTR)
            throw RuntimeError(Error{{lock_file.string()}, std::string("cannot lock: ") + std::strerror(errno), {}});
    }
}

FileLock::~FileLock() {
    if (fd_ >= 0) {
        ::flock(fd_, LOCK_UN);
        ::close(fd_);
    }
}

Result<std::unique_ptr<LockFile>> LockFile::try_create(const stdfs::path& p) {
    for (int attempt = 0; attempt < 100; ++attempt) {
        int fd = ::open(p.c_str(), O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0644);
        if (fd < 0) return fail_runtime(SourceLoc{p.string()}, std::string("cannot open lock file: ") + std::strerror(errno));
        int rc;
        while ((rc = ::flock(fd, LOCK_EX | LOCK_NB)) != 0 && errno == EINTR) {
        }
        if (rc != 0) {
            int err = errno;
            ::close(fd);
            if (err == EWOULDBLOCK) return std::unique_ptr<LockFile>();
            return fail_runtime(SourceLoc{p.string()}, std::string("cannot lock: ") + std::strerror(err));
        }
        // The holder before us may have removed the file after we opened it.
        struct stat mine {}, there {};
        if (::fstat(fd, &mine) == 0 && ::stat(p.c_str(), &there) == 0 && mine.st_ino == there.st_ino &&
            mine.st_dev == there.st_dev)
            return std::unique_ptr<LockFile>(new LockFile(p, fd));
        ::close(fd);
    }
    return fail_runtime(SourceLoc{p.string()}, "cannot lock: the lock file keeps being replaced");
}

LockFile::~LockFile() {
    std::error_code ec;
    stdfs::remove(path_, ec);
    ::flock(fd_, LOCK_UN);
    ::close(fd_);
}

std::optional<std::int64_t> newest_mtime(const stdfs::path& dir) {
    std::optional<std::int64_t> newest;
    std::error_code ec;
    for (auto it = stdfs::recursive_directory_iterator(dir, ec); !ec && it != stdfs::recursive_directory_iterator();
         it.increment(ec)) {
        if (it->path().filename() == ".git") {
            it.disable_recursion_pending();
            continue;
        }
        struct stat st {};
        if (::lstat(it->path().c_str(), &st) != 0 || !(S_ISREG(st.st_mode) || S_ISLNK(st.st_mode))) continue;
        std::int64_t t = st.st_mtime;
        if (!newest || t > *newest) newest = t;
    }
    return newest;
}

}  // namespace sf::fs
