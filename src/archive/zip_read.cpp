#include "archive/zip_read.hpp"

#include <archive.h>
#include <archive_entry.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <memory>
#include <unordered_map>
#include <zlib.h>

#include "archive/extract.hpp"
#include "archive/zip_directory.hpp"
#include "core/rewrap.hpp"
#include "util/fs.hpp"

namespace sf::archive {

namespace stdfs = std::filesystem;

namespace {

// The name libarchive gives a member: it turns the backslashes of a zip made
// on DOS or Windows into slashes.
std::string lookup_key(std::string name) {
    std::replace(name.begin(), name.end(), '\\', '/');
    return name;
}

// What libarchive extracted of member `m` is what the central directory
// says: its size and CRC-32 (a symlink's: of its target text).
Result<void> check_data(const ZipMember& m, const Entry& entry, const DataSum& sum) {
    DataSum got = sum;
    if (entry.type == EntryType::symlink) {
        const auto* t = reinterpret_cast<const Bytef*>(entry.link_target.data());
        got = {static_cast<std::uint32_t>(::crc32(0, t, static_cast<uInt>(entry.link_target.size()))),
               entry.link_target.size(), true};
    } else if (entry.type != EntryType::file) {
        return {};
    }
    if (got.size != m.usize)
        return fail("member '" + shown_name(m.name) + "': " + std::to_string(got.size) + " bytes extracted, the central directory says " +
                    std::to_string(m.usize));
    if (!got.in_order || got.crc32 != m.crc)
        return fail("member '" + shown_name(m.name) + "': bad CRC-32 (the data is corrupt or was altered)");
    return {};
}

}  // namespace

Result<void> extract_zip(const stdfs::path& zip, const stdfs::path& dest) {
    std::error_code ec;
    if (stdfs::exists(stdfs::symlink_status(dest, ec)))
        return fail(dest.string() + ": already exists; not extracting " + zip.filename().string() + " over it");
    auto in = fs::InputFile::open(zip);
    if (!in) return Unexpected<Error>{in.error()};
    auto members = read_zip_directory(in->fd(), in->size());
    if (!members) return rewrap(members.error(), {}, zip.string() + ": not a valid zip: ");
    std::unordered_map<std::string, std::vector<std::size_t>> by_name;  // a name twice: TreeWriter refuses it
    for (std::size_t i = 0; i < members->size(); ++i) by_name[lookup_key((*members)[i].name)].push_back(i);
    std::vector<bool> extracted(members->size());
    stdfs::path parent = dest.parent_path().empty() ? stdfs::path(".") : dest.parent_path();
    fs::TempDir tmp("zip-extract", parent);

    std::unique_ptr<struct archive, int (*)(struct archive*)> a(archive_read_new(), archive_read_free);
    archive_read_support_format_zip_seekable(a.get());
    auto err = [&](const std::string& why) {
        const char* s = archive_error_string(a.get());
        return fail(zip.string() + ": " + why + (s ? std::string(": ") + s : ""));
    };
    if (archive_read_open_fd(a.get(), in->fd(), 1 << 18) != ARCHIVE_OK) return err("not a readable zip");
    TreeWriter tree(tmp.path(), {extraction_limit(in->size()), "archive", OwnerAccess::as_stored, DataCrc::crc32});
    for (;;) {
        struct archive_entry* e = nullptr;
        int rc = archive_read_next_header(a.get(), &e);
        if (rc == ARCHIVE_EOF) break;
        if (rc < ARCHIVE_WARN) return err("truncated or corrupt zip");
        const char* raw = archive_entry_pathname(e);
        auto it = by_name.find(lookup_key(raw ? raw : ""));
        if (it == by_name.end() || it->second.empty())
            return fail(zip.string() + ": member '" + shown_name(raw ? raw : "") + "' is not in the central directory");
        const std::size_t index = it->second.front();
        if (it->second.size() > 1) it->second.erase(it->second.begin());
        extracted[index] = true;
        Entry entry = entry_of(e);
        if (entry.type == EntryType::file && (entry.mode & 0777) == 0) entry.mode = 0644;  // zips without unix modes
        if (auto ok = tree.add(a.get(), entry); !ok) return rewrap(ok.error(), {}, zip.string() + ": ");
        if (auto ok = check_data((*members)[index], entry, tree.last_data()); !ok)
            return rewrap(ok.error(), {}, zip.string() + ": ");
    }
    for (std::size_t i = 0; i < extracted.size(); ++i)
        if (!extracted[i]) return fail(zip.string() + ": member '" + shown_name((*members)[i].name) + "' was not extracted");
    tree.finish();
    if (::rename(tmp.path().c_str(), dest.c_str()) != 0)
        return fail_runtime({}, dest.string() + ": cannot move the extracted archive into place: " + std::strerror(errno));
    tmp.release();
    return {};
}

}  // namespace sf::archive
