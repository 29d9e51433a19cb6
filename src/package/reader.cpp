#include "package/reader.hpp"

#include <archive.h>
#include <archive_entry.h>

#include <algorithm>
#include <memory>

#include "util/strings.hpp"

namespace sf::package {

namespace stdfs = std::filesystem;

namespace {

struct ReadDeleter {
    void operator()(struct archive* a) const { archive_read_free(a); }
};
using ArchivePtr = std::unique_ptr<struct archive, ReadDeleter>;

Unexpected<Error> la_error(const stdfs::path& pkg, struct archive* a, const std::string& what) {
    const char* msg = archive_error_string(a);
    return fail(SourceLoc{pkg.string()}, what + ": " + (msg ? msg : "unreadable archive"),
                "the package file is damaged or not a conda package");
}

// Reads a tar (any filter) from `a`, collecting wanted members.
Result<void> collect(const stdfs::path& pkg, struct archive* a, const std::vector<std::string>& names,
                     std::map<std::string, std::string>& out) {
    archive_entry* e = nullptr;
    for (;;) {
        int rc = archive_read_next_header(a, &e);
        if (rc == ARCHIVE_EOF) return {};
        if (rc < ARCHIVE_WARN) return la_error(pkg, a, "cannot read tar header");
        std::string name = archive_entry_pathname(e) ? archive_entry_pathname(e) : "";
        if (str::starts_with(name, "./")) name = name.substr(2);
        if (std::find(names.begin(), names.end(), name) == names.end()) continue;
        std::string data;
        char buf[65536];
        for (;;) {
            la_ssize_t n = archive_read_data(a, buf, sizeof buf);
            if (n < 0) return la_error(pkg, a, "cannot read " + name);
            if (n == 0) break;
            data.append(buf, static_cast<std::size_t>(n));
        }
        out[name] = std::move(data);
        if (out.size() == names.size()) return {};
    }
}

// Feeds an inner archive from the current member of an outer one.
la_ssize_t inner_read(struct archive*, void* ctx, const void** buf) {
    static thread_local char block[1 << 16];
    auto* outer = static_cast<struct archive*>(ctx);
    *buf = block;
    return archive_read_data(outer, block, sizeof block);
}

}  // namespace

Result<PackageKind> package_kind(const stdfs::path& p) {
    std::string n = p.filename().string();
    if (str::ends_with(n, ".conda")) return PackageKind::conda;
    if (str::ends_with(n, ".tar.bz2")) return PackageKind::tar_bz2;
    return fail(SourceLoc{p.string()}, "not a conda package file name", "expected .conda or .tar.bz2");
}

std::string package_stem(const stdfs::path& p) {
    std::string n = p.filename().string();
    if (str::ends_with(n, ".conda")) return n.substr(0, n.size() - 6);
    if (str::ends_with(n, ".tar.bz2")) return n.substr(0, n.size() - 8);
    return n;
}

Result<std::map<std::string, std::string>> read_info_files(const stdfs::path& pkg,
                                                           const std::vector<std::string>& names) {
    auto kind = package_kind(pkg);
    if (!kind) return unexpected(kind.error());
    std::map<std::string, std::string> out;
    ArchivePtr a(archive_read_new());
    if (*kind == PackageKind::tar_bz2) {
        archive_read_support_filter_bzip2(a.get());
        archive_read_support_format_tar(a.get());
        if (archive_read_open_filename(a.get(), pkg.c_str(), 1 << 16) != ARCHIVE_OK)
            return la_error(pkg, a.get(), "cannot open");
        if (auto r = collect(pkg, a.get(), names, out); !r) return unexpected(r.error());
        return out;
    }
    archive_read_support_format_zip(a.get());
    if (archive_read_open_filename(a.get(), pkg.c_str(), 1 << 16) != ARCHIVE_OK)
        return la_error(pkg, a.get(), "cannot open");
    archive_entry* e = nullptr;
    bool saw_info = false;
    for (;;) {
        int rc = archive_read_next_header(a.get(), &e);
        if (rc == ARCHIVE_EOF) break;
        if (rc < ARCHIVE_WARN) return la_error(pkg, a.get(), "cannot read zip member");
        std::string name = archive_entry_pathname(e) ? archive_entry_pathname(e) : "";
        if (!(str::starts_with(name, "info-") && str::ends_with(name, ".tar.zst"))) continue;
        saw_info = true;
        ArchivePtr inner(archive_read_new());
        archive_read_support_filter_zstd(inner.get());
        archive_read_support_format_tar(inner.get());
        if (archive_read_open(inner.get(), a.get(), nullptr, inner_read, nullptr) != ARCHIVE_OK)
            return la_error(pkg, inner.get(), "cannot open " + name);
        if (auto r = collect(pkg, inner.get(), names, out); !r) return unexpected(r.error());
        break;
    }
    if (!saw_info)
        return fail(SourceLoc{pkg.string()}, "no info-*.tar.zst member", "the file is not a conda v2 package");
    return out;
}

}  // namespace sf::package
