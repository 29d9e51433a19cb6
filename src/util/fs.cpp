#include "util/fs.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

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

Result<void> write_file_atomic(const stdfs::path& p, std::string_view data) {
    static std::atomic<unsigned> counter{0};
    std::error_code ec;
    if (p.has_parent_path()) stdfs::create_directories(p.parent_path(), ec);
    stdfs::path tmp = p;
    tmp += ".tmp-" + std::to_string(::getpid()) + "-" + std::to_string(counter++);
    int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd < 0) return fail(SourceLoc{p.string()}, std::string("cannot write: ") + std::strerror(errno));
    size_t off = 0;
    while (off < data.size()) {
        ssize_t n = ::write(fd, data.data() + off, data.size() - off);
        if (n < 0) {
            if (errno == EINTR) continue;
            int e = errno;
            ::close(fd);
            ::unlink(tmp.c_str());
            return fail(SourceLoc{p.string()}, std::string("write failed: ") + std::strerror(e));
        }
        off += static_cast<size_t>(n);
    }
    ::fsync(fd);
    ::close(fd);
    if (::rename(tmp.c_str(), p.c_str()) != 0) {
        int e = errno;
        ::unlink(tmp.c_str());
        return fail(SourceLoc{p.string()}, std::string("rename failed: ") + std::strerror(e));
    }
    return {};
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
