// The prefix lock: one install at a time per prefix, like conda's. We flock()
// the prefix directory itself, so no lock file is left in it.
#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "env/install_detail.hpp"

namespace sf::env::detail {

Result<void> PrefixLock::acquire(const stdfs::path& prefix, const std::function<void(const std::string&)>& waiting) {
    prefix_ = prefix;
    std::error_code ec;
    stdfs::create_directories(prefix.parent_path(), ec);
    bool told = false;
    // Another install may remove the (empty) prefix it created while we wait:
    // the directory we locked must still be the one at the path.
    for (int attempt = 0; attempt < 100; ++attempt) {
        if (::mkdir(prefix.c_str(), 0755) == 0) created_ = true;
        else if (errno != EEXIST) return fail_runtime({}, prefix.string() + ": cannot create: " + std::strerror(errno));
        int fd = ::open(prefix.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        if (fd < 0) {
            if (errno == ENOENT) continue;
            return fail(prefix.string() + ": cannot open the prefix: " + std::strerror(errno),
                        "the prefix must be a directory (not a symlink)");
        }
        if (::flock(fd, LOCK_EX | LOCK_NB) != 0) {
            if (errno != EWOULDBLOCK) {
                ::close(fd);
                return fail(prefix.string() + ": cannot lock the prefix: " + std::strerror(errno));
            }
            if (waiting && !told) waiting("waiting for another install into " + prefix.string() + " to finish");
            told = true;
            while (::flock(fd, LOCK_EX) != 0) {
                if (errno != EINTR) {
                    ::close(fd);
                    return fail(prefix.string() + ": cannot lock the prefix: " + std::strerror(errno));
                }
            }
        }
        struct stat a{}, b{};
        if (::fstat(fd, &a) == 0 && ::lstat(prefix.c_str(), &b) == 0 && a.st_dev == b.st_dev && a.st_ino == b.st_ino) {
            fd_ = fd;
            return {};
        }
        ::close(fd);
        created_ = false;
    }
    return fail(prefix.string() + ": cannot lock the prefix: it keeps being removed and re-created");
}

PrefixLock::~PrefixLock() {
    if (fd_ < 0) return;
    // A prefix we created and left empty (nothing installed) goes again,
    // while we still hold the lock.
    if (created_) ::rmdir(prefix_.c_str());
    ::flock(fd_, LOCK_UN);
    ::close(fd_);
}

}  // namespace sf::env::detail
