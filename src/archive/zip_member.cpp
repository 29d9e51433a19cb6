// One member of a zip read into memory (zip_read.hpp): the directory checked
// as for extraction, then the member's data inflated by zlib.
#include <unistd.h>
#include <zlib.h>

#include <cstring>

#include "archive/zip_directory.hpp"
#include "archive/zip_read.hpp"
#include "core/rewrap.hpp"
#include "util/fs.hpp"

namespace sf::archive {

namespace {

bool pread_all(int fd, std::string& out, std::uint64_t off) {
    std::size_t done = 0;
    while (done < out.size()) {
        ssize_t got = ::pread(fd, out.data() + done, out.size() - done, static_cast<off_t>(off + done));
        if (got <= 0) return false;
        done += static_cast<std::size_t>(got);
    }
    return true;
}

// Raw deflate (a zip's method 8) of `in` into exactly `usize` bytes.
Result<std::string> inflate_raw(const std::string& in, std::uint64_t usize) {
    std::string out(static_cast<std::size_t>(usize), '\0');
    z_stream z{};
    if (inflateInit2(&z, -MAX_WBITS) != Z_OK) return fail_runtime({}, "zlib: cannot start inflating");
    z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(in.data()));
    z.avail_in = static_cast<uInt>(in.size());
    z.next_out = reinterpret_cast<Bytef*>(out.data());
    z.avail_out = static_cast<uInt>(out.size());
    int rc = inflate(&z, Z_FINISH);
    const bool whole = rc == Z_STREAM_END && z.total_out == usize;
    inflateEnd(&z);
    if (!whole) return fail("its deflated data is corrupt or not the size the directory says");
    return out;
}

}  // namespace

Result<std::string> read_zip_member(const std::filesystem::path& zip, bool (*pick)(const std::string&),
                                    std::uint64_t max_bytes, const std::string& what) {
    auto in = fs::InputFile::open(zip);
    if (!in) return unexpected(in.error());
    auto members = read_zip_directory(in->fd(), in->size());
    if (!members) return rewrap(members.error(), {}, zip.string() + ": not a valid zip: ");
    const ZipMember* m = nullptr;
    for (const auto& e : *members) {
        if (!pick(e.name)) continue;
        if (m) return fail(SourceLoc{zip.string()}, "holds two " + what + " files ('" + shown_name(m->name) + "', '" + shown_name(e.name) + "')");
        m = &e;
    }
    if (!m) return fail(SourceLoc{zip.string()}, "holds no " + what);
    const std::string name = shown_name(m->name);
    if (m->usize > max_bytes || m->csize > max_bytes)
        return fail(SourceLoc{zip.string()}, name + ": larger than " + std::to_string(max_bytes) + " bytes");
    std::string local(30, '\0');
    if (!pread_all(in->fd(), local, m->local_offset)) return fail(SourceLoc{zip.string()}, name + ": cannot read its header");
    auto le16 = [&](std::size_t at) { return static_cast<unsigned char>(local[at]) | static_cast<unsigned char>(local[at + 1]) << 8; };
    std::string data(static_cast<std::size_t>(m->csize), '\0');
    if (!pread_all(in->fd(), data, m->local_offset + 30 + le16(26) + le16(28)))
        return fail(SourceLoc{zip.string()}, name + ": cut short");
    if (m->method == 8) {
        auto out = inflate_raw(data, m->usize);
        if (!out) return rewrap(out.error(), {}, zip.string() + ": " + name + ": ");
        data = std::move(*out);
    } else if (m->method != 0) {
        return fail(SourceLoc{zip.string()}, name + ": compression method " + std::to_string(m->method) + " (only stored and deflated are read)");
    }
    const auto crc = ::crc32(0, reinterpret_cast<const Bytef*>(data.data()), static_cast<uInt>(data.size()));
    if (data.size() != m->usize || crc != m->crc)
        return fail(SourceLoc{zip.string()}, name + ": bad CRC-32 (the data is corrupt or was altered)");
    return data;
}

}  // namespace sf::archive
