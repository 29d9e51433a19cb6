#include "archive/tree_archive.hpp"

#include <archive.h>
#include <archive_entry.h>
#include <sys/stat.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <memory>

#include "archive/extract.hpp"
#include "util/fs.hpp"

namespace sf::archive {

namespace stdfs = std::filesystem;

namespace {

using ArchivePtr = std::unique_ptr<struct archive, int (*)(struct archive*)>;

std::string err_of(struct archive* a) {
    const char* s = archive_error_string(a);
    return s ? s : "unknown libarchive error";
}

struct Reader {
    fs::InputFile file;
    ArchivePtr a;
};

Result<Reader> open_reader(const stdfs::path& file) {
    auto in = fs::InputFile::open(file);
    if (!in) return unexpected(in.error());
    ArchivePtr a(archive_read_new(), archive_read_free);
    archive_read_support_filter_zstd(a.get());
    archive_read_support_format_tar(a.get());
    if (archive_read_open_fd(a.get(), in->fd(), 1 << 18) != ARCHIVE_OK)
        return fail(SourceLoc{file.string()}, "not a .tar.zst archive: " + err_of(a.get()));
    return Reader{std::move(*in), std::move(a)};
}

}  // namespace

Result<std::vector<TarEntry>> tree_with_dirs(const stdfs::path& root, const std::string& prefix) {
    auto entries = tree_entries(root);
    if (!entries) return unexpected(entries.error());
    std::vector<TarEntry> out;
    std::error_code ec;
    // Directories first (parents before children), so extraction applies
    // their mtimes after the files written into them.
    TarEntry top;
    top.name = prefix;
    top.kind = EntryKind::directory;
    struct stat st {};
    if (::lstat(root.c_str(), &st) == 0) top.mode = st.st_mode & 07777, top.mtime_s = st.st_mtim.tv_sec, top.mtime_ns = st.st_mtim.tv_nsec;
    out.push_back(top);
    for (stdfs::recursive_directory_iterator it(root, ec), end; !ec && it != end; it.increment(ec)) {
        if (!it->is_directory(ec) || it->is_symlink(ec) || stdfs::is_empty(it->path(), ec)) continue;
        if (::lstat(it->path().c_str(), &st) != 0) continue;
        TarEntry d;
        d.name = prefix + "/" + it->path().lexically_relative(root).generic_string();
        d.kind = EntryKind::directory;
        d.mode = st.st_mode & 07777;
        d.mtime_s = st.st_mtim.tv_sec;
        d.mtime_ns = st.st_mtim.tv_nsec;
        out.push_back(std::move(d));
    }
    if (ec) return fail(SourceLoc{root.string()}, "cannot list directory: " + ec.message());
    for (auto& e : *entries) {
        e.name = prefix + "/" + e.name;
        out.push_back(std::move(e));
    }
    return out;
}

Result<void> write_tree_archive(const stdfs::path& file, const std::vector<TarEntry>& entries, const Compression& c) {
    auto out = OutputFile::create(file);
    if (!out) return unexpected(out.error());
    TarOptions o;
    o.times = Times::kept;
    if (auto w = write_tar(**out, entries, o, c); !w) return unexpected(w.error());
    return (*out)->commit();
}

Result<std::string> read_first_member(const stdfs::path& file, const std::string& name, std::size_t max_bytes) {
    auto r = open_reader(file);
    if (!r) return unexpected(r.error());
    struct archive_entry* e = nullptr;
    if (archive_read_next_header(r->a.get(), &e) != ARCHIVE_OK)
        return fail(SourceLoc{file.string()}, "truncated or corrupt archive: " + err_of(r->a.get()));
    Entry first = entry_of(e);
    if (first.path != name || first.type != EntryType::file)
        return fail(SourceLoc{file.string()}, "its first member is '" + first.path + "', not " + name,
                    "give an archive that `splitforge build --staging-only` wrote");
    if (first.size > max_bytes) return fail(SourceLoc{file.string()}, name + " is larger than " + std::to_string(max_bytes) + " bytes");
    std::string out(static_cast<std::size_t>(first.size), '\0');
    la_ssize_t n = archive_read_data(r->a.get(), out.data(), out.size());
    if (n < 0 || static_cast<std::size_t>(n) != out.size())
        return fail(SourceLoc{file.string()}, name + ": truncated or corrupt archive: " + err_of(r->a.get()));
    return out;
}

Result<void> extract_tree_archive(const stdfs::path& file, const stdfs::path& dest) {
    std::error_code ec;
    if (stdfs::exists(stdfs::symlink_status(dest, ec)))
        return fail(SourceLoc{dest.string()}, "already exists; not extracting " + file.filename().string() + " over it");
    auto r = open_reader(file);
    if (!r) return unexpected(r.error());
    fs::TempDir tmp("." + dest.filename().string() + ".extract", dest.parent_path());
    TreeWriter tree(tmp.path(), {extraction_limit(stdfs::file_size(file, ec)), "archive", OwnerAccess::as_stored,
                                 DataCrc::skip, LinkTargets::any});
    struct archive_entry* e = nullptr;
    while (true) {
        int rc = archive_read_next_header(r->a.get(), &e);
        if (rc == ARCHIVE_EOF) break;
        if (rc < ARCHIVE_WARN) return fail(SourceLoc{file.string()}, "truncated or corrupt archive: " + err_of(r->a.get()));
        if (auto ok = tree.add(r->a.get(), entry_of(e)); !ok)
            return fail(SourceLoc{file.string()}, ok.error().message, ok.error().hint);
    }
    tree.finish();
    if (::rename(tmp.path().c_str(), dest.c_str()) != 0)
        return fail_runtime(SourceLoc{dest.string()}, std::string("cannot move the extracted tree into place: ") + std::strerror(errno));
    tmp.release();
    return {};
}

}  // namespace sf::archive
