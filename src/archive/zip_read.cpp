#include "archive/zip_read.hpp"

#include <archive.h>
#include <archive_entry.h>

#include <cerrno>
#include <cstring>
#include <memory>

#include "archive/extract.hpp"
#include "core/rewrap.hpp"
#include "util/fs.hpp"

namespace sf::archive {

namespace stdfs = std::filesystem;

Result<void> extract_zip(const stdfs::path& zip, const stdfs::path& dest) {
    std::error_code ec;
    if (stdfs::exists(stdfs::symlink_status(dest, ec)))
        return fail(dest.string() + ": already exists; not extracting " + zip.filename().string() + " over it");
    auto in = fs::InputFile::open(zip);
    if (!in) return Unexpected<Error>{in.error()};
    stdfs::path parent = dest.parent_path().empty() ? stdfs::path(".") : dest.parent_path();
    fs::TempDir tmp("zip-extract", parent);

    std::unique_ptr<struct archive, int (*)(struct archive*)> a(archive_read_new(), archive_read_free);
    archive_read_support_format_zip_seekable(a.get());
    auto err = [&](const std::string& why) {
        const char* s = archive_error_string(a.get());
        return fail(zip.string() + ": " + why + (s ? std::string(": ") + s : ""));
    };
    if (archive_read_open_fd(a.get(), in->fd(), 1 << 18) != ARCHIVE_OK) return err("not a readable zip");
    TreeWriter tree(tmp.path(), {extraction_limit(stdfs::file_size(zip, ec)), "archive", OwnerAccess::as_stored});
    for (;;) {
        struct archive_entry* e = nullptr;
        int rc = archive_read_next_header(a.get(), &e);
        if (rc == ARCHIVE_EOF) break;
        if (rc < ARCHIVE_WARN) return err("truncated or corrupt zip");
        Entry entry = entry_of(e);
        if (entry.type == EntryType::file && (entry.mode & 0777) == 0) entry.mode = 0644;  // zips without unix modes
        if (auto ok = tree.add(a.get(), entry); !ok) return rewrap(ok.error(), {}, zip.string() + ": ");
    }
    tree.finish();
    if (::rename(tmp.path().c_str(), dest.c_str()) != 0)
        return fail_runtime({}, dest.string() + ": cannot move the extracted archive into place: " + std::strerror(errno));
    tmp.release();
    return {};
}

}  // namespace sf::archive
