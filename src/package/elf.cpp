#include "package/elf.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cstring>
#include <optional>
#include <vector>

#include "package/elf_file.hpp"
#include "util/hash.hpp"

namespace sf::package {

using elf_detail::File;
using elf_detail::Decoder;
using elf_detail::Headers;
using elf_detail::Section;
using elf_detail::read_headers;
using elf_detail::read_section;

namespace {

constexpr std::uint32_t kShtSymtab = 2, kShtDynamic = 6, kShtNote = 7, kNtGnuBuildId = 3, kSttFile = 4;
constexpr std::int64_t kDtNull = 0, kDtNeeded = 1, kDtSoname = 14, kDtRpath = 15, kDtRunpath = 29;

}  // namespace

Result<ElfInfo> read_elf(const std::filesystem::path& p) {
    ElfInfo info;
    File f(p);
    if (!f.ok()) return fail(SourceLoc{p.string()}, std::string("cannot open: ") + std::strerror(errno));
    auto headers = read_headers(f, p);
    if (!headers) return unexpected(headers.error());
    if (!*headers) return info;
    info.is_elf = true;
    const Headers& h = **headers;
    const Decoder& d = h.d;
    const std::size_t shnum = h.shnum;
    auto bad = [&](const char* what) {
        return fail(SourceLoc{p.string()}, std::string("malformed ELF file: ") + what);
    };
    auto section = [&](std::size_t i) { return h.section(i); };
    for (std::size_t i = 0; i < shnum; ++i) {
        Section dyn = section(i);
        if (dyn.type != kShtDynamic) continue;
        info.is_dynamic = true;
        if (dyn.link >= shnum) return bad("bad .dynamic string table link");
        Section str = section(dyn.link);
        if (!str.in(f)) return bad(".dynamic string table outside the file");
        const std::size_t ent = d.is64 ? 16 : 8;
        std::vector<unsigned char> data;
        if (!read_section(f, dyn, data)) return bad("truncated .dynamic");
        std::uint64_t rpath_off = 0, runpath_off = 0, soname_off = 0;
        bool has_rpath = false, has_runpath = false, has_soname = false;
        std::vector<std::uint64_t> needed_offs;
        for (std::size_t o = 0; o + ent <= data.size(); o += ent) {
            auto tag = static_cast<std::int64_t>(d.get(data.data() + o, ent / 2));
            std::uint64_t val = d.get(data.data() + o + ent / 2, ent / 2);
            if (tag == kDtNull) break;
            if (tag == kDtRpath) has_rpath = true, rpath_off = val;
            if (tag == kDtRunpath) has_runpath = true, runpath_off = val;
            if (tag == kDtSoname) has_soname = true, soname_off = val;
            if (tag == kDtNeeded) needed_offs.push_back(val);
        }
        // A string of the .dynamic string table; nullopt: outside it.
        auto str_at = [&](std::uint64_t off) -> std::optional<std::string> {
            if (off >= str.size) return std::nullopt;
            std::string s;
            char buf[256];
            for (std::uint64_t k = off; k < str.size;) {
                std::size_t n = static_cast<std::size_t>(std::min<std::uint64_t>(sizeof buf, str.size - k));
                if (!f.read(str.offset + k, buf, n)) return std::nullopt;
                const void* nul = std::memchr(buf, '\0', n);
                std::size_t take = nul ? static_cast<std::size_t>(static_cast<const char*>(nul) - buf) : n;
                s.append(buf, take);
                if (nul) break;
                k += n;
            }
            return s;
        };
        for (std::uint64_t off : needed_offs) {
            auto s = str_at(off);
            if (!s) return bad("DT_NEEDED outside the string table");
            info.needed.push_back(std::move(*s));
        }
        if (has_soname) {
            auto s = str_at(soname_off);
            if (!s) return bad("DT_SONAME outside the string table");
            info.soname = std::move(*s);
        }
        if (!has_rpath && !has_runpath) return info;
        info.kind = has_runpath ? RpathKind::runpath : RpathKind::rpath;
        auto s = str_at(has_runpath ? runpath_off : rpath_off);
        if (!s) return bad("rpath offset outside the string table");
        info.rpath = std::move(*s);
        return info;
    }
    return info;
}

Result<std::optional<BuildIdNote>> find_build_id(const std::filesystem::path& p) {
    File f(p);
    if (!f.ok()) return fail(SourceLoc{p.string()}, std::string("cannot open: ") + std::strerror(errno));
    auto headers = read_headers(f, p);
    if (!headers) return unexpected(headers.error());
    if (!*headers) return std::optional<BuildIdNote>();
    const Headers& h = **headers;
    for (std::size_t i = 0; i < h.shnum; ++i) {
        Section n = h.section(i);
        if (n.type != kShtNote || n.size == 0) continue;
        std::vector<unsigned char> data;
        if (!read_section(f, n, data))
            return fail(SourceLoc{p.string()}, "malformed ELF file: truncated note section");
        const std::uint64_t align = n.align == 8 ? 8 : 4;
        auto up = [align](std::uint64_t v) { return (v + align - 1) / align * align; };
        for (std::uint64_t o = 0; o + 12 <= data.size();) {
            std::uint64_t namesz = h.d.get(data.data() + o, 4), descsz = h.d.get(data.data() + o + 4, 4);
            std::uint64_t type = h.d.get(data.data() + o + 8, 4);
            std::uint64_t name_at = o + 12, desc_at = name_at + up(namesz);
            if (desc_at + descsz > data.size()) break;
            if (type == kNtGnuBuildId && namesz == 4 && std::memcmp(data.data() + name_at, "GNU", 4) == 0)
                return std::optional<BuildIdNote>(BuildIdNote{n.offset + desc_at, descsz});
            o = desc_at + up(descsz);
        }
    }
    return std::optional<BuildIdNote>();
}

Result<int> normalize_nvcc_temp_names(const std::filesystem::path& p) {
    File f(p);
    if (!f.ok()) return fail(SourceLoc{p.string()}, std::string("cannot open: ") + std::strerror(errno));
    auto headers = read_headers(f, p);
    if (!headers) return unexpected(headers.error());
    if (!*headers) return 0;
    const Headers& h = **headers;
    auto bad = [&](const char* what) {
        return fail(SourceLoc{p.string()}, std::string("malformed ELF file: ") + what);
    };
    std::vector<std::uint64_t> at;  // file offsets of the pid digits to zero
    for (std::size_t i = 0; i < h.shnum; ++i) {
        Section sym = h.section(i);
        if (sym.type != kShtSymtab) continue;
        if (sym.link >= h.shnum) return bad("bad .symtab string table link");
        Section str = h.section(sym.link);
        if (!str.in(f)) return bad(".symtab string table outside the file");
        const std::size_t ent = h.d.is64 ? 24 : 16;
        std::vector<unsigned char> data;
        if (!read_section(f, sym, data)) return bad("truncated .symtab");
        for (std::size_t o = 0; o + ent <= data.size(); o += ent) {
            const unsigned info = data[o + (h.d.is64 ? 4 : 12)];
            if ((info & 0xf) != kSttFile) continue;
            const std::uint64_t name = h.d.get(data.data() + o, 4);
            char buf[24] = {};  // "tmpxft_" + 8 hex + "_" + 8 hex
            if (name + sizeof buf > str.size || !f.read(str.offset + name, buf, sizeof buf)) continue;
            auto hex = [&](int from) {
                for (int k = from; k < from + 8; ++k)
                    if (!std::isxdigit(static_cast<unsigned char>(buf[k]))) return false;
                return true;
            };
            if (std::memcmp(buf, "tmpxft_", 7) == 0 && hex(7) && buf[15] == '_' && hex(16) &&
                std::memcmp(buf + 7, "00000000", 8) != 0)
                at.push_back(str.offset + name + 7);
        }
    }
    if (at.empty()) return 0;
    int fd = ::open(p.c_str(), O_WRONLY | O_NONBLOCK | O_CLOEXEC);  // a FIFO without reader fails, never waits
    if (fd < 0) return fail(SourceLoc{p.string()}, std::string("cannot open for writing: ") + std::strerror(errno));
    for (auto off : at)
        if (::pwrite(fd, "00000000", 8, static_cast<off_t>(off)) != 8) {
            int err = errno;
            ::close(fd);
            return fail_runtime(SourceLoc{p.string()}, std::string("cannot write: ") + std::strerror(err));
        }
    ::close(fd);
    return static_cast<int>(at.size());
}

Result<bool> rehash_build_id(const std::filesystem::path& p) {
    auto note = find_build_id(p);
    if (!note) return unexpected(note.error());
    if (!*note || (*note)->size == 0 || (*note)->size > 32) return false;
    const BuildIdNote id = **note;
    int fd = ::open(p.c_str(), O_RDWR | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0) return fail(SourceLoc{p.string()}, std::string("cannot open for writing: ") + std::strerror(errno));
    auto done = [fd](auto r) {
        ::close(fd);
        return r;
    };
    // The digest of the whole file with the id's bytes read as zeros.
    hash::Hasher sha(id.size == 20 ? hash::Algo::sha1 : hash::Algo::sha256);
    std::vector<char> buf(1 << 20);
    for (std::uint64_t off = 0;;) {
        ssize_t n = ::pread(fd, buf.data(), buf.size(), static_cast<off_t>(off));
        if (n < 0) return done(fail(SourceLoc{p.string()}, std::string("read error: ") + std::strerror(errno)));
        if (n == 0) break;
        const std::uint64_t end = off + static_cast<std::uint64_t>(n);
        for (std::uint64_t k = std::max(off, id.offset); k < std::min(end, id.offset + id.size); ++k)
            buf[k - off] = 0;
        sha.update(std::string_view(buf.data(), static_cast<std::size_t>(n)));
        off = end;
    }
    const std::string hex = sha.hex();
    std::string bytes(id.size, '\0');
    for (std::size_t i = 0; i < id.size; ++i) bytes[i] = static_cast<char>(std::stoi(hex.substr(2 * i, 2), nullptr, 16));
    if (::pwrite(fd, bytes.data(), bytes.size(), static_cast<off_t>(id.offset)) != static_cast<ssize_t>(bytes.size()))
        return done(fail(SourceLoc{p.string()}, std::string("cannot write the build-id: ") + std::strerror(errno)));
    return done(Result<bool>(true));
}

}  // namespace sf::package
