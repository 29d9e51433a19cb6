#pragma once
// The link check PyTorch's check_binary.sh makes with LD_LIBRARY_PATH unset,
// done statically over an unpacked artifact: every ELF file's RPATH/RUNPATH
// entries must be $ORIGIN-relative (or inside the install prefix), and every
// DT_NEEDED must be found in one of those directories or be on the
// platform's allow-list. The loader's default dirs count only through that
// list, never through whatever this machine happens to have.
#include <filesystem>
#include <functional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "core/error.hpp"

namespace sf::binary {

// One problem: the artifact, the file inside it and what is wrong with it
// (naming the library, symbol or path). line() is what the user reads.
struct Finding {
    std::string artifact, member, problem;
    std::string line() const { return artifact + ": " + member + ": " + problem; }
};

struct ElfTree {
    std::string artifact;                 // the file name the findings name
    std::filesystem::path root;           // the unpacked tree (a conda prefix, a wheel's root, ...)
    std::vector<std::string> files;       // the artifact's own files, relative to root: checked
    std::set<std::string> available;      // every file a library may be found as, relative to root
    std::string prefix;                   // absolute RPATH entries under it are inside (empty: none are)
    std::function<bool(std::string_view)> allowed;  // the platform allow-list, by DT_NEEDED name
    std::string not_found_hint;           // appended to a missing NEEDED (e.g. where deps were looked up)
};

// Every problem found; an Error only when a file cannot be read as ELF.
Result<std::vector<Finding>> check_links(const ElfTree& tree);

// Every file, symlink included, below `root`, relative and sorted.
std::vector<std::string> list_tree(const std::filesystem::path& root);

// glibc's own libraries, by soname (libc.so.6, libm.so.6, ld-linux-*.so.*, ...).
bool is_glibc_library(std::string_view soname);

// `soname` is `stem` or `stem.<digits...>` (libopenblas.so.0 for libopenblas.so).
bool soname_matches(std::string_view soname, std::string_view stem);

}  // namespace sf::binary
