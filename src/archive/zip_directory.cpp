#include "archive/zip_directory.hpp"

#include <unistd.h>

#include <algorithm>
#include <optional>

namespace sf::archive {

namespace {

constexpr std::uint32_t kMax32 = 0xffffffff;
constexpr std::uint16_t kMax16 = 0xffff;
constexpr std::size_t kEocd = 22, kCentral = 46, kLocal = 30, kLocator = 20, kEocd64 = 56;

// Bytes read with pread, bounded by the file: a record is never read (nor
// allocated) past its end.
struct File {
    int fd;
    std::uint64_t size;
    std::optional<std::string> read(std::uint64_t off, std::uint64_t n) const {
        if (off > size || n > size - off) return std::nullopt;
        std::string out(static_cast<std::size_t>(n), '\0');
        std::size_t done = 0;
        while (done < out.size()) {
            ssize_t got = ::pread(fd, out.data() + done, out.size() - done, static_cast<off_t>(off + done));
            if (got <= 0) return std::nullopt;
            done += static_cast<std::size_t>(got);
        }
        return out;
    }
};

// Little-endian fields of a record held in memory; `at` is checked by the caller.
std::uint64_t le(const std::string& s, std::size_t at, int n) {
    std::uint64_t v = 0;
    for (int i = n - 1; i >= 0; --i) v = (v << 8) | static_cast<unsigned char>(s[at + static_cast<std::size_t>(i)]);
    return v;
}

bool sig(const std::string& s, std::size_t at, const char* four) { return s.compare(at, 4, four, 4) == 0; }

struct Eocd {
    std::uint64_t entries = 0, cd_size = 0, cd_offset = 0;
    std::uint64_t cd_end = 0;  // where the directory must end: the (zip64) end record
};

// The zip64 end record a locator just before the end record points to, if any.
Result<void> read_zip64_end(const File& f, std::uint64_t eocd_at, Eocd& e, const std::string& rec) {
    if (eocd_at < kLocator) return {};
    auto loc = f.read(eocd_at - kLocator, kLocator);
    if (!loc || !sig(*loc, 0, "PK\x06\x07")) return {};
    const std::uint64_t at = le(*loc, 8, 8);
    auto z = f.read(at, kEocd64);
    if (!z || !sig(*z, 0, "PK\x06\x06")) return fail("the zip64 end record is not where its locator says");
    if (at + 12 + le(*z, 4, 8) != eocd_at - kLocator) return fail("the zip64 end record's size is wrong");
    if (le(*z, 16, 4) != 0 || le(*z, 20, 4) != 0 || le(*loc, 4, 4) != 0 || le(*loc, 16, 4) > 1)
        return fail("a multi-disk zip (not supported)");
    if (le(*z, 24, 8) != le(*z, 32, 8)) return fail("the zip64 end record's two entry counts differ");
    // The 32-bit fields either say "see zip64" or agree with it.
    auto agree = [&](std::uint64_t narrow, std::uint64_t max, std::uint64_t wide) {
        return narrow == max || narrow == wide;
    };
    e = {le(*z, 32, 8), le(*z, 40, 8), le(*z, 48, 8), at};
    if (!agree(le(rec, 10, 2), kMax16, e.entries) || !agree(le(rec, 12, 4), kMax32, e.cd_size) ||
        !agree(le(rec, 16, 4), kMax32, e.cd_offset))
        return fail("the end record and the zip64 end record disagree");
    return {};
}

// The end of central directory record: the last 22 bytes, or followed by a
// comment that reaches exactly the end of the file.
Result<Eocd> read_end(const File& f) {
    const std::uint64_t tail_n = std::min<std::uint64_t>(f.size, kEocd + kMax16);
    auto tail = f.read(f.size - tail_n, tail_n);
    if (!tail) return fail("cannot read the end of the file");
    for (std::size_t i = tail->size() >= kEocd ? tail->size() - kEocd + 1 : 0; i-- > 0;) {
        if (!sig(*tail, i, "PK\x05\x06") || i + kEocd + le(*tail, i + 20, 2) != tail->size()) continue;
        const std::string rec = tail->substr(i, kEocd);
        if (le(rec, 4, 2) != 0 || le(rec, 6, 2) != 0) return fail("a multi-disk zip (not supported)");
        if (le(rec, 8, 2) != le(rec, 10, 2)) return fail("the end record's two entry counts differ");
        const std::uint64_t at = f.size - tail_n + i;
        Eocd e{le(rec, 10, 2), le(rec, 12, 4), le(rec, 16, 4), at};
        if (auto ok = read_zip64_end(f, at, e, rec); !ok) return unexpected(ok.error());
        if (e.cd_offset > e.cd_end || e.cd_size != e.cd_end - e.cd_offset)
            return fail("the central directory does not end where the end record begins (bytes before or "
                        "inside the zip, or a wrong directory size or offset)");
        if (e.entries > e.cd_size / kCentral)
            return fail("the end record claims " + std::to_string(e.entries) + " entries, more than its " +
                        std::to_string(e.cd_size) + "-byte central directory can hold");
        return e;
    }
    return fail("no end of central directory record (not a zip file, or truncated)");
}

// The zip64 extended information field of `extra` (id 0x0001) replaces the
// fields that hold 0xffffffff, in this order. Malformed extra fields are an
// error, as Python's zipfile makes them.
const char* apply_zip64(const std::string& extra, std::uint64_t& usize, std::uint64_t& csize,
                        std::uint64_t* offset) {
    for (std::size_t at = 0; at < extra.size();) {
        if (at + 4 > extra.size()) return "a corrupt extra field";
        const std::uint64_t id = le(extra, at, 2), n = le(extra, at + 2, 2);
        if (at + 4 + n > extra.size()) return "a corrupt extra field";
        if (id == 1) {
            std::size_t p = at + 4, end = p + n;
            for (std::uint64_t* v : {&usize, &csize, offset}) {
                if (!v || *v != kMax32) continue;
                if (p + 8 > end) return "a zip64 extra field too short for its sizes";
                *v = le(extra, p, 8);
                p += 8;
            }
        }
        at += 4 + n;
    }
    return nullptr;
}

Unexpected<Error> member_fail(const std::string& name, const std::string& why) {
    return fail("member '" + shown_name(name) + "': " + why);
}

// One central directory entry at `at` of `cd`; `at` moves past it.
Result<ZipMember> parse_central(const std::string& cd, std::size_t& at) {
    if (at + kCentral > cd.size() || !sig(cd, at, "PK\x01\x02"))
        return fail("the central directory holds fewer entries than its end record claims");
    const std::size_t name_n = le(cd, at + 28, 2), extra_n = le(cd, at + 30, 2), comment_n = le(cd, at + 32, 2);
    if (at + kCentral + name_n + extra_n + comment_n > cd.size()) return fail("a central directory entry is truncated");
    ZipMember m;
    m.flags = static_cast<std::uint16_t>(le(cd, at + 8, 2));
    m.method = static_cast<std::uint16_t>(le(cd, at + 10, 2));
    m.crc = static_cast<std::uint32_t>(le(cd, at + 16, 4));
    m.csize = le(cd, at + 20, 4);
    m.usize = le(cd, at + 24, 4);
    m.local_offset = le(cd, at + 42, 4);
    m.name = cd.substr(at + kCentral, name_n);
    if (le(cd, at + 34, 2) != 0 && le(cd, at + 34, 2) != kMax16) return fail("a multi-disk zip (not supported)");
    if (auto why = apply_zip64(cd.substr(at + kCentral + name_n, extra_n), m.usize, m.csize, &m.local_offset))
        return member_fail(m.name, why);
    if (m.flags & 0x41) return member_fail(m.name, "encrypted (not supported)");
    if (m.method != 0 && m.method != 8 && m.method != 12 && m.method != 14)
        return member_fail(m.name, "compression method " + std::to_string(m.method) + " (not supported)");
    if (m.method == 0 && m.csize != m.usize) return member_fail(m.name, "stored, yet its two sizes differ");
    at += kCentral + name_n + extra_n + comment_n;
    return m;
}

std::string mismatch(const char* what, std::uint64_t local, std::uint64_t central, const char* where = "local header") {
    return std::string("its ") + where + " says " + what + " " + std::to_string(local) + ", the central directory " +
           std::to_string(central);
}

// The data descriptor after a member's data (flag bit 3): an optional
// signature, the CRC-32 and both sizes (8 bytes each in zip64).
Result<void> check_descriptor(const File& f, ZipMember& m, std::uint64_t cd_offset, bool zip64) {
    const std::size_t w = zip64 ? 8 : 4;
    auto d = f.read(m.end, std::min<std::uint64_t>(cd_offset - m.end, 4 + 4 + 2 * w));
    const std::size_t at = d && d->size() >= 4 && sig(*d, 0, "PK\x07\x08") ? 4 : 0;
    if (!d || at + 4 + 2 * w > d->size()) return member_fail(m.name, "its data descriptor runs into the central directory");
    if (le(*d, at, 4) != m.crc) return member_fail(m.name, mismatch("CRC-32", le(*d, at, 4), m.crc, "data descriptor"));
    if (le(*d, at + 4, static_cast<int>(w)) != m.csize || le(*d, at + 4 + w, static_cast<int>(w)) != m.usize)
        return member_fail(m.name, "its data descriptor's sizes differ from the central directory's");
    m.end += at + 4 + 2 * w;
    return {};
}

// The member's local header agrees with its central directory entry, and its
// data lies before the central directory.
Result<void> check_local(const File& f, ZipMember& m, std::uint64_t cd_offset) {
    auto h = m.local_offset <= cd_offset && kLocal <= cd_offset - m.local_offset ? f.read(m.local_offset, kLocal)
                                                                               : std::nullopt;
    if (!h || !sig(*h, 0, "PK\x03\x04"))
        return member_fail(m.name, "no local header at offset " + std::to_string(m.local_offset));
    const std::uint64_t name_n = le(*h, 26, 2), extra_n = le(*h, 28, 2), data_at = m.local_offset + kLocal + name_n + extra_n;
    auto var = f.read(m.local_offset + kLocal, name_n + extra_n);
    if (!var || data_at > cd_offset) return member_fail(m.name, "its local header runs into the central directory");
    if (var->compare(0, name_n, m.name) != 0)
        return member_fail(m.name, "its local header names '" + shown_name(var->substr(0, name_n)) + "'");
    const std::uint64_t flags = le(*h, 6, 2), method = le(*h, 8, 2), crc = le(*h, 14, 4);
    std::uint64_t csize = le(*h, 18, 4), usize = le(*h, 22, 4);
    const bool local64 = csize == kMax32 || usize == kMax32;
    if (auto why = apply_zip64(var->substr(name_n), usize, csize, nullptr)) return member_fail(m.name, why);
    if (method != m.method) return member_fail(m.name, mismatch("compression method", method, m.method));
    if ((flags & 8) != (m.flags & 8)) return member_fail(m.name, "its local header and central directory disagree on a data descriptor");
    // With a data descriptor the local fields may be zero; any other value must agree.
    const bool dd = flags & 8;
    if (!(dd && crc == 0) && crc != m.crc) return member_fail(m.name, mismatch("CRC-32", crc, m.crc));
    if (!(dd && csize == 0) && csize != m.csize) return member_fail(m.name, mismatch("compressed size", csize, m.csize));
    if (!(dd && usize == 0) && usize != m.usize) return member_fail(m.name, mismatch("size", usize, m.usize));
    if (m.csize > cd_offset - data_at) return member_fail(m.name, "its data runs into the central directory");
    m.end = data_at + m.csize;
    if (dd) return check_descriptor(f, m, cd_offset, local64 || m.csize >= kMax32 || m.usize >= kMax32);
    return {};
}

}  // namespace

std::string shown_name(const std::string& name) {
    static const char* const hex = "0123456789abcdef";
    std::string out;
    for (char c : name) {
        const auto u = static_cast<unsigned char>(c);
        if (u < 0x20 || u == 0x7f) out += std::string("\\x") + hex[u >> 4] + hex[u & 15];
        else out += c;
    }
    return out;
}

Result<std::vector<ZipMember>> read_zip_directory(int fd, std::uint64_t size) {
    const File f{fd, size};
    auto e = read_end(f);
    if (!e) return unexpected(e.error());
    auto cd = f.read(e->cd_offset, e->cd_size);  // inside the file: read_end checked
    if (!cd) return fail("cannot read the central directory");
    std::vector<ZipMember> out;
    out.reserve(static_cast<std::size_t>(e->entries));
    std::size_t at = 0;
    for (std::uint64_t i = 0; i < e->entries; ++i) {
        auto m = parse_central(*cd, at);
        if (!m) return unexpected(m.error());
        if (auto ok = check_local(f, *m, e->cd_offset); !ok) return unexpected(ok.error());
        out.push_back(std::move(*m));
    }
    if (at != cd->size())
        return fail("the central directory holds more than the " + std::to_string(e->entries) +
                    " entries its end record claims");
    // Members apart: overlapping data is a zip bomb (one deflate stream many times).
    std::vector<const ZipMember*> by_offset;
    for (const auto& m : out) by_offset.push_back(&m);
    std::sort(by_offset.begin(), by_offset.end(),
              [](const ZipMember* a, const ZipMember* b) { return a->local_offset < b->local_offset; });
    for (std::size_t i = 1; i < by_offset.size(); ++i)
        if (by_offset[i]->local_offset < by_offset[i - 1]->end)
            return member_fail(by_offset[i]->name, "overlaps member '" + shown_name(by_offset[i - 1]->name) + "'");
    return out;
}

}  // namespace sf::archive
