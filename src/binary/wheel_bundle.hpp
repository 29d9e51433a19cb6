#pragma once
// Makes a staged wheel tree self-contained, as `auditwheel repair` does: every
// library an ELF file of the tree needs is found in the tree, left to the
// system (the manylinux allow-list), or copied in from a dependency's package
// into `<dist>.libs/` under a content-hashed name, with the NEEDED entries
// naming it rewritten and each file's RPATH set to the $ORIGIN-relative
// directories of what it needs. Then the platform tag: the oldest manylinux
// policy that admits what the tree's ELF files require.
#include <filesystem>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "binary/manylinux.hpp"
#include "core/error.hpp"
#include "process/process.hpp"

namespace sf::binary {

// A library a dependency's package provides.
struct ProvidedLib {
    std::string package;  // the package file's name, for messages
    std::string member;   // its path in the package (a regular file)
};

// What bundling one library into several wheels of a run shares, so a big
// library (a BLAS) is fetched, hashed and patched once: each fetched file
// with its SHA-256, and the file patchelf made of it for one set of changes
// (patchelf is deterministic). Files live in `dir`, which the caller owns.
struct BundleCache {
    std::filesystem::path dir;
    std::map<std::string, std::pair<std::string, std::filesystem::path>> fetched;  // package|member -> sha, file
    std::map<std::string, std::filesystem::path> patched;                         // sha|changes -> file
};

struct BundleOptions {
    std::filesystem::path root;   // the staged tree; changed in place
    std::string libs_dir;         // "torch.libs"
    // Libraries the dependencies provide, by the name a NEEDED entry uses
    // (a file name or a symlink's name in the package's lib/).
    std::map<std::string, ProvidedLib> provided;
    // Puts a provided library's bytes at the given path (extracting its package).
    std::function<Result<void>(const ProvidedLib&, const std::filesystem::path&)> fetch;
    std::filesystem::path patchelf;  // an executable
    process::Env env;                // patchelf's environment
    BundleCache* cache = nullptr;    // optional
};

struct BundleResult {
    std::string arch;                   // "x86_64"
    ManylinuxPolicy policy;             // the oldest that admits the tree
    std::vector<std::string> bundled;   // "<libs_dir>/libfoo-1a2b3c4d.so.1 (from foo-1.0-h0_0.conda)"
    std::vector<std::string> system;    // what the tree leaves to the system, sorted
    int patched = 0;                    // ELF files patchelf changed
};

// Errors name the ELF file (relative to the root) and the library.
Result<BundleResult> bundle_libraries(const BundleOptions& opts);

}  // namespace sf::binary
