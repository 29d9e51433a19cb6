#pragma once
// What an ELF file asks of the system it loads on, for manylinux tags and
// binary checks: the symbol versions it requires per needed file
// (SHT_GNU_verneed: GLIBC_2.17, GLIBCXX_3.4.21, CXXABI_1.3.9, GCC_4.2.0 ...),
// its dynamic symbols (SHT_DYNSYM), defined or not, with the version each
// one is bound to (SHT_GNU_versym), and the x86 ISA level it says it needs
// (the .note.gnu.property note).
#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include "core/error.hpp"

namespace sf::package {

// One Elf_Verneed entry: the file (a DT_NEEDED name) and the versions
// required of it, in file order.
struct VersionNeed {
    std::string file;
    std::vector<std::string> versions;
};

enum class SymbolBinding { local, global, weak, other };
enum class SymbolType { notype, object, func, section, file, common, tls, gnu_ifunc, other };

struct DynamicSymbol {
    std::string name;
    bool defined = false;  // st_shndx != SHN_UNDEF
    SymbolBinding binding = SymbolBinding::other;
    SymbolType type = SymbolType::other;
    // The version it is bound to (required of a needed file when undefined,
    // given by this file's verdef when defined); empty: unversioned or the
    // file's base version.
    std::string version;
    bool hidden_version = false;  // versym bit 15: not the default version
    // Exported: defined, global or weak, a function or an object.
    bool exported() const {
        return defined && (binding == SymbolBinding::global || binding == SymbolBinding::weak) &&
               (type == SymbolType::func || type == SymbolType::object || type == SymbolType::gnu_ifunc);
    }
};

struct ElfSymbols {
    bool is_elf = false;          // false: not an ELF file (not an error)
    std::uint16_t machine = 0;    // e_machine
    bool little_endian = true;
    std::vector<VersionNeed> needs;
    std::vector<DynamicSymbol> symbols;  // .dynsym without its null entry
    // The GNU_PROPERTY_X86_ISA_1_NEEDED bits of the first NT_GNU_PROPERTY_TYPE_0
    // note holding one (ld -z x86-64-v3 writes 0x4 | 0x1: v3 over the
    // baseline); 0: no such note. Read on every machine, meaningful on x86.
    std::uint32_t x86_isa_needed = 0;
};

// The architecture name wheels and manylinux policies use for an e_machine
// ("x86_64", "aarch64", "i686", "ppc64le" ...); empty: none of those.
// ppc64 and ppc64le share e_machine 21: `little` tells them apart.
std::string_view machine_arch(std::uint16_t machine, bool little_endian = true);

// A truncated or malformed ELF file is an error naming the file; a file
// without .dynsym or verneed sections gives empty lists.
Result<ElfSymbols> read_elf_symbols(const std::filesystem::path& p);

}  // namespace sf::package
