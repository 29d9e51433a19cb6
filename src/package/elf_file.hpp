#pragma once
// The ELF file access elf.cpp and elf_symbols.cpp share (internal to
// package/): a regular file read with pread, bounds-checked, and its ELF
// header and section headers decoded for either class and byte order.
// Every offset and size a file declares is checked against the file before
// anything is read or allocated: a header may claim terabytes.
#include <fcntl.h>
#include <unistd.h>

#include <cstdint>
#include <cstring>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "core/error.hpp"

namespace sf::package::elf_detail {

class File {
public:
    // Only a regular file, opened without waiting on a FIFO.
    explicit File(const std::filesystem::path& p);
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
    int fd_ = -1;
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

constexpr std::uint32_t kShtNull = 0, kShtNobits = 8;

struct Section {
    std::uint32_t type;
    std::uint64_t offset, size, link, info, entsize, align;
    // Its bytes lie in the file (SHT_NOBITS and SHT_NULL have none there).
    bool in(const File& f) const {
        return type != kShtNobits && type != kShtNull && offset <= f.size() && size <= f.size() - offset;
    }
};

// The bytes of section `s`, checked against the file before allocating;
// false: not in the file, or a read error.
inline bool read_section(const File& f, const Section& s, std::vector<unsigned char>& out) {
    if (!s.in(f)) return false;
    out.resize(static_cast<std::size_t>(s.size));
    return f.read(s.offset, out.data(), out.size());
}

// The ELF header and section headers of an ELF file.
struct Headers {
    Decoder d{};
    std::uint16_t machine = 0;  // e_machine
    std::size_t shentsize = 0, shnum = 0;
    std::vector<unsigned char> sh;
    Section section(std::size_t i) const {
        const unsigned char* s = sh.data() + i * shentsize;
        Section r{};
        r.type = static_cast<std::uint32_t>(d.get(s + 4, 4));
        r.offset = d.is64 ? d.get(s + 24, 8) : d.get(s + 16, 4);
        r.size = d.is64 ? d.get(s + 32, 8) : d.get(s + 20, 4);
        r.link = d.get(s + (d.is64 ? 40 : 24), 4);
        r.info = d.get(s + (d.is64 ? 44 : 28), 4);
        r.align = d.is64 ? d.get(s + 48, 8) : d.get(s + 32, 4);
        r.entsize = d.is64 ? d.get(s + 56, 8) : d.get(s + 36, 4);
        return r;
    }
};

// nullopt: not an ELF file. An empty `sh` (shnum 0): no section headers.
// Malformed: section headers or a section (other than SHT_NOBITS) outside
// the file.
Result<std::optional<Headers>> read_headers(const File& f, const std::filesystem::path& p);

}  // namespace sf::package::elf_detail
