// Unpacking source archives with libarchive, with the same checks and limits
// as packages (archive::TreeWriter): members are relative with no "..",
// symlinks stay inside, nothing is written through a symlink, no name twice,
// no bomb.
// Extraction goes to a temporary directory next to `dest`; only a complete
// tree is moved into place.
#include <archive.h>
#include <archive_entry.h>
#include <memory>

#include "archive/extract.hpp"
#include "core/rewrap.hpp"
#include "source/source.hpp"
#include "util/fs.hpp"
#include "util/strings.hpp"

namespace sf::source {

namespace stdfs = std::filesystem;

namespace {

using ArchivePtr = std::unique_ptr<struct archive, int (*)(struct archive*)>;

// `hint` comes with I/O errors (a full disk); the rest is the archive's fault.
Unexpected<Error> bad(const stdfs::path& file, const std::string& why, const std::string& hint = {}) {
    return fail(SourceLoc{file.string()}, why,
                hint.empty() ? "the archive is corrupt or unsafe; check the source url and sha256" : hint);
}

Result<void> unpack_all(const stdfs::path& archive_file, const stdfs::path& root) {
    ArchivePtr a(archive_read_new(), archive_read_free);
    // What conda-build's libarchive reads, named one by one: `_all` would
    // also link xar (libxml2, ICU) and lz4, which no source archive uses.
    for (auto add : {archive_read_support_filter_gzip, archive_read_support_filter_bzip2,
                     archive_read_support_filter_xz, archive_read_support_filter_lzma,
                     archive_read_support_filter_lzip, archive_read_support_filter_zstd,
                     archive_read_support_filter_compress})
        add(a.get());
    for (auto add : {archive_read_support_format_tar, archive_read_support_format_zip,
                     archive_read_support_format_7zip, archive_read_support_format_rar,
                     archive_read_support_format_rar5, archive_read_support_format_cpio,
                     archive_read_support_format_ar, archive_read_support_format_cab,
                     archive_read_support_format_iso9660, archive_read_support_format_lha})
        add(a.get());
    auto file = fs::InputFile::open(archive_file);  // a FIFO is refused, not waited on
    if (!file) return unexpected(file.error());
    if (archive_read_open_fd(a.get(), file->fd(), 1 << 16) != ARCHIVE_OK) {
        const char* s = archive_error_string(a.get());
        return bad(archive_file, std::string("cannot open archive: ") + (s ? s : "unknown format"));
    }
    std::error_code ec;
    archive::TreeWriter tree(root, {archive::extraction_limit(stdfs::file_size(archive_file, ec)), "source tree",
                                    archive::OwnerAccess::read_write});
    struct archive_entry* e = nullptr;
    while (true) {
        int rc = archive_read_next_header(a.get(), &e);
        if (rc == ARCHIVE_EOF) break;
        if (rc < ARCHIVE_WARN) {
            const char* s = archive_error_string(a.get());
            return bad(archive_file, std::string("truncated or corrupt archive: ") + (s ? s : "read error"));
        }
        if (auto ok = tree.add(a.get(), archive::entry_of(e)); !ok) {
            Error err = ok.error();  // a write that failed stays the job's (exit 1)
            if (err.hint.empty()) err.hint = "the archive is corrupt or unsafe; check the source url and sha256";
            return rewrap(std::move(err), SourceLoc{archive_file.string()});
        }
    }
    tree.finish();
    return {};
}

// Moves each entry of `from` into `to`, refusing to overwrite.
Result<void> move_children(const stdfs::path& from, const stdfs::path& to, const stdfs::path& file) {
    std::error_code ec;
    stdfs::create_directories(to, ec);
    if (ec) return fail_runtime(SourceLoc{to.string()}, "cannot create directory: " + ec.message());
    for (const auto& child : stdfs::directory_iterator(from)) {
        stdfs::path target = to / child.path().filename();
        if (stdfs::exists(stdfs::symlink_status(target)))
            return fail(SourceLoc{file.string()},
                        "unpacking would overwrite '" + target.string() + "', which an earlier source created",
                        "give this source its own `folder:`");
        stdfs::rename(child.path(), target, ec);
        if (ec) return fail_runtime(SourceLoc{target.string()}, "cannot move into place: " + ec.message());
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
    if (ec) return fail_runtime(SourceLoc{dest.string()}, "cannot create directory: " + ec.message());
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
