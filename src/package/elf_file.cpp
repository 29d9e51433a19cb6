#include "package/elf_file.hpp"

#include "util/fs.hpp"

namespace sf::package::elf_detail {

File::File(const std::filesystem::path& p) {
    if (auto f = fs::InputFile::open(p)) size_ = f->size(), fd_ = f->release();
}

// nullopt: not an ELF file. An empty `sh` (shnum 0): no section headers.
Result<std::optional<Headers>> read_headers(const File& f, const std::filesystem::path& p) {
    unsigned char id[64] = {};
    if (f.size() < 16 || !f.read(0, id, 16) || std::memcmp(id, "\x7f" "ELF", 4) != 0)
        return std::optional<Headers>();
    auto bad = [&](const char* what) {
        return fail(SourceLoc{p.string()}, std::string("malformed ELF file: ") + what);
    };
    if ((id[4] != 1 && id[4] != 2) || (id[5] != 1 && id[5] != 2)) return bad("unknown class or byte order");
    Headers h;
    h.d = Decoder{id[4] == 2, id[5] == 1};
    const Decoder& d = h.d;
    const std::size_t ehsize = d.is64 ? 64 : 52;
    if (!f.read(0, id, ehsize)) return bad("truncated header");
    h.machine = static_cast<std::uint16_t>(d.get(id + 18, 2));
    const std::uint64_t shoff = d.is64 ? d.get(id + 40, 8) : d.get(id + 32, 4);
    h.shentsize = d.get(id + (d.is64 ? 58 : 46), 2);
    h.shnum = d.get(id + (d.is64 ? 60 : 48), 2);
    if (shoff == 0 || h.shnum == 0) {  // no section headers (stripped oddly): leave it alone
        h.shnum = 0;
        return std::optional<Headers>(std::move(h));
    }
    if (h.shentsize < (d.is64 ? 64u : 40u)) return bad("bad section header size");
    if (shoff > f.size() || h.shentsize * h.shnum > f.size() - shoff)
        return bad("section headers past the end of the file");
    h.sh.resize(h.shentsize * h.shnum);
    if (!f.read(shoff, h.sh.data(), h.sh.size())) return bad("truncated section headers");
    for (std::size_t i = 0; i < h.shnum; ++i) {
        const Section s = h.section(i);
        if (s.type == kShtNobits || s.type == kShtNull || s.in(f)) continue;
        return fail(SourceLoc{p.string()}, "malformed ELF file: section " + std::to_string(i) + " (offset " +
                                               std::to_string(s.offset) + ", size " + std::to_string(s.size) +
                                               ") ends past the end of the file (" + std::to_string(f.size()) +
                                               " bytes)");
    }
    return std::optional<Headers>(std::move(h));
}

}  // namespace sf::package::elf_detail
