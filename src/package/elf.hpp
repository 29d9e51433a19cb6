#pragma once
// Just enough ELF reading for packaging and checks: a file's DT_RPATH /
// DT_RUNPATH (patchelf runs only on files that need a change), its DT_NEEDED
// and DT_SONAME, and its GNU build-id.
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "core/error.hpp"

namespace sf::package {

enum class RpathKind { none, rpath, runpath };

struct ElfInfo {
    bool is_elf = false;       // starts with \x7fELF
    bool is_dynamic = false;   // has a .dynamic section
    RpathKind kind = RpathKind::none;
    std::string rpath;         // the DT_RUNPATH (preferred) or DT_RPATH string
    std::vector<std::string> needed;  // DT_NEEDED, in file order
    std::string soname;               // DT_SONAME; empty: none
};

// Not an ELF file is not an error (is_elf = false); a truncated or malformed
// ELF file is.
Result<ElfInfo> read_elf(const std::filesystem::path& p);

// Where the NT_GNU_BUILD_ID note's id bytes are in the file.
struct BuildIdNote {
    std::uint64_t offset = 0, size = 0;
};
// nullopt: not ELF, or no build-id note.
Result<std::optional<BuildIdNote>> find_build_id(const std::filesystem::path& p);

// Recomputes the build-id from the file's final bytes: the SHA-1 (SHA-256,
// cut, for ids other than 20 bytes) of the file with the id read as zeros,
// written in place, as rpm's `debugedit --build-id` does after it rewrites
// paths. The linker hashed what it wrote, the build tree's absolute RPATH
// included, which `cmake --install` and patchelf later replace: without this
// the id alone would name the random work dir. false: no build-id to update.
Result<bool> rehash_build_id(const std::filesystem::path& p);

// nvcc compiles each .cu through a temp file named tmpxft_<pid>_<n>-..., and
// the host compiler records that name in an STT_FILE symbol of .symtab: the
// one difference between two CUDA builds in the same dir. Zeroes the pid in
// such names, in place (same length). Returns how many it changed.
Result<int> normalize_nvcc_temp_names(const std::filesystem::path& p);

}  // namespace sf::package
