#pragma once
// Just enough ELF reading to find a file's DT_RPATH / DT_RUNPATH, so that
// patchelf only runs on files that need a change.
#include <filesystem>
#include <string>

#include "core/error.hpp"

namespace sf::package {

enum class RpathKind { none, rpath, runpath };

struct ElfInfo {
    bool is_elf = false;       // starts with \x7fELF
    bool is_dynamic = false;   // has a .dynamic section
    RpathKind kind = RpathKind::none;
    std::string rpath;         // the DT_RUNPATH (preferred) or DT_RPATH string
};

// Not an ELF file is not an error (is_elf = false); a truncated or malformed
// ELF file is.
Result<ElfInfo> read_elf(const std::filesystem::path& p);

}  // namespace sf::package
