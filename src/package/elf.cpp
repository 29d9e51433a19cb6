#include "package/elf.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstring>
#include <vector>

namespace sf::package {

namespace {

constexpr std::uint32_t kShtDynamic = 6;
constexpr std::int64_t kDtNull = 0, kDtRpath = 15, kDtRunpath = 29;

class File {
public:
    explicit File(const std::filesystem::path& p) : fd_(::open(p.c_str(), O_RDONLY | O_CLOEXEC)) {
        struct stat st {};
        if (fd_ >= 0 && ::fstat(fd_, &st) == 0) size_ = static_cast<std::uint64_t>(st.st_size);
    }
    ~File() {
        if (fd_ >= 0) ::close(fd_);
    }
    bool ok() const { return fd_ >= 0; }
    std::uint64_t size() const { return size_; }
    bool read(std::uint64_t off, void* buf, std::size_t n) const {
        if (off > size_ || n > size_ - off) return false;
        return ::pread(fd_, buf, n, static_cast<off_t>(off)) == static_cast<ssize_t>(n);
    }

private:
    int fd_;
    std::uint64_t size_ = 0;
};

struct Decoder {
    bool is64, little;
    std::uint64_t get(const unsigned char* p, int n) const {
        std::uint64_t v = 0;
        for (int i = 0; i < n; ++i) {
            int idx = little ? n - 1 - i : i;
            v = (v << 8) | p[idx];
        }
        return v;
    }
};

}  // namespace

Result<ElfInfo> read_elf(const std::filesystem::path& p) {
    ElfInfo info;
    File f(p);
    if (!f.ok()) return fail(SourceLoc{p.string()}, std::string("cannot open: ") + std::strerror(errno));
    unsigned char id[64] = {};
    if (f.size() < 16 || !f.read(0, id, 16) || std::memcmp(id, "\x7f" "ELF", 4) != 0) return info;
    info.is_elf = true;
    auto bad = [&](const char* what) {
        return fail(SourceLoc{p.string()}, std::string("malformed ELF file: ") + what);
    };
    if ((id[4] != 1 && id[4] != 2) || (id[5] != 1 && id[5] != 2)) return bad("unknown class or byte order");
    Decoder d{id[4] == 2, id[5] == 1};
    const std::size_t ehsize = d.is64 ? 64 : 52;
    if (!f.read(0, id, ehsize)) return bad("truncated header");
    const std::uint64_t shoff = d.is64 ? d.get(id + 40, 8) : d.get(id + 32, 4);
    const std::size_t shentsize = d.get(id + (d.is64 ? 58 : 46), 2);
    const std::size_t shnum = d.get(id + (d.is64 ? 60 : 48), 2);
    if (shoff == 0 || shnum == 0) return info;  // no section headers (stripped oddly): leave it alone
    if (shentsize < (d.is64 ? 64u : 40u)) return bad("bad section header size");
    std::vector<unsigned char> sh(shentsize * shnum);
    if (!f.read(shoff, sh.data(), sh.size())) return bad("truncated section headers");

    struct Section {
        std::uint32_t type;
        std::uint64_t offset, size, link, entsize;
    };
    auto section = [&](std::size_t i) {
        const unsigned char* s = sh.data() + i * shentsize;
        Section r{};
        r.type = static_cast<std::uint32_t>(d.get(s + 4, 4));
        r.offset = d.is64 ? d.get(s + 24, 8) : d.get(s + 16, 4);
        r.size = d.is64 ? d.get(s + 32, 8) : d.get(s + 20, 4);
        r.link = d.get(s + (d.is64 ? 40 : 24), 4);
        r.entsize = d.is64 ? d.get(s + 56, 8) : d.get(s + 36, 4);
        return r;
    };
    for (std::size_t i = 0; i < shnum; ++i) {
        Section dyn = section(i);
        if (dyn.type != kShtDynamic) continue;
        info.is_dynamic = true;
        if (dyn.link >= shnum) return bad("bad .dynamic string table link");
        Section str = section(dyn.link);
        const std::size_t ent = d.is64 ? 16 : 8;
        std::vector<unsigned char> data(dyn.size);
        if (!f.read(dyn.offset, data.data(), data.size())) return bad("truncated .dynamic");
        std::uint64_t rpath_off = 0, runpath_off = 0;
        bool has_rpath = false, has_runpath = false;
        for (std::size_t o = 0; o + ent <= data.size(); o += ent) {
            auto tag = static_cast<std::int64_t>(d.get(data.data() + o, ent / 2));
            std::uint64_t val = d.get(data.data() + o + ent / 2, ent / 2);
            if (tag == kDtNull) break;
            if (tag == kDtRpath) has_rpath = true, rpath_off = val;
            if (tag == kDtRunpath) has_runpath = true, runpath_off = val;
        }
        if (!has_rpath && !has_runpath) return info;
        info.kind = has_runpath ? RpathKind::runpath : RpathKind::rpath;
        std::uint64_t off = has_runpath ? runpath_off : rpath_off;
        if (off >= str.size) return bad("rpath offset outside the string table");
        std::string s;
        char c;
        for (std::uint64_t k = off; k < str.size; ++k) {
            if (!f.read(str.offset + k, &c, 1)) return bad("truncated string table");
            if (c == '\0') break;
            s.push_back(c);
        }
        info.rpath = std::move(s);
        return info;
    }
    return info;
}

}  // namespace sf::package
