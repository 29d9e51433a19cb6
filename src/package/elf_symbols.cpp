#include "package/elf_symbols.hpp"

#include <cerrno>
#include <cstring>
#include <optional>
#include <unordered_map>

#include "package/elf_file.hpp"

namespace sf::package {

using elf_detail::File;
using elf_detail::Headers;
using elf_detail::Section;

namespace {

constexpr std::uint32_t kShtNote = 7, kShtDynsym = 11, kShtVerdef = 0x6ffffffd, kShtVerneed = 0x6ffffffe,
                        kShtVersym = 0x6fffffff;
constexpr std::uint32_t kNtGnuPropertyType0 = 5, kGnuPropertyX86Isa1Needed = 0xc0008002;
constexpr std::uint16_t kVersymHidden = 0x8000;

// The parts of one file the readers below share: its sections and a bounded
// reader of whole sections and of strings in them.
struct Reader {
    const File& f;
    const Headers& h;
    const std::filesystem::path& p;

    Result<std::vector<unsigned char>> bytes(const Section& s, const char* what) const {
        std::vector<unsigned char> data;  // sized only once the file is known to hold it
        if (!elf_detail::read_section(f, s, data)) return bad(std::string(what) + " outside the file");
        return data;
    }
    Unexpected<Error> bad(const std::string& what) const {
        return fail(SourceLoc{p.string()}, "malformed ELF file: " + what);
    }
    std::uint64_t get(const std::vector<unsigned char>& d, std::uint64_t at, int n) const {
        return h.d.get(d.data() + at, n);
    }
};

// A NUL-terminated string at `off` of a string table held in memory.
std::optional<std::string> str_at(const std::vector<unsigned char>& strtab, std::uint64_t off) {
    if (off >= strtab.size()) return std::nullopt;
    const auto* begin = reinterpret_cast<const char*>(strtab.data()) + off;
    const void* nul = std::memchr(begin, '\0', strtab.size() - off);
    if (!nul) return std::nullopt;
    return std::string(begin, static_cast<const char*>(nul));
}

Result<std::vector<unsigned char>> linked_strtab(const Reader& r, const Section& s, const char* what) {
    if (s.link >= r.h.shnum) return r.bad(std::string("bad string table link of ") + what);
    return r.bytes(r.h.section(s.link), "string table");
}

// SHT_GNU_verneed: the needs, and each vna_other index's version name.
Result<void> read_verneed(const Reader& r, const Section& s, ElfSymbols& out,
                          std::unordered_map<std::uint64_t, std::string>& names) {
    auto data = r.bytes(s, ".gnu.version_r");
    if (!data) return unexpected(data.error());
    auto strtab = linked_strtab(r, s, ".gnu.version_r");
    if (!strtab) return unexpected(strtab.error());
    std::uint64_t at = 0;
    // Entries are 16 bytes each, so more than size/16 of them means a loop.
    for (std::uint64_t n = 0; n < s.info; ++n) {
        if (n > data->size() / 16 || at + 16 > data->size()) return r.bad("verneed entry outside its section");
        const std::uint64_t cnt = r.get(*data, at + 2, 2), file = r.get(*data, at + 4, 4);
        const std::uint64_t aux = r.get(*data, at + 8, 4), next = r.get(*data, at + 12, 4);
        auto name = str_at(*strtab, file);
        if (!name) return r.bad("verneed file name outside the string table");
        VersionNeed need{std::move(*name), {}};
        std::uint64_t a = at + aux;
        for (std::uint64_t k = 0; k < cnt; ++k) {
            if (a + 16 > data->size()) return r.bad("vernaux entry outside its section");
            const std::uint64_t other = r.get(*data, a + 6, 2), vname = r.get(*data, a + 8, 4);
            auto v = str_at(*strtab, vname);
            if (!v) return r.bad("version name outside the string table");
            names[other] = *v;
            need.versions.push_back(std::move(*v));
            const std::uint64_t vnext = r.get(*data, a + 12, 4);
            if (vnext == 0) break;
            a += vnext;
        }
        out.needs.push_back(std::move(need));
        if (next == 0) break;
        at += next;
    }
    return {};
}

// SHT_GNU_verdef: each vd_ndx's version name (its first verdaux).
Result<void> read_verdef(const Reader& r, const Section& s, std::unordered_map<std::uint64_t, std::string>& names) {
    auto data = r.bytes(s, ".gnu.version_d");
    if (!data) return unexpected(data.error());
    auto strtab = linked_strtab(r, s, ".gnu.version_d");
    if (!strtab) return unexpected(strtab.error());
    std::uint64_t at = 0;
    for (std::uint64_t n = 0; n < s.info; ++n) {
        if (n > data->size() / 20 || at + 20 > data->size()) return r.bad("verdef entry outside its section");
        const std::uint64_t flags = r.get(*data, at + 2, 2), ndx = r.get(*data, at + 4, 2);
        const std::uint64_t aux = r.get(*data, at + 12, 4), next = r.get(*data, at + 16, 4);
        if (at + aux + 8 > data->size()) return r.bad("verdaux entry outside its section");
        auto v = str_at(*strtab, r.get(*data, at + aux, 4));
        if (!v) return r.bad("version name outside the string table");
        if (!(flags & 1)) names[ndx] = std::move(*v);  // VER_FLG_BASE names the file, not a version
        if (next == 0) break;
        at += next;
    }
    return {};
}

std::uint64_t align_up(std::uint64_t v, std::uint64_t a) { return (v + a - 1) / a * a; }

// The ISA_1_NEEDED property of one NT_GNU_PROPERTY_TYPE_0 descriptor: an
// array of {pr_type, pr_datasz, data padded to 8 bytes (4 on ELF32)}.
std::optional<std::uint32_t> isa_needed_in(const Reader& r, const std::vector<unsigned char>& d, std::uint64_t at,
                                           std::uint64_t end) {
    const std::uint64_t pad = r.h.d.is64 ? 8 : 4;
    while (at + 8 <= end) {
        const std::uint64_t type = r.get(d, at, 4), size = r.get(d, at + 4, 4);
        if (size > end - at - 8) return std::nullopt;
        if (type == kGnuPropertyX86Isa1Needed && size == 4) return static_cast<std::uint32_t>(r.get(d, at + 8, 4));
        at += 8 + align_up(size, pad);
    }
    return std::nullopt;
}

// SHT_NOTE: the first GNU property note's ISA_1_NEEDED, as auditwheel reads
// it (a note section, its notes in order; a malformed note ends the walk).
std::optional<std::uint32_t> read_isa_needed(const Reader& r, const Section& s) {
    if (s.size > (1u << 20)) return std::nullopt;  // property notes are a few dozen bytes
    auto data = r.bytes(s, "note section");
    if (!data) return std::nullopt;
    const auto& d = *data;
    const std::uint64_t align = s.align == 8 ? 8 : 4;
    std::uint64_t at = 0;
    while (at + 12 <= d.size()) {
        const std::uint64_t namesz = r.get(d, at, 4), descsz = r.get(d, at + 4, 4), type = r.get(d, at + 8, 4);
        const std::uint64_t desc = align_up(at + 12 + namesz, align);
        if (namesz > d.size() || descsz > d.size() || desc + descsz > d.size()) return std::nullopt;
        if (type == kNtGnuPropertyType0 && namesz == 4 && std::memcmp(d.data() + at + 12, "GNU", 4) == 0)
            return isa_needed_in(r, d, desc, desc + descsz);
        at = align_up(desc + descsz, align);
    }
    return std::nullopt;
}

SymbolBinding binding_of(unsigned b) {
    switch (b) {
        case 0: return SymbolBinding::local;
        case 1: return SymbolBinding::global;
        case 2: return SymbolBinding::weak;
        default: return SymbolBinding::other;
    }
}

SymbolType type_of(unsigned t) {
    static constexpr SymbolType types[] = {SymbolType::notype, SymbolType::object, SymbolType::func,
                                           SymbolType::section, SymbolType::file, SymbolType::common,
                                           SymbolType::tls};
    if (t < std::size(types)) return types[t];
    return t == 10 ? SymbolType::gnu_ifunc : SymbolType::other;
}

Result<void> read_dynsym(const Reader& r, const Section& s, const std::optional<Section>& versym,
                         const std::unordered_map<std::uint64_t, std::string>& names, ElfSymbols& out) {
    auto data = r.bytes(s, ".dynsym");
    if (!data) return unexpected(data.error());
    auto strtab = linked_strtab(r, s, ".dynsym");
    if (!strtab) return unexpected(strtab.error());
    const bool is64 = r.h.d.is64;
    const std::size_t ent = is64 ? 24 : 16, count = data->size() / ent;
    std::vector<unsigned char> vs;
    if (versym) {
        auto v = r.bytes(*versym, ".gnu.version");
        if (!v) return unexpected(v.error());
        if (v->size() < count * 2) return r.bad(".gnu.version shorter than .dynsym");
        vs = std::move(*v);
    }
    for (std::size_t i = 1; i < count; ++i) {  // entry 0 is the null symbol
        const std::uint64_t o = i * ent;
        const unsigned info = (*data)[o + (is64 ? 4 : 12)];
        const std::uint64_t shndx = r.get(*data, o + (is64 ? 6 : 14), 2);
        auto name = str_at(*strtab, r.get(*data, o, 4));
        if (!name) return r.bad("symbol name outside the string table");
        DynamicSymbol sym{std::move(*name), shndx != 0, binding_of(info >> 4), type_of(info & 0xf), {}, false};
        if (!vs.empty()) {
            const std::uint64_t v = r.get(vs, i * 2, 2);
            sym.hidden_version = (v & kVersymHidden) != 0;
            if (auto it = names.find(v & 0x7fff); it != names.end()) sym.version = it->second;
        }
        out.symbols.push_back(std::move(sym));
    }
    return {};
}

}  // namespace

std::string_view machine_arch(std::uint16_t machine, bool little_endian) {
    switch (machine) {
        case 3: return "i686";
        case 62: return "x86_64";
        case 183: return "aarch64";
        case 40: return "armv7l";
        case 21: return little_endian ? "ppc64le" : "ppc64";
        case 22: return "s390x";
        case 243: return "riscv64";
        default: return "";
    }
}

Result<ElfSymbols> read_elf_symbols(const std::filesystem::path& p) {
    ElfSymbols out;
    File f(p);
    if (!f.ok()) return fail(SourceLoc{p.string()}, std::string("cannot open: ") + std::strerror(errno));
    auto headers = elf_detail::read_headers(f, p);
    if (!headers) return unexpected(headers.error());
    if (!*headers) return out;
    const Headers& h = **headers;
    out.is_elf = true;
    out.machine = h.machine;
    out.little_endian = h.d.little;
    Reader r{f, h, p};
    std::optional<Section> dynsym, versym, verneed, verdef;
    for (std::size_t i = 0; i < h.shnum; ++i) {
        Section s = h.section(i);
        if (s.type == kShtNote && !out.x86_isa_needed)
            if (auto isa = read_isa_needed(r, s)) out.x86_isa_needed = *isa;
        if (s.type == kShtDynsym) dynsym = s;
        if (s.type == kShtVersym) versym = s;
        if (s.type == kShtVerneed) verneed = s;
        if (s.type == kShtVerdef) verdef = s;
    }
    std::unordered_map<std::uint64_t, std::string> names;  // version index -> name
    if (verneed)
        if (auto ok = read_verneed(r, *verneed, out, names); !ok) return unexpected(ok.error());
    if (verdef)
        if (auto ok = read_verdef(r, *verdef, names); !ok) return unexpected(ok.error());
    if (dynsym)
        if (auto ok = read_dynsym(r, *dynsym, versym, names, out); !ok) return unexpected(ok.error());
    return out;
}

}  // namespace sf::package
