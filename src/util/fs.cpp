#include "util/fs.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <signal.h>
#include <unistd.h>

#include <cstdlib>

#include <atomic>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <random>
#include <sstream>

namespace sf::fs {

Result<std::string> read_file(const stdfs::path& p) {
    std::ifstream in(p, std::ios::binary);
    if (!in) return fail(SourceLoc{p.string()}, "cannot read file", "check that it exists and is readable");
    std::ostringstream ss;
    ss << in.rdbuf();
    return ss.str();
}

Result<std::string> read_input_file(const stdfs::path& p, std::uint64_t max_bytes) {
    int fd = ::open(p.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
    if (fd < 0) {
        if (errno == ENOENT) return fail(SourceLoc{p.string()}, "cannot read file", "check that it exists and is readable");
        return fail(SourceLoc{p.string()}, std::string("cannot read file: ") + std::strerror(errno));
    }
    struct stat st{};
    if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        ::close(fd);
        return fail(SourceLoc{p.string()}, "not a regular file", "recipes and configs must be plain files");
    }
    auto too_big = [&] {
        return fail(SourceLoc{p.string()}, "file is larger than " + std::to_string(max_bytes >> 20) + " MiB",
                    "recipes and configs are limited to " + std::to_string(max_bytes >> 20) + " MiB");
    };
    if (static_cast<std::uint64_t>(st.st_size) > max_bytes) {
        ::close(fd);
        return too_big();
    }
    std::string out;
    out.reserve(static_cast<size_t>(st.st_size));
    char buf[1 << 16];
    while (true) {
        ssize_t n = ::read(fd, buf, sizeof buf);
        if (n < 0 && errno == EINTR) continue;
        if (n < 0) {
            int e = errno;
            ::close(fd);
            return fail(SourceLoc{p.string()}, std::string("cannot read file: ") + std::strerror(e));
        }
        if (n == 0) break;
        out.append(buf, static_cast<size_t>(n));
        if (out.size() > max_bytes) {  // grew while we read
            ::close(fd);
            return too_big();
        }
    }
    ::close(fd);
    return out;
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
    static std::atomic<unsigned> counter{0};
    std::error_code ec;
    if (p.has_parent_path() && !stdfs::create_directories(p.parent_path(), ec) && ec)
        return fail(SourceLoc{p.parent_path().string()}, "cannot create directory: " + ec.message(),
                    write_hint(ec.value()));
    stdfs::path tmp = p;
    tmp += ".tmp-" + std::to_string(::getpid()) + "-" + std::to_string(counter++);
    int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd < 0) {
        int e = errno;
        return fail(SourceLoc{p.string()}, std::string("cannot write: ") + std::strerror(e), write_hint(e));
    }
    size_t off = 0;
    while (off < data.size()) {
        ssize_t n = ::write(fd, data.data() + off, data.size() - off);
        if (n < 0) {
            if (errno == EINTR) continue;
            int e = errno;
            ::close(fd);
            ::unlink(tmp.c_str());
            return fail(SourceLoc{p.string()}, std::string("write failed: ") + std::strerror(e), write_hint(e));
        }
        off += static_cast<size_t>(n);
    }
    // A full disk may only show at fsync or close (delayed allocation, NFS).
    if (::fsync(fd) != 0 && errno != EINVAL && errno != EROFS) {
        int e = errno;
        ::close(fd);
        ::unlink(tmp.c_str());
        return fail(SourceLoc{p.string()}, std::string("write failed: ") + std::strerror(e), write_hint(e));
    }
    if (::close(fd) != 0) {
        int e = errno;
        ::unlink(tmp.c_str());
        return fail(SourceLoc{p.string()}, std::string("write failed: ") + std::strerror(e), write_hint(e));
    }
    if (::rename(tmp.c_str(), p.c_str()) != 0) {
        int e = errno;
        ::unlink(tmp.c_str());
        return fail(SourceLoc{p.string()}, std::string("rename failed: ") + std::strerror(e));
    }
    return {};
}

bool process_alive(long pid) {
    if (pid <= 0) return false;
    return ::kill(static_cast<pid_t>(pid), 0) == 0 || errno != ESRCH;
}

std::size_t sweep_stale_temp_files(const stdfs::path& dir) {
    std::size_t n = 0;
    std::error_code ec;
    for (stdfs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
        std::string name = it->path().filename().string();
        auto at = name.rfind(".tmp-");
        if (at == std::string::npos) continue;
        std::string tail = name.substr(at + 5);  // <pid>-<n>
        auto dash = tail.find('-');
        if (dash == std::string::npos || dash == 0 || dash + 1 >= tail.size()) continue;
        if (tail.find_first_not_of("0123456789-") != std::string::npos) continue;
        long pid = std::strtol(tail.substr(0, dash).c_str(), nullptr, 10);
        if (pid == ::getpid() || process_alive(pid)) continue;
        if (!it->is_regular_file(ec) || it->is_symlink(ec)) continue;
        if (::unlink(it->path().c_str()) == 0) ++n;
    }
    return n;
}

TempDir::TempDir(std::string_view prefix, const stdfs::path& parent) {
    stdfs::path base = parent.empty() ? stdfs::temp_directory_path() : parent;
    stdfs::create_directories(base);
    std::string tmpl = (base / (std::string(prefix) + "-XXXXXX")).string();
    if (::mkdtemp(tmpl.data()) == nullptr)
        throw Failure(Error{{base.string()}, std::string("cannot create temp dir: ") + std::strerror(errno), {}});
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
    fd_ = ::open(lock_file.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
    if (fd_ < 0)
        throw Failure(Error{{lock_file.string()}, std::string("cannot open lock file: ") + std::strerror(errno), {}});
    while (::flock(fd_, LOCK_EX) != 0) {
        if (errno != EINTR)
            throw Failure(Error{{lock_file.string()}, std::string("cannot lock: ") + std::strerror(errno), {}});
    }
}

FileLock::~FileLock() {
    if (fd_ >= 0) {
        ::flock(fd_, LOCK_UN);
        ::close(fd_);
    }
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
