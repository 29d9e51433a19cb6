// Unpacking source archives with libarchive, safely: members are relative
// with no "..", symlinks stay inside, nothing is written through a symlink.
// Extraction goes to a temporary directory next to `dest`; only a complete
// tree is moved into place.
#include <archive.h>
#include <archive_entry.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <memory>

#include "archive/read.hpp"
#include "source/source.hpp"
#include "util/fs.hpp"
#include "util/strings.hpp"

namespace sf::source {

namespace stdfs = std::filesystem;

namespace {

using ArchivePtr = std::unique_ptr<struct archive, int (*)(struct archive*)>;

std::string sys_err(int e) { return std::strerror(e); }

Unexpected<Error> bad(const stdfs::path& file, const std::string& why) {
    return fail(SourceLoc{file.string()}, why, "the archive is corrupt or unsafe; check the source url and sha256");
}

// Removes whatever a previous member left at `p` (archives may repeat names).
void clear_slot(const stdfs::path& p) {
    struct stat st {};
    if (::lstat(p.c_str(), &st) == 0 && !S_ISDIR(st.st_mode)) ::unlink(p.c_str());
}

Result<void> write_member(struct archive* a, const stdfs::path& dst, unsigned mode, const stdfs::path& file) {
    int fd = ::open(dst.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, (mode & 0777) | 0600);
    if (fd < 0) return bad(file, "cannot write '" + dst.string() + "': " + sys_err(errno));
    const void* buf = nullptr;
    size_t size = 0;
    la_int64_t offset = 0;
    while (true) {
        int rc = archive_read_data_block(a, &buf, &size, &offset);
        if (rc == ARCHIVE_EOF) break;
        if (rc < ARCHIVE_WARN) {
            ::close(fd);
            const char* s = archive_error_string(a);
            return bad(file, std::string("truncated or corrupt archive: ") + (s ? s : "read error"));
        }
        // Sparse members come with offsets; write at the offset given.
        const char* p = static_cast<const char*>(buf);
        size_t done = 0;
        while (done < size) {
            ssize_t n = ::pwrite(fd, p + done, size - done, offset + static_cast<off_t>(done));
            if (n < 0) {
                if (errno == EINTR) continue;
                int e = errno;
                ::close(fd);
                return bad(file, "cannot write '" + dst.string() + "': " + sys_err(e));
            }
            done += static_cast<size_t>(n);
        }
    }
    ::fchmod(fd, (mode & 07777 & ~static_cast<unsigned>(S_ISUID | S_ISGID)) | 0600);
    ::close(fd);
    return {};
}

Result<void> unpack_all(const stdfs::path& archive_file, const stdfs::path& root) {
    ArchivePtr a(archive_read_new(), archive_read_free);
    archive_read_support_filter_all(a.get());
    archive_read_support_format_all(a.get());
    if (archive_read_open_filename(a.get(), archive_file.c_str(), 1 << 16) != ARCHIVE_OK) {
        const char* s = archive_error_string(a.get());
        return bad(archive_file, std::string("cannot open archive: ") + (s ? s : "unknown format"));
    }
    struct archive_entry* e = nullptr;
    std::vector<std::pair<stdfs::path, unsigned>> dir_modes;
    while (true) {
        int rc = archive_read_next_header(a.get(), &e);
        if (rc == ARCHIVE_EOF) break;
        if (rc < ARCHIVE_WARN) {
            const char* s = archive_error_string(a.get());
            return bad(archive_file, std::string("truncated or corrupt archive: ") + (s ? s : "read error"));
        }
        const char* name = archive_entry_pathname(e);
        std::string raw = name ? name : "";
        if (raw == "./" || raw == "." || raw.empty()) continue;
        auto rel = archive::safe_member_path(raw);
        if (!rel) return bad(archive_file, "unsafe member: " + rel.error().message);
        if (auto ok = archive::make_member_parents(root, *rel); !ok) return bad(archive_file, ok.error().message);
        stdfs::path dst = root / *rel;
        unsigned mode = archive_entry_perm(e);

        if (const char* hl = archive_entry_hardlink(e)) {
            auto src = archive::safe_member_path(hl);
            if (!src) return bad(archive_file, "unsafe hardlink '" + *rel + "': " + src.error().message);
            clear_slot(dst);
            if (::link((root / *src).c_str(), dst.c_str()) != 0)
                return bad(archive_file, "cannot create hardlink '" + *rel + "' -> '" + *src + "': " + sys_err(errno));
            continue;
        }
        switch (archive_entry_filetype(e)) {
            case AE_IFDIR: {
                struct stat st {};
                if (::lstat(dst.c_str(), &st) == 0 && !S_ISDIR(st.st_mode))
                    return bad(archive_file, "directory member '" + *rel + "' collides with a file");
                if (::mkdir(dst.c_str(), 0755) != 0 && errno != EEXIST)
                    return bad(archive_file, "cannot create directory '" + *rel + "': " + sys_err(errno));
                dir_modes.emplace_back(dst, (mode & 0777) | 0700);
                break;
            }
            case AE_IFREG: {
                clear_slot(dst);
                if (auto ok = write_member(a.get(), dst, mode, archive_file); !ok) return ok;
                break;
            }
            case AE_IFLNK: {
                const char* t = archive_entry_symlink(e);
                std::string target = t ? t : "";
                if (!archive::symlink_stays_inside(*rel, target))
                    return bad(archive_file, "unsafe member: symlink '" + *rel + "' -> '" + target +
                                                 "' points outside the source tree");
                clear_slot(dst);
                if (::symlink(target.c_str(), dst.c_str()) != 0)
                    return bad(archive_file, "cannot create symlink '" + *rel + "': " + sys_err(errno));
                break;
            }
            default:
                // Devices, fifos and sockets have no place in a source tree.
                return bad(archive_file, "unsupported member type for '" + *rel + "'");
        }
    }
    for (const auto& [d, m] : dir_modes) ::chmod(d.c_str(), m);
    return {};
}

// Moves each entry of `from` into `to`, refusing to overwrite.
Result<void> move_children(const stdfs::path& from, const stdfs::path& to, const stdfs::path& file) {
    std::error_code ec;
    stdfs::create_directories(to, ec);
    if (ec) return fail(SourceLoc{to.string()}, "cannot create directory: " + ec.message());
    for (const auto& child : stdfs::directory_iterator(from)) {
        stdfs::path target = to / child.path().filename();
        if (stdfs::exists(stdfs::symlink_status(target)))
            return fail(SourceLoc{file.string()},
                        "unpacking would overwrite '" + target.string() + "', which an earlier source created",
                        "give this source its own `folder:`");
        stdfs::rename(child.path(), target, ec);
        if (ec) return fail(SourceLoc{target.string()}, "cannot move into place: " + ec.message());
    }
    return {};
}

}  // namespace

bool is_archive_name(const std::string& name) {
    std::string n = str::lower(name);
    for (const char* ext : {".tar.gz", ".tgz", ".tar.bz2", ".tbz2", ".tbz", ".tar.xz", ".txz", ".tar.zst",
                            ".tzst", ".tar.lzma", ".tar", ".zip"})
        if (str::ends_with(n, ext)) return true;
    return false;
}

Result<void> extract_archive(const stdfs::path& archive_file, const stdfs::path& dest, StripTop strip) {
    std::error_code ec;
    stdfs::create_directories(dest, ec);
    if (ec) return fail(SourceLoc{dest.string()}, "cannot create directory: " + ec.message());
    // Next to dest, on the same file system, so the final moves are renames.
    fs::TempDir tmp(".sf-extract", dest);
    if (auto ok = unpack_all(archive_file, tmp.path()); !ok) return ok;

    stdfs::path top = tmp.path();
    if (strip == StripTop::yes) {
        std::vector<stdfs::directory_entry> kids(stdfs::directory_iterator(tmp.path()), {});
        if (kids.size() == 1 && kids[0].is_directory() && !kids[0].is_symlink()) top = kids[0].path();
    }
    return move_children(top, dest, archive_file);
}

}  // namespace sf::source
