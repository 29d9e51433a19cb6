// A hand-written zip writer (APPNOTE 6.3): libarchive's zip writer cannot
// promise STORED members with sizes in the local header when streaming,
// which strict readers of .conda files expect. Deflate (for wheels) is zlib's
// raw deflate; sizes and CRC are patched into the local header afterwards,
// as for STORED. zip64 is used only when needed.
#include <algorithm>
#include <array>
#include <ctime>

#include <zlib.h>

#include "archive/write.hpp"

namespace sf::archive {

namespace {

constexpr std::uint32_t kMax32 = 0xFFFFFFFFu;

// CRC-32 (IEEE 802.3), slice-by-8 tables built once.
struct CrcTables {
    std::array<std::array<std::uint32_t, 256>, 8> t{};
    CrcTables() {
        for (std::uint32_t i = 0; i < 256; ++i) {
            std::uint32_t c = i;
            for (int k = 0; k < 8; ++k) c = (c & 1) ? 0xEDB88320u ^ (c >> 1) : c >> 1;
            t[0][i] = c;
        }
        for (std::uint32_t i = 0; i < 256; ++i)
            for (int s = 1; s < 8; ++s) t[s][i] = (t[s - 1][i] >> 8) ^ t[0][t[s - 1][i] & 0xFF];
    }
};
const CrcTables& tables() {
    static const CrcTables t;
    return t;
}

struct Bytes {
    std::string b;
    void u16(std::uint16_t v) {
        b.push_back(static_cast<char>(v & 0xFF));
        b.push_back(static_cast<char>(v >> 8));
    }
    void u32(std::uint32_t v) {
        u16(static_cast<std::uint16_t>(v & 0xFFFF));
        u16(static_cast<std::uint16_t>(v >> 16));
    }
    void u64(std::uint64_t v) {
        u32(static_cast<std::uint32_t>(v & kMax32));
        u32(static_cast<std::uint32_t>(v >> 32));
    }
    void str(const std::string& s) { b += s; }
};

bool is_ascii(const std::string& s) {
    for (unsigned char c : s)
        if (c >= 0x80) return false;
    return true;
}

// Writes through to the output file while computing CRC-32 and the size.
class CrcSink : public ByteSink {
public:
    explicit CrcSink(OutputFile& out) : out_(out) {}
    Result<void> write(const void* d, std::size_t n) override {
        crc = crc32(crc, d, n);
        size += n;
        return out_.write(d, n);
    }
    Result<void> finish() override { return {}; }  // the zip continues after this member
    std::uint32_t crc = 0;
    std::uint64_t size = 0;

private:
    OutputFile& out_;
};

// Raw deflate (no zlib header, as zip wants) of what is written into it,
// CRC-32 and size taken of the input, compressed bytes into the output file
// (and into `copy`, when given).
class DeflateSink : public ByteSink {
public:
    DeflateSink(OutputFile& out, ByteSink* copy, int level) : out_(out), copy_(copy) {
        ok_ = deflateInit2(&z_, level, Z_DEFLATED, -15, 8, Z_DEFAULT_STRATEGY) == Z_OK;
    }
    ~DeflateSink() override { deflateEnd(&z_); }
    Result<void> write(const void* d, std::size_t n) override {
        crc = crc32(crc, d, n);
        size += n;
        return pump(d, n, Z_NO_FLUSH);
    }
    Result<void> finish() override { return pump(nullptr, 0, Z_FINISH); }
    std::uint32_t crc = 0;
    std::uint64_t size = 0, csize = 0;

private:
    Result<void> pump(const void* d, std::size_t n, int flush) {
        if (!ok_) return fail_runtime(SourceLoc{out_.final_path().string()}, "zlib: cannot start deflate");
        z_.next_in = static_cast<Bytef*>(const_cast<void*>(d));
        z_.avail_in = static_cast<uInt>(n);  // callers write in chunks far below 4 GiB
        unsigned char buf[1 << 16];
        for (;;) {
            z_.next_out = buf;
            z_.avail_out = sizeof buf;
            const int rc = deflate(&z_, flush);
            if (rc == Z_STREAM_ERROR) return fail_runtime(SourceLoc{out_.final_path().string()}, "zlib: deflate failed");
            const std::size_t got = sizeof buf - z_.avail_out;
            csize += got;
            if (auto r = out_.write(buf, got); !r) return r;
            if (copy_)
                if (auto r = copy_->write(buf, got); !r) return r;
            if (flush == Z_FINISH ? rc == Z_STREAM_END : (z_.avail_in == 0 && z_.avail_out != 0)) return {};
        }
    }
    OutputFile& out_;
    ByteSink* copy_;
    z_stream z_{};
    bool ok_ = false;
};

}  // namespace

std::uint32_t crc32(std::uint32_t crc, const void* data, std::size_t size) {
    const auto& t = tables().t;
    const auto* p = static_cast<const unsigned char*>(data);
    crc = ~crc;
    while (size >= 8) {
        std::uint32_t a = crc ^ (static_cast<std::uint32_t>(p[0]) | static_cast<std::uint32_t>(p[1]) << 8 |
                                 static_cast<std::uint32_t>(p[2]) << 16 | static_cast<std::uint32_t>(p[3]) << 24);
        crc = t[7][a & 0xFF] ^ t[6][(a >> 8) & 0xFF] ^ t[5][(a >> 16) & 0xFF] ^ t[4][a >> 24] ^ t[3][p[4]] ^
              t[2][p[5]] ^ t[1][p[6]] ^ t[0][p[7]];
        p += 8;
        size -= 8;
    }
    while (size--) crc = t[0][(crc ^ *p++) & 0xFF] ^ (crc >> 8);
    return ~crc;
}

ZipWriter::ZipWriter(OutputFile& out, std::int64_t mtime, int deflate_level)
    : out_(out), level_(std::clamp(deflate_level, 1, 9)) {
    // DOS date/time in UTC; DOS dates start in 1980.
    std::time_t t = static_cast<std::time_t>(std::max<std::int64_t>(mtime, 315532800));
    std::tm tm{};
    gmtime_r(&t, &tm);
    dos_time_ = static_cast<std::uint16_t>((tm.tm_hour << 11) | (tm.tm_min << 5) | (tm.tm_sec / 2));
    dos_date_ = static_cast<std::uint16_t>(((tm.tm_year - 80) << 9) | ((tm.tm_mon + 1) << 5) | tm.tm_mday);
}

Result<void> ZipWriter::write_local_header(const Member& m, bool zip64) {
    Bytes h;
    h.u32(0x04034b50);
    h.u16(zip64 ? 45 : 20);                       // version needed
    h.u16(is_ascii(m.name) ? 0 : (1u << 11));     // flags: UTF-8 names
    h.u16(m.method == ZipMethod::deflate ? 8 : 0);  // method
    h.u16(dos_time_);
    h.u16(dos_date_);
    h.u32(m.crc);
    h.u32(zip64 ? kMax32 : static_cast<std::uint32_t>(m.csize));
    h.u32(zip64 ? kMax32 : static_cast<std::uint32_t>(m.size));
    h.u16(static_cast<std::uint16_t>(m.name.size()));
    h.u16(zip64 ? 20 : 0);
    h.str(m.name);
    if (zip64) {
        h.u16(0x0001);
        h.u16(16);
        h.u64(m.size);
        h.u64(m.csize);
    }
    return out_.write(h.b.data(), h.b.size());
}

// The CRC and sizes, known once the data is written.
Result<void> ZipWriter::patch_local_header(const Member& m, bool zip64) {
    Bytes p;
    p.u32(m.crc);
    if (auto r = out_.patch(m.offset + 14, p.b.data(), p.b.size()); !r) return r;
    Bytes s;
    if (zip64) {
        s.u64(m.size);
        s.u64(m.csize);
        return out_.patch(m.offset + 30 + m.name.size() + 4, s.b.data(), s.b.size());
    }
    s.u32(static_cast<std::uint32_t>(m.csize));
    s.u32(static_cast<std::uint32_t>(m.size));
    return out_.patch(m.offset + 18, s.b.data(), s.b.size());
}

ZipMemberInfo ZipWriter::last() const {
    if (members_.empty()) return {};
    const Member& m = members_.back();
    return ZipMemberInfo{m.method, m.crc, m.size, m.csize};
}

Result<void> ZipWriter::add(const std::string& name, std::string_view data, unsigned mode) {
    Member m;
    m.name = name;
    m.mode = mode & 07777;
    m.offset = out_.position();
    m.size = m.csize = data.size();
    m.crc = crc32(0, data.data(), data.size());
    bool zip64 = m.size >= kMax32;
    if (auto r = write_local_header(m, zip64); !r) return r;
    if (auto r = out_.write(data.data(), data.size()); !r) return r;
    members_.push_back(std::move(m));
    return {};
}

Result<void> ZipWriter::add_streamed(const std::string& name, std::uint64_t max_size,
                                     const std::function<Result<void>(ByteSink&)>& produce, unsigned mode,
                                     ZipMethod method, ByteSink* compressed_copy) {
    Member m;
    m.name = name;
    m.mode = mode & 07777;
    m.method = method;
    m.offset = out_.position();
    // Deflate may grow incompressible data a little: zip64 from its bound.
    const bool zip64 = (method == ZipMethod::deflate ? compressBound(max_size) : max_size) >= kMax32;
    if (auto r = write_local_header(m, zip64); !r) return r;  // crc/sizes patched below
    if (method == ZipMethod::deflate) {
        DeflateSink sink(out_, compressed_copy, level_);
        if (auto r = produce(sink); !r) return r;
        if (auto r = sink.finish(); !r) return r;
        m.crc = sink.crc, m.size = sink.size, m.csize = sink.csize;
    } else {
        CrcSink sink(out_);
        if (auto r = produce(sink); !r) return r;
        m.crc = sink.crc, m.size = m.csize = sink.size;
    }
    if (!zip64 && (m.size >= kMax32 || m.csize >= kMax32))
        return fail("zip member " + name + " is larger than its declared bound", "this is a bug in splitforge");
    if (auto r = patch_local_header(m, zip64); !r) return r;
    members_.push_back(std::move(m));
    return {};
}

Result<void> ZipWriter::add_raw(const std::string& name, const ZipMemberInfo& info,
                                const std::function<Result<void>(ByteSink&)>& produce, unsigned mode) {
    Member m;
    m.name = name;
    m.mode = mode & 07777;
    m.method = info.method;
    m.crc = info.crc, m.size = info.size, m.csize = info.csize;
    m.offset = out_.position();
    const bool zip64 = m.size >= kMax32 || m.csize >= kMax32;
    if (auto r = write_local_header(m, zip64); !r) return r;
    const std::uint64_t start = out_.position();
    if (auto r = produce(out_); !r) return r;
    if (out_.position() - start != m.csize)
        return fail("zip member " + name + ": " + std::to_string(out_.position() - start) + " bytes written, " +
                        std::to_string(m.csize) + " declared",
                    "this is a bug in splitforge");
    members_.push_back(std::move(m));
    return {};
}

Result<void> ZipWriter::finish() {
    const std::uint64_t cd_start = out_.position();
    Bytes cd;
    bool any64 = false;
    for (const auto& m : members_) {
        const bool big_size = m.size >= kMax32 || m.csize >= kMax32, big_off = m.offset >= kMax32;
        const bool z64 = big_size || big_off;
        any64 = any64 || z64;
        Bytes extra;
        if (z64) {
            extra.u16(0x0001);
            extra.u16(static_cast<std::uint16_t>((big_size ? 16 : 0) + (big_off ? 8 : 0)));
            if (big_size) {
                extra.u64(m.size);
                extra.u64(m.csize);
            }
            if (big_off) extra.u64(m.offset);
        }
        cd.u32(0x02014b50);
        cd.u16(static_cast<std::uint16_t>((3 << 8) | (z64 ? 45 : 20)));  // made by: Unix
        cd.u16(z64 ? 45 : 20);
        cd.u16(is_ascii(m.name) ? 0 : (1u << 11));
        cd.u16(m.method == ZipMethod::deflate ? 8 : 0);
        cd.u16(dos_time_);
        cd.u16(dos_date_);
        cd.u32(m.crc);
        cd.u32(big_size ? kMax32 : static_cast<std::uint32_t>(m.csize));
        cd.u32(big_size ? kMax32 : static_cast<std::uint32_t>(m.size));
        cd.u16(static_cast<std::uint16_t>(m.name.size()));
        cd.u16(static_cast<std::uint16_t>(extra.b.size()));
        cd.u16(0);                     // comment
        cd.u16(0);                     // disk
        cd.u16(0);                     // internal attributes
        cd.u32((0100000u | m.mode) << 16);  // external: a regular file and its permission bits
        cd.u32(big_off ? kMax32 : static_cast<std::uint32_t>(m.offset));
        cd.str(m.name);
        cd.str(extra.b);
    }
    const std::uint64_t cd_size = cd.b.size();
    const std::uint64_t count = members_.size();
    any64 = any64 || cd_start >= kMax32 || cd_size >= kMax32 || count >= 0xFFFF;
    Bytes end;
    if (any64) {
        const std::uint64_t z64_end = cd_start + cd_size;
        end.u32(0x06064b50);
        end.u64(44);
        end.u16((3 << 8) | 45);
        end.u16(45);
        end.u32(0);
        end.u32(0);
        end.u64(count);
        end.u64(count);
        end.u64(cd_size);
        end.u64(cd_start);
        end.u32(0x07064b50);
        end.u32(0);
        end.u64(z64_end);
        end.u32(1);
    }
    end.u32(0x06054b50);
    end.u16(0);
    end.u16(0);
    end.u16(count >= 0xFFFF ? 0xFFFF : static_cast<std::uint16_t>(count));
    end.u16(count >= 0xFFFF ? 0xFFFF : static_cast<std::uint16_t>(count));
    end.u32(cd_size >= kMax32 ? kMax32 : static_cast<std::uint32_t>(cd_size));
    end.u32(cd_start >= kMax32 ? kMax32 : static_cast<std::uint32_t>(cd_start));
    end.u16(0);
    if (auto r = out_.write(cd.b.data(), cd.b.size()); !r) return r;
    return out_.write(end.b.data(), end.b.size());
}

}  // namespace sf::archive
