// The prefix transaction: every change is recorded so it can be undone.
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "core/rewrap.hpp"
#include "env/install_detail.hpp"
#include "util/dir_handle.hpp"
#include "util/fs.hpp"
#include "util/strings.hpp"

namespace sf::env::detail {
namespace {

std::string sys_err() { return std::strerror(errno); }

bool lexists(const stdfs::path& p, struct stat* st) { return ::lstat(p.c_str(), st) == 0; }

}  // namespace

Transaction::Transaction(stdfs::path prefix) : prefix_(std::move(prefix)) {}

Transaction::~Transaction() {
    if (!done_) rollback();
}

void sweep_prefix(const stdfs::path& prefix) {
    struct stat st{};
    if (!lexists(prefix, &st) || !S_ISDIR(st.st_mode)) return;
    fs::sweep_stale_temp_files(prefix);
    std::error_code ec;
    for (const auto& e : stdfs::directory_iterator(prefix, ec))
        if (str::starts_with(e.path().filename().string(), ".splitforge-trash-") && e.is_directory(ec) &&
            !e.is_symlink(ec))
            stdfs::remove_all(e.path(), ec);
}

Result<void> Transaction::begin() {
    struct stat st{};
    if (lexists(prefix_, &st)) {
        if (!S_ISDIR(st.st_mode)) return fail(prefix_.string() + ": exists and is not a directory");
        return {};
    }
    std::error_code ec;
    stdfs::create_directories(prefix_.parent_path(), ec);
    if (::mkdir(prefix_.c_str(), 0755) != 0) return fail_runtime({}, prefix_.string() + ": cannot create: " + sys_err());
    created_prefix_ = true;
    return {};
}

Result<void> Transaction::make_resolved_dirs(const std::string& resolved, const std::string& rel) {
    if (real_dirs_.count(resolved)) return {};
    stdfs::path cur = prefix_;
    std::string cur_rel;
    for (const auto& part : str::split(resolved, '/')) {
        if (part.empty()) continue;
        cur /= part;
        cur_rel += (cur_rel.empty() ? "" : "/") + part;
        struct stat st{};
        if (lexists(cur, &st)) {
            if (!S_ISDIR(st.st_mode))
                return fail(prefix_.string() + ": cannot create directory '" + rel + "': '" +
                            cur.lexically_relative(prefix_).string() + "' is a file");
        } else if (::mkdir(cur.c_str(), 0755) != 0) {
            return fail_runtime({}, prefix_.string() + ": cannot create directory '" + rel + "': " + sys_err());
        } else {
            created_dirs_.push_back(cur);
        }
        real_dirs_.insert(cur_rel);  // a real directory now (lstat: not a symlink)
    }
    return {};
}

Result<std::string> Transaction::resolve(const std::string& rel, bool follow_last) const {
    auto resolved = resolve_in_prefix(prefix_, rel, follow_last, &real_dirs_);
    if (!resolved) return resolved;
    // conda-meta/ and the installer's own names are reached only by name,
    // never through a symlink (a package's `cm -> conda-meta` must not let
    // another package's `cm/x.json` overwrite a record).
    if (is_reserved_top(*resolved) && !is_reserved_top(rel))
        return fail(prefix_.string() + ": '" + rel + "' leads into '" + resolved->substr(0, resolved->find('/')) +
                        "/' through a symlink; packages may not write there",
                    "the package is unsafe; do not install it");
    return resolved;
}

Result<void> Transaction::make_dirs(const std::string& rel) {
    // Symlinked directories inside the prefix (lib64 -> lib) are followed.
    auto resolved = resolve(rel, true);
    if (!resolved) return Unexpected<Error>{resolved.error()};
    return make_resolved_dirs(*resolved, rel);
}

Result<void> Transaction::remove(const std::string& rel) {
    auto resolved = resolve(rel, false);
    if (!resolved) return Unexpected<Error>{resolved.error()};
    if (resolved->empty()) return {};
    stdfs::path p = prefix_ / *resolved;
    struct stat st{};
    if (!lexists(p, &st) || S_ISDIR(st.st_mode)) return {};
    if (trash_.empty()) {
        trash_ = prefix_ / (".splitforge-trash-" + fs::random_hex(8));
        if (::mkdir(trash_.c_str(), 0700) != 0) {
            std::string e = sys_err();
            trash_.clear();
            return fail_runtime({}, prefix_.string() + ": cannot create a trash directory: " + e);
        }
    }
    stdfs::path aside = trash_ / std::to_string(moved_.size());
    if (::rename(p.c_str(), aside.c_str()) != 0)
        return fail_runtime({}, prefix_.string() + ": cannot move '" + rel + "' aside: " + sys_err());
    moved_.emplace_back(p, aside);
    removed_.push_back(p);
    return {};
}

Result<std::string> Transaction::prepare(const std::string& rel) {
    auto resolved = resolve(rel, false);
    if (!resolved) return Unexpected<Error>{resolved.error()};
    if (resolved->empty()) return fail(prefix_.string() + ": cannot install '" + rel + "': it is the prefix itself");
    auto slash = resolved->rfind('/');
    if (slash != std::string::npos)
        if (auto ok = make_resolved_dirs(resolved->substr(0, slash), rel); !ok) return Unexpected<Error>{ok.error()};
    struct stat st{};
    stdfs::path p = prefix_ / *resolved;
    if (lexists(p, &st) && S_ISDIR(st.st_mode))
        return fail(prefix_.string() + ": cannot install '" + rel + "': a directory is in the way");
    if (auto ok = remove(*resolved); !ok) return Unexpected<Error>{ok.error()};
    return resolved;
}

Result<Transaction::Linked> Transaction::link(const stdfs::path& src, const std::string& rel, LinkMode mode) {
    auto resolved = prepare(rel);
    if (!resolved) return Unexpected<Error>{resolved.error()};
    stdfs::path dst = prefix_ / *resolved;
    if (mode == LinkMode::hardlink_or_copy && ::link(src.c_str(), dst.c_str()) == 0) {
        created_files_.push_back(dst);
        return Linked::hardlink;
    }
    std::error_code ec;
    created_files_.push_back(dst);  // recorded first so a partial copy is undone too
    if (auto r = fs::copy_file(src, dst, fs::Overwrite::no); !r)
        return rewrap(r.error(), {}, prefix_.string() + ": cannot copy '" + rel + "': ");
    struct stat st{};
    if (::stat(src.c_str(), &st) == 0) ::chmod(dst.c_str(), st.st_mode & 01777);
    return Linked::copy;
}

Result<void> Transaction::write(const std::string& rel, const std::string& data, unsigned mode) {
    auto resolved = prepare(rel);
    if (!resolved) return Unexpected<Error>{resolved.error()};
    stdfs::path dst = prefix_ / *resolved;
    // Whole or not at all, even under kill -9 (a conda-meta record cut short
    // would stop every later install): written aside, then renamed into place.
    // What a killed writer left aside, begin() sweeps.
    // The temp name is one only splitforge makes (no package may ship it),
    // so the sweep can never take a package's file.
    stdfs::path tmp = prefix_ / fs::temp_name("splitforge-write");
    int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
    if (fd < 0) {
        int e = errno;
        return fail_runtime({}, prefix_.string() + ": cannot create '" + rel + "': " + std::strerror(e), fs::write_hint(e));
    }
    auto failed = [&](int e) {
        ::close(fd);
        ::unlink(tmp.c_str());
        return fail_runtime({}, prefix_.string() + ": cannot write '" + rel + "': " + std::strerror(e), fs::write_hint(e));
    };
    size_t off = 0;
    while (off < data.size()) {
        ssize_t w = ::write(fd, data.data() + off, data.size() - off);
        if (w < 0 && errno == EINTR) continue;
        if (w < 0) return failed(errno);
        off += static_cast<size_t>(w);
    }
    ::fchmod(fd, mode & 01777);
    if (::close(fd) != 0) {
        int e = errno;
        ::unlink(tmp.c_str());
        return fail_runtime({}, prefix_.string() + ": cannot write '" + rel + "': " + std::strerror(e), fs::write_hint(e));
    }
    if (::rename(tmp.c_str(), dst.c_str()) != 0) {
        int e = errno;
        ::unlink(tmp.c_str());
        return fail_runtime({}, prefix_.string() + ": cannot create '" + rel + "': " + std::strerror(e), fs::write_hint(e));
    }
    created_files_.push_back(dst);
    return {};
}

Result<void> Transaction::symlink(const std::string& target, const std::string& rel) {
    // Judged by where it lands after the links already in the prefix.
    auto slash = rel.rfind('/');
    std::string from_dir = slash == std::string::npos ? std::string{} : rel.substr(0, slash);
    std::string probe = from_dir.empty() ? target : from_dir + "/" + target;
    if (!target.empty() && target.front() == '/')
        probe = str::starts_with(target, prefix_.string() + "/") ? target.substr(prefix_.string().size() + 1) : "..";
    if (target.empty() || !resolve_in_prefix(prefix_, probe, true))
        return fail(prefix_.string() + ": symlink '" + rel + "' -> '" + target +
                        "' would point outside the prefix (through the links already there)",
                    "the package is unsafe; do not install it");
    auto resolved = prepare(rel);
    if (!resolved) return Unexpected<Error>{resolved.error()};
    stdfs::path dst = prefix_ / *resolved;
    if (::symlink(target.c_str(), dst.c_str()) != 0)
        return fail_runtime({}, prefix_.string() + ": cannot create symlink '" + rel + "': " + sys_err());
    created_files_.push_back(dst);
    return {};
}

Result<stdfs::path> Transaction::reserve(const std::string& rel) {
    auto resolved = prepare(rel);
    if (!resolved) return Unexpected<Error>{resolved.error()};
    created_files_.push_back(prefix_ / *resolved);
    return prefix_ / *resolved;
}

void Transaction::commit() {
    done_ = true;
    std::error_code ec;
    if (!trash_.empty()) stdfs::remove_all(trash_, ec);
    // Directories emptied by removals go too (never the prefix itself).
    for (const auto& p : removed_) {
        for (stdfs::path d = p.parent_path(); d != prefix_ && str::starts_with(d.string(), prefix_.string());
             d = d.parent_path()) {
            if (::rmdir(d.c_str()) != 0) break;
        }
    }
}

void Transaction::rollback() {
    done_ = true;
    for (auto it = created_files_.rbegin(); it != created_files_.rend(); ++it) ::unlink(it->c_str());
    for (auto it = moved_.rbegin(); it != moved_.rend(); ++it) ::rename(it->second.c_str(), it->first.c_str());
    std::error_code ec;
    if (!trash_.empty()) stdfs::remove_all(trash_, ec);
    for (auto it = created_dirs_.rbegin(); it != created_dirs_.rend(); ++it) ::rmdir(it->c_str());
    if (created_prefix_) ::rmdir(prefix_.c_str());
}

}  // namespace sf::env::detail
