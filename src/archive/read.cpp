#include "archive/read.hpp"
#include "archive/extract.hpp"

#include <archive.h>
#include <archive_entry.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <map>
#include <memory>

#include "core/rewrap.hpp"
#include "types/json_fields.hpp"
#include "util/dir_handle.hpp"
#include "util/fs.hpp"
#include "util/strings.hpp"

namespace sf::archive {
namespace {

// metadata.json holds conda_pkg_format_version and nothing much else.
constexpr std::size_t kMaxMetadataJson = 64 << 10;
// An info/ member read into memory: paths.json of a 250k-file package fits.
constexpr std::size_t kMaxMemberRead = std::size_t{128} << 20;

using ArchivePtr = std::unique_ptr<struct archive, int (*)(struct archive*)>;

ArchivePtr new_reader() { return ArchivePtr(archive_read_new(), archive_read_free); }

std::string err_of(struct archive* a) {
    const char* s = archive_error_string(a);
    return s ? s : "unknown libarchive error";
}

Unexpected<Error> bad(const stdfs::path& pkg, std::string_view why) {
    return fail(pkg.string() + ": " + std::string(why));
}

// conda finds a .conda's two tarballs by the file's own name: `info-<stem>`
// and `pkg-<stem>` (conda-package-streaming's stream_conda_component), so a
// .conda renamed apart from them is one conda cannot read, and install,
// index and check refuse it here too. (rattler takes any info-*.tar.zst.)
Result<void> check_inner_name(const stdfs::path& pkg, const std::string& name, std::string_view component) {
    const std::string want = std::string(component) + package_stem(pkg);
    if (str::starts_with(name, want)) return {};
    const std::string inner = name.substr(component.size(), name.size() - component.size() - 8);  // - ".tar.zst"
    return fail(pkg.string() + ": '" + name + "' does not match the file name (conda reads " + want + ".tar.zst)",
                "the file was renamed; its contents are " + inner + ".conda");
}

// Called for each member with the archive positioned at its data. Return
// false to stop early.
using Visitor = std::function<Result<bool>(struct archive*, const Entry&)>;

bool is_info_path(const std::string& path) { return path == "info" || str::starts_with(path, "info/"); }

bool wanted(Part part, const std::string& path) { return part == Part::all || (part == Part::info) == is_info_path(path); }

// metadata.json must say {"conda_pkg_format_version": 2}.
Result<void> check_metadata_json(const stdfs::path& pkg, const std::string& text) {
    auto j = types::parse_json_object(text, pkg.string() + ": metadata.json");
    if (!j) return Unexpected<Error>{j.error()};
    auto v = types::JsonFields(*j, pkg.string() + ": metadata.json").integer("conda_pkg_format_version");
    if (!v) return Unexpected<Error>{v.error()};
    if (*v != 2) return bad(pkg, "metadata.json does not say conda_pkg_format_version 2");
    return {};
}

// What one tar stream may hold: a .tar.bz2 everything, a .conda's
// info-*.tar.zst only info/ and its pkg-*.tar.zst only the rest (a
// pkg-*.tar.zst shipping info/paths.json would list files no one checked).
enum class Tarball { whole, info, payload };

// Walks one tar stream (already opened in `a`).
Result<bool> visit_tar(struct archive* a, const stdfs::path& pkg, std::string_view label, Part part,
                       const Visitor& v, Tarball kind = Tarball::whole) {
    struct archive_entry* e = nullptr;
    while (true) {
        int rc = archive_read_next_header(a, &e);
        if (rc == ARCHIVE_EOF) return true;
        if (rc < ARCHIVE_WARN)
            return bad(pkg, std::string(label) + ": truncated or corrupt archive: " + err_of(a));
        Entry entry = entry_of(e);
        if (kind != Tarball::whole && (kind == Tarball::info) != is_info_path(entry.path))
            return bad(pkg, std::string(label) + ": member '" + entry.path + "' belongs in the " +
                                (kind == Tarball::info ? "pkg" : "info") + "-*.tar.zst");
        if (!wanted(part, entry.path)) continue;
        auto r = v(a, entry);
        if (!r) return Unexpected<Error>{r.error()};
        if (!*r) return false;
    }
}

struct InnerCtx {
    struct archive* outer;
    std::vector<char> buf = std::vector<char>(1 << 18);
};

la_ssize_t inner_read(struct archive* inner, void* ud, const void** out) {
    auto* c = static_cast<InnerCtx*>(ud);
    la_ssize_t n = archive_read_data(c->outer, c->buf.data(), c->buf.size());
    if (n < 0) {
        archive_set_error(inner, EIO, "%s", err_of(c->outer).c_str());
        return -1;
    }
    *out = c->buf.data();
    return n;
}

Result<void> visit_package(const stdfs::path& pkg, Part part, const Visitor& v) {
    auto fmt = package_format(pkg);
    if (!fmt) return Unexpected<Error>{fmt.error()};
    std::error_code ec;
    if (!stdfs::exists(pkg, ec)) return bad(pkg, "no such package file");
    // Opened without blocking (a FIFO is refused); libarchive reads the fd.
    auto file = fs::InputFile::open(pkg);
    if (!file) return unexpected(file.error());

    if (*fmt == PackageFormat::tar_bz2) {
        auto a = new_reader();
        archive_read_support_filter_bzip2(a.get());
        archive_read_support_format_tar(a.get());
        if (archive_read_open_fd(a.get(), file->fd(), 1 << 18) != ARCHIVE_OK)
            return bad(pkg, "truncated or corrupt archive: " + err_of(a.get()));
        auto r = visit_tar(a.get(), pkg, "tar.bz2", part, v);
        if (!r) return Unexpected<Error>{r.error()};
        return {};
    }

    auto zip = new_reader();
    archive_read_support_format_zip_seekable(zip.get());
    if (archive_read_open_fd(zip.get(), file->fd(), 1 << 18) != ARCHIVE_OK)
        return bad(pkg, "truncated or corrupt .conda (not a readable zip): " + err_of(zip.get()));
    bool saw_info = false, saw_pkg = false, saw_meta = false;
    struct archive_entry* e = nullptr;
    while (true) {
        int rc = archive_read_next_header(zip.get(), &e);
        if (rc == ARCHIVE_EOF) break;
        if (rc < ARCHIVE_WARN) return bad(pkg, "truncated or corrupt .conda: " + err_of(zip.get()));
        std::string name = archive_entry_pathname(e) ? archive_entry_pathname(e) : "";
        if (name == "metadata.json") {
            if (saw_meta) return bad(pkg, "a second metadata.json; a .conda holds one");
            saw_meta = true;
            std::string text;
            char buf[4096];
            la_ssize_t n;
            while ((n = archive_read_data(zip.get(), buf, sizeof buf)) > 0) {
                text.append(buf, static_cast<size_t>(n));
                // It holds two short fields; a deflate bomb here would fill memory.
                if (text.size() > kMaxMetadataJson) return bad(pkg, "metadata.json is larger than 64 KiB");
            }
            if (n < 0) return bad(pkg, "truncated or corrupt .conda: " + err_of(zip.get()));
            if (auto ok = check_metadata_json(pkg, text); !ok) return ok;
            continue;
        }
        bool is_info = str::starts_with(name, "info-") && str::ends_with(name, ".tar.zst");
        bool is_pkg = str::starts_with(name, "pkg-") && str::ends_with(name, ".tar.zst");
        if (!is_info && !is_pkg) return bad(pkg, "unexpected member '" + name + "' in .conda");
        if (auto ok = check_inner_name(pkg, name, is_info ? "info-" : "pkg-"); !ok) return ok;
        // Exactly one of each: a second one would be read after the checked one.
        bool& saw = is_info ? saw_info : saw_pkg;
        if (saw)
            return bad(pkg, "a second " + std::string(is_info ? "info" : "pkg") + "-*.tar.zst ('" + name +
                                "'); a .conda holds one of each");
        saw = true;
        if ((is_info && part == Part::payload) || (is_pkg && part == Part::info)) continue;
        InnerCtx ctx{zip.get()};
        auto inner = new_reader();
        archive_read_support_filter_zstd(inner.get());
        archive_read_support_format_tar(inner.get());
        if (archive_read_open(inner.get(), &ctx, nullptr, inner_read, nullptr) != ARCHIVE_OK)
            return bad(pkg, name + ": corrupt zstd tarball: " + err_of(inner.get()));
        auto r = visit_tar(inner.get(), pkg, name, part, v, is_info ? Tarball::info : Tarball::payload);
        if (!r) return Unexpected<Error>{r.error()};
        if (!*r) return {};
        // Drain the rest of the member so the zip CRC is checked too.
        while (true) {
            la_ssize_t n = archive_read_data(zip.get(), ctx.buf.data(), ctx.buf.size());
            if (n == 0) break;
            if (n < 0) return bad(pkg, name + ": truncated or corrupt .conda: " + err_of(zip.get()));
        }
    }
    if (!saw_meta) return bad(pkg, "not a .conda package: no metadata.json");
    if (part != Part::payload && !saw_info) return bad(pkg, "not a .conda package: no info-*.tar.zst");
    if (part != Part::info && !saw_pkg) return bad(pkg, "not a .conda package: no pkg-*.tar.zst");
    return {};
}

Result<std::string> read_data(struct archive* a, const stdfs::path& pkg, const Entry& e) {
    std::string out;
    char buf[1 << 16];
    while (true) {
        la_ssize_t n = archive_read_data(a, buf, sizeof buf);
        if (n == 0) return out;
        if (n < 0) return bad(pkg, e.path + ": truncated or corrupt archive: " + err_of(a));
        out.append(buf, static_cast<size_t>(n));
        // Read into memory, so bounded whatever the header declares (a 34 KB
        // package can decompress to gigabytes of about.json).
        if (out.size() > kMaxMemberRead)
            return bad(pkg, e.path + " is larger than " + std::to_string(kMaxMemberRead >> 20) +
                                " MiB (no package metadata file is this large; the package is damaged or hostile)");
    }
}

}  // namespace

Result<PackageFormat> package_format(const stdfs::path& file) {
    std::string name = file.filename().string();
    if (str::ends_with(name, ".conda")) return PackageFormat::conda;
    if (str::ends_with(name, ".tar.bz2")) return PackageFormat::tar_bz2;
    return fail(file.string() + ": not a conda package (expected a .conda or .tar.bz2 file name)");
}

std::string package_stem(const stdfs::path& file) {
    std::string name = file.filename().string();
    for (std::string_view ext : {".conda", ".tar.bz2"})
        if (str::ends_with(name, ext)) return name.substr(0, name.size() - ext.size());
    return name;
}

Result<std::vector<Entry>> list_package(const stdfs::path& pkg, Part part) {
    std::vector<Entry> out;
    auto r = visit_package(pkg, part, [&](struct archive*, const Entry& e) -> Result<bool> {
        out.push_back(e);
        return true;
    });
    if (!r) return Unexpected<Error>{r.error()};
    return out;
}

Result<std::string> read_package_member(const stdfs::path& pkg, std::string_view member) {
    std::optional<std::string> found;
    Part part = member == "info" || str::starts_with(member, "info/") ? Part::info : Part::payload;
    auto r = visit_package(pkg, part, [&](struct archive* a, const Entry& e) -> Result<bool> {
        if (e.path != member) return true;
        auto d = read_data(a, pkg, e);
        if (!d) return Unexpected<Error>{d.error()};
        found = std::move(*d);
        return false;
    });
    if (!r) return Unexpected<Error>{r.error()};
    if (!found) return bad(pkg, "no member '" + std::string(member) + "'");
    return *found;
}

Result<PackageMetadata> read_package_metadata(const stdfs::path& pkg) {
    std::optional<std::string> index, paths;
    auto r = visit_package(pkg, Part::info, [&](struct archive* a, const Entry& e) -> Result<bool> {
        if (e.path != "info/index.json" && e.path != "info/paths.json") return true;
        auto d = read_data(a, pkg, e);
        if (!d) return Unexpected<Error>{d.error()};
        (e.path == "info/index.json" ? index : paths) = std::move(*d);
        return !(index && paths);
    });
    if (!r) return Unexpected<Error>{r.error()};
    if (!index) return bad(pkg, "no info/index.json");
    if (types::json_too_deep(*index)) return bad(pkg, "info/index.json is nested too deeply");
    auto j = nlohmann::json::parse(*index, nullptr, false);
    if (j.is_discarded()) return bad(pkg, "info/index.json is not valid JSON");
    auto rec = types::PackageRecord::from_json(j, pkg.string() + ": info/index.json");
    if (!rec) return Unexpected<Error>{rec.error()};
    PackageMetadata md{std::move(*rec), std::nullopt};
    if (paths) {
        auto p = types::PathsJson::parse(*paths, pkg.string() + ": info/paths.json");
        if (!p) return Unexpected<Error>{p.error()};
        md.paths = std::move(*p);
    }
    return md;
}

Result<void> extract_package(const stdfs::path& pkg, const stdfs::path& dest) {
    std::error_code ec;
    if (stdfs::exists(stdfs::symlink_status(dest, ec)))
        return fail(dest.string() + ": already exists; not extracting " + pkg.filename().string() + " over it");
    stdfs::path parent = dest.parent_path().empty() ? stdfs::path(".") : dest.parent_path();
    stdfs::create_directories(parent, ec);
    stdfs::path tmp = parent / ("." + dest.filename().string() + ".extract-" + fs::random_hex(8));
    if (!stdfs::create_directory(tmp, ec)) return fail_runtime({}, tmp.string() + ": cannot create: " + ec.message());

    struct Cleanup {
        stdfs::path p;
        bool armed = true;
        ~Cleanup() {
            std::error_code e;
            if (armed) stdfs::remove_all(p, e);
        }
    } cleanup{tmp};

    TreeWriter tree(tmp, {extraction_limit(stdfs::file_size(pkg, ec)), "package", OwnerAccess::as_stored});
    auto r = visit_package(pkg, Part::all, [&](struct archive* a, const Entry& e) -> Result<bool> {
        if (auto ok = tree.add(a, e); !ok) return rewrap(ok.error(), {}, pkg.string() + ": ");
        return true;
    });
    if (!r) return Unexpected<Error>{r.error()};
    tree.finish();
    if (::rename(tmp.c_str(), dest.c_str()) != 0)
        return fail_runtime({}, dest.string() + ": cannot move the extracted package into place: " + std::strerror(errno));
    cleanup.armed = false;
    return {};
}

}  // namespace sf::archive
