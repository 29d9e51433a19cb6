// conda's package caches (pkgs_dirs) shared with ours: an archive conda
// already has is taken from it, and one we downloaded is given to it, each
// under conda's own lock, so conda and splitforge can run at once.
//
// conda keeps a package's archive as <pkgs_dir>/<fn>, downloading it into
// <fn>.partial while holding a POSIX record lock (lockf) on byte 21 of that
// file (conda/gateways/disk/lock.py, LOCK_BYTE, shared with mamba), and
// renames it into place once checked. We take the same lock before adding
// <fn>, and read only complete files (renamed in whole) hashing to the record.
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>

#include "env/install_detail.hpp"
#include "util/dir_handle.hpp"
#include "util/fs.hpp"
#include "util/hash.hpp"
#include "util/strings.hpp"

namespace sf::env::detail {
namespace {

constexpr off_t kCondaLockByte = 21;

// `from` at `to`: a hard link where both are on one file system, else a copy.
bool link_or_copy(const stdfs::path& from, const stdfs::path& to) {
    if (::link(from.c_str(), to.c_str()) == 0) return true;
    return static_cast<bool>(fs::copy_file(from, to));
}

bool hashes_to(const stdfs::path& file, const std::string& sha256) {
    std::error_code ec;
    if (!stdfs::is_regular_file(stdfs::symlink_status(file, ec))) return false;
    auto d = hash::file_sha256(file);
    return d && *d == sha256;
}

// conda's lock on <dir>/<fn>.partial, held while this lives.
class CondaPartialLock {
public:
    explicit CondaPartialLock(const stdfs::path& partial) : path_(partial) {
        fd_ = ::open(partial.c_str(), O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0644);
        if (fd_ < 0) return;
        struct stat st {};
        created_ = ::fstat(fd_, &st) == 0 && st.st_size == 0;
        if (::lseek(fd_, kCondaLockByte, SEEK_SET) != kCondaLockByte || ::lockf(fd_, F_LOCK, 1) != 0) {
            ::close(fd_);
            fd_ = -1;
        }
    }
    ~CondaPartialLock() {
        if (fd_ < 0) return;
        // An empty .partial is ours; one with bytes is a killed conda's, kept for it to resume.
        struct stat st {};
        if (created_ && ::fstat(fd_, &st) == 0 && st.st_size == 0) ::unlink(path_.c_str());
        ::close(fd_);  // releases the lock
    }
    CondaPartialLock(const CondaPartialLock&) = delete;
    CondaPartialLock& operator=(const CondaPartialLock&) = delete;
    bool held() const { return fd_ >= 0; }

private:
    stdfs::path path_;
    int fd_ = -1;
    bool created_ = false;
};

}  // namespace

std::vector<stdfs::path> conda_pkgs_dirs(const std::vector<stdfs::path>& given) {
    if (!given.empty()) return given;
    std::vector<stdfs::path> out;
    const char* env = std::getenv("CONDA_PKGS_DIRS");  // conda splits it on ','
    if (!env) return out;
    for (auto part : str::split(env, ',')) {
        std::string p(str::trim(part));
        if (str::starts_with(p, "~/"))
            if (const char* home = std::getenv("HOME")) p = std::string(home) + p.substr(1);
        if (!p.empty() && p[0] == '/') out.emplace_back(p);
    }
    return out;
}

bool take_from_conda(const std::vector<stdfs::path>& dirs, const Candidate& c, const fs::Dir& entry) {
    const auto& rec = c.record;
    for (const auto& d : dirs) {
        const stdfs::path file = d / rec.fn;
        if (!hashes_to(file, rec.sha256)) continue;
        const std::string tmp = fs::temp_name(rec.fn);
        // Checked again once ours: the file could change between the two reads.
        if (link_or_copy(file, entry.path() / tmp) && hashes_to(entry.path() / tmp, rec.sha256) && entry.rename(tmp, rec.fn))
            return true;
        (void)entry.remove(tmp);
    }
    return false;
}

void give_to_conda(const std::vector<stdfs::path>& dirs, const Candidate& c, const stdfs::path& file) {
    const auto& rec = c.record;
    for (const auto& d : dirs) {
        std::error_code ec;
        if (!stdfs::is_directory(d, ec) || ::access(d.c_str(), W_OK) != 0) continue;  // conda's first writable one
        CondaPartialLock lock(d / (rec.fn + ".partial"));
        if (!lock.held()) return;
        if (hashes_to(d / rec.fn, rec.sha256)) return;
        const stdfs::path tmp = d / fs::temp_name(rec.fn);
        if (!link_or_copy(file, tmp) || ::rename(tmp.c_str(), (d / rec.fn).c_str()) != 0) ::unlink(tmp.c_str());
        return;
    }
}

}  // namespace sf::env::detail
