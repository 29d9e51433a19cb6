#include "archive/extract.hpp"

#include <archive.h>
#include <archive_entry.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <string_view>
#include <unordered_set>

#include "core/rewrap.hpp"
#include "util/fs.hpp"
#include "util/strings.hpp"

namespace sf::archive {

namespace stdfs = std::filesystem;

namespace {

std::string sys_err(int e) { return std::strerror(e); }

// Writing failed for a reason of the disk, not of the archive (ENOSPC, EDQUOT,
// EACCES): strerror says which, the hint what to do.
Unexpected<Error> io_fail(const std::string& what, int err) {
    std::string hint = fs::write_hint(err);
    return fail_runtime({}, what + ": " + sys_err(err), hint.empty() ? "check the disk it extracts to" : hint);
}

std::string err_of(struct ::archive* a) {
    const char* s = archive_error_string(a);
    return s ? s : "unknown libarchive error";
}

}  // namespace

Entry entry_of(struct ::archive_entry* e) {
    Entry out;
    const char* p = archive_entry_pathname(e);
    out.path = p ? p : "";
    while (str::starts_with(out.path, "./")) out.path.erase(0, 2);
    out.size = archive_entry_size_is_set(e) ? static_cast<std::uint64_t>(archive_entry_size(e)) : 0;
    out.mode = archive_entry_perm(e);
    if (archive_entry_mtime_is_set(e))
        out.mtime = ::timespec{static_cast<std::time_t>(archive_entry_mtime(e)), archive_entry_mtime_nsec(e)};
    if (const char* h = archive_entry_hardlink(e)) {
        out.type = EntryType::hardlink;
        out.link_target = h;
        while (str::starts_with(out.link_target, "./")) out.link_target.erase(0, 2);
        return out;
    }
    switch (archive_entry_filetype(e)) {
        case AE_IFREG: out.type = EntryType::file; break;
        case AE_IFDIR:
            out.type = EntryType::directory;
            while (!out.path.empty() && out.path.back() == '/') out.path.pop_back();
            break;
        case AE_IFLNK:
            out.type = EntryType::symlink;
            out.link_target = archive_entry_symlink(e) ? archive_entry_symlink(e) : "";
            break;
        default: out.type = static_cast<EntryType>(-1); break;  // refused by TreeWriter
    }
    return out;
}

std::uint64_t extraction_limit(std::uint64_t archive_size) {
    std::uint64_t floor = std::uint64_t{256} << 20;
    std::uint64_t scaled = archive_size > (~std::uint64_t{0} / kMaxExpansionRatio) ? ~std::uint64_t{0}
                                                                                   : archive_size * kMaxExpansionRatio;
    return std::max(floor, scaled);
}

Result<std::string> safe_member_path(std::string_view name) {
    std::string s(name);
    while (str::starts_with(s, "./")) s.erase(0, 2);
    while (!s.empty() && s.back() == '/') s.pop_back();
    if (s.empty()) return fail("empty member name");
    if (s.front() == '/') return fail("absolute member path '" + std::string(name) + "'");
    if (s.find('\\') != std::string::npos || s.find('\0') != std::string::npos)
        return fail("invalid character in member path '" + std::string(name) + "'");
    std::vector<std::string> kept;
    for (const auto& part : str::split(s, '/')) {
        if (part == "..") return fail("member path '" + std::string(name) + "' contains '..'");
        if (part.empty() || part == ".") continue;
        kept.push_back(part);
    }
    if (kept.empty()) return fail("empty member name");
    return str::join(kept, "/");
}

Result<std::size_t> make_member_parents(const stdfs::path& root, const std::string& rel,
                                        std::unordered_set<std::string>* known) {
    auto slash = rel.rfind('/');
    if (slash == std::string::npos) return std::size_t{0};
    const std::string parent = rel.substr(0, slash);
    if (known && known->count(parent)) return std::size_t{0};
    // Below the deepest directory already known to be real, only the new
    // components are checked: lstat-ing every component of every member
    // costs depth^2 per file (2000 files 1000 deep took minutes).
    std::size_t from = 0;
    if (known)
        for (std::string_view p = parent; p.rfind('/') != std::string_view::npos;) {
            auto s = p.rfind('/');
            p = p.substr(0, s);
            if (known->count(std::string(p))) {
                from = s + 1;
                break;
            }
        }
    std::size_t made = 0;
    for (std::size_t pos = from; pos <= parent.size();) {
        std::size_t next = std::min(parent.find('/', pos), parent.size());
        std::string cur_rel = parent.substr(0, next);
        stdfs::path cur = root / cur_rel;
        struct stat st{};
        if (::lstat(cur.c_str(), &st) == 0) {
            if (S_ISLNK(st.st_mode)) return fail("member '" + rel + "' would be written through a symlink");
            if (!S_ISDIR(st.st_mode)) return fail("member '" + rel + "' is below a non-directory");
        } else if (::mkdir(cur.c_str(), 0755) == 0) {
            ++made;
        } else if (errno != EEXIST) {
            return io_fail("cannot create directory for '" + rel + "'", errno);
        }
        if (known) known->insert(std::move(cur_rel));
        pos = next + 1;
    }
    return made;
}

bool symlink_stays_inside(std::string_view link_path, std::string_view target) {
    if (target.empty() || target.front() == '/') return false;
    long depth = static_cast<long>(str::split(std::string(link_path), '/').size()) - 1;
    bool seen_name = false;
    for (const auto& part : str::split(std::string(target), '/')) {
        if (part.empty() || part == ".") continue;
        if (part == "..") {
            // "a/.." can resolve through a symlink `a` to somewhere else, so
            // '..' is only accepted before the first name.
            if (seen_name) return false;
            if (--depth < 0) return false;
        } else {
            seen_name = true;
        }
    }
    return true;
}

// --- TreeWriter ---------------------------------------------------------------

TreeWriter::TreeWriter(stdfs::path root, TreeLimits limits) : root_(std::move(root)), limits_(std::move(limits)) {}

// `members`: how many, when their cost (not their sizes alone) passed it.
Result<void> TreeWriter::over_budget(std::size_t members) const {
    std::string many = members ? " with " + std::to_string(members) + " members" +
                                     " (each counts " + std::to_string(kMemberCost) + " bytes at least)"
                               : "";
    return fail("would expand to more than " + std::to_string(limits_.budget >> 20) + " MiB" + many +
                " (limit: 100 times the archive size, at least 256 MiB); refusing to extract");
}

Result<void> TreeWriter::write_data(struct ::archive* a, const stdfs::path& dst, const Entry& e,
                                    const std::string& rel) {
    int fd = ::open(dst.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
    if (fd < 0) return io_fail("cannot create '" + rel + "'", errno);
    auto failed = [&](std::string why) {
        ::close(fd);
        return fail(std::move(why));
    };
    auto io_failed = [&](const std::string& what, int err) {
        ::close(fd);
        return io_fail(what, err);
    };
    std::uint64_t end = 0;  // of the data so far; sparse members come with offsets
    last_ = {};
    while (true) {
        const void* buf = nullptr;
        size_t size = 0;
        la_int64_t offset = 0;
        int rc = archive_read_data_block(a, &buf, &size, &offset);
        if (rc == ARCHIVE_EOF) break;
        if (rc < ARCHIVE_WARN) return failed(rel + ": truncated or corrupt archive: " + err_of(a));
        if (offset < 0) return failed(rel + ": corrupt archive: negative data offset");
        std::uint64_t block_end = static_cast<std::uint64_t>(offset) + size;
        if (block_end > end) {
            written_ += block_end - end;
            end = block_end;
            if (written_ > limits_.budget) {
                ::close(fd);
                return over_budget();
            }
        }
        const char* p = static_cast<const char*>(buf);
        if (limits_.crc == DataCrc::crc32) {
            if (static_cast<std::uint64_t>(offset) != last_.size) last_.in_order = false;
            for (size_t at = 0; at < size;) {  // zlib takes a uInt length
                const uInt n = static_cast<uInt>(std::min<size_t>(size - at, 1u << 30));
                last_.crc32 = static_cast<std::uint32_t>(::crc32(last_.crc32, reinterpret_cast<const Bytef*>(p + at), n));
                at += n;
            }
            last_.size += size;
        }
        size_t done = 0;
        while (done < size) {
            ssize_t n = ::pwrite(fd, p + done, size - done, offset + static_cast<off_t>(done));
            if (n < 0) {
                if (errno == EINTR) continue;
                return io_failed("cannot write '" + rel + "'", errno);
            }
            done += static_cast<size_t>(n);
        }
    }
    // A sparse member may end in a hole.
    if (e.size > end && ::ftruncate(fd, static_cast<off_t>(e.size)) != 0)
        return io_failed("cannot write '" + rel + "'", errno);
    unsigned mode = e.mode & 01777;  // no setuid/setgid from archives
    if (limits_.access == OwnerAccess::read_write) mode |= 0600;
    ::fchmod(fd, mode);
    if (e.mtime) {
        const ::timespec times[2] = {*e.mtime, *e.mtime};
        ::futimens(fd, times);
    }
    if (::close(fd) != 0) return io_fail("cannot write '" + rel + "'", errno);
    return {};
}

Result<void> TreeWriter::add(struct ::archive* a, const Entry& e) {
    if (e.type == EntryType::directory && e.path.find_first_not_of("./") == std::string::npos)
        return {};  // "./", the root itself
    auto rel = safe_member_path(e.path);
    if (!rel) return fail("unsafe member: " + rel.error().message);
    auto [it, fresh] = seen_.emplace(*rel, e.type);
    if (!fresh && !(e.type == EntryType::directory && it->second == EntryType::directory))
        return fail("unsafe member: '" + *rel + "' appears twice in the archive");
    if (seen_.size() > kMaxMembers)
        return fail("more than " + std::to_string(kMaxMembers) + " members; refusing to extract");
    // Checked before the member is written: its declared size plus what any
    // member costs (kMemberCost), so a million empty members stop at the
    // first ~65k (for a small archive), not after all of them are on disk.
    overhead_ += kMemberCost + rel->size();
    declared_ += e.size + kMemberCost + rel->size();
    if (declared_ > limits_.budget) return over_budget(declared_ - overhead_ > limits_.budget ? 0 : seen_.size());
    auto made = make_member_parents(root_, *rel, &dirs_);
    if (!made) return Unexpected<Error>{made.error()};
    // A directory made on the way costs as a member does.
    overhead_ += *made * kMemberCost;
    declared_ += *made * kMemberCost;
    if (declared_ > limits_.budget) return over_budget(declared_ - overhead_ > limits_.budget ? 0 : seen_.size());
    stdfs::path dst = root_ / *rel;
    switch (e.type) {
        case EntryType::directory: {
            struct stat st{};
            if (::lstat(dst.c_str(), &st) == 0 && !S_ISDIR(st.st_mode))
                return fail("directory member '" + *rel + "' collides with a file");
            if (::mkdir(dst.c_str(), 0755) != 0 && errno != EEXIST)
                return io_fail("cannot create directory '" + *rel + "'", errno);
            dirs_.insert(*rel);
            unsigned mode = (e.mode & 0777) | 0700;
            dir_modes_.push_back({dst, mode, e.mtime});
            return {};
        }
        case EntryType::file: return write_data(a, dst, e, *rel);
        case EntryType::symlink:
            if (e.link_target.empty() ||
                (limits_.links == LinkTargets::inside && !symlink_stays_inside(*rel, e.link_target)))
                return fail("unsafe member: symlink '" + *rel + "' -> '" + e.link_target + "' points outside the " +
                            limits_.container);
            if (::symlink(e.link_target.c_str(), dst.c_str()) != 0)
                return io_fail("cannot create symlink '" + *rel + "'", errno);
            if (e.mtime) {
                const ::timespec times[2] = {*e.mtime, *e.mtime};
                ::utimensat(AT_FDCWD, dst.c_str(), times, AT_SYMLINK_NOFOLLOW);
            }
            return {};
        case EntryType::hardlink: {
            auto src = safe_member_path(e.link_target);
            if (!src) return fail("unsafe member: hardlink '" + *rel + "': " + src.error().message);
            struct stat st{};
            stdfs::path from = root_ / *src;
            auto kind = seen_.find(*src);
            if (kind == seen_.end() || (kind->second != EntryType::file && kind->second != EntryType::hardlink) ||
                ::lstat(from.c_str(), &st) != 0 ||
                !S_ISREG(st.st_mode))
                return fail("hardlink '" + *rel + "' refers to '" + *src + "', not an earlier file");
            if (::link(from.c_str(), dst.c_str()) != 0) {
                if (auto r = fs::copy_file(from, dst, fs::Overwrite::no); !r)
                    return rewrap(r.error(), {}, "cannot create '" + *rel + "': ");
            }
            return {};
        }
    }
    return fail("unsafe member: '" + *rel + "' is not a file, directory or symlink");
}

void TreeWriter::finish() {
    // Deepest first, after every member: writing into a directory sets its mtime.
    for (auto it = dir_modes_.rbegin(); it != dir_modes_.rend(); ++it) {
        ::chmod(it->path.c_str(), it->mode);
        if (it->mtime) {
            const ::timespec times[2] = {*it->mtime, *it->mtime};
            ::utimensat(AT_FDCWD, it->path.c_str(), times, AT_SYMLINK_NOFOLLOW);
        }
    }
    dir_modes_.clear();
}

}  // namespace sf::archive
