#pragma once
// libtorch archives, as PyTorch ships them for C++ users: one zip per
// (cpu|cuda) x blas variant and kind, named as PyTorch names them
// (libtorch-cxx11-abi-<kind>-<version>+<variant>.zip, the variant labelled
// as the wheels label it: cpu, cu130, cpu.mkl), holding
//   libtorch/lib/               the libraries (kind shared-*: lib*.so from the
//                               libtorch package, static-*: lib*.a from
//                               libtorch-static) and, for *-with-deps, every
//                               shared library they need that is neither
//                               glibc nor the C++ runtime
//   libtorch/include/           headers (the libtorch package's)
//   libtorch/share/cmake/Torch/ TorchConfig.cmake (find_package(Torch))
//   libtorch/build-version      <version>+<variant>
//   libtorch/build-hash         sha256 of the package it was made from
//   libtorch/dependencies.json  {"kind", "run_dependencies": [match specs],
//                               "libraries": {soname: package, or "" for
//                               the host}}: what a *-without-deps archive's
//                               user provides, and `check` accepts as NEEDED
// It is made from a built package: the package and its run dependencies are
// installed (by our installer, from the channel) into a temp prefix and
// their files copied; nothing is recompiled. For *-with-deps, libraries the
// host provides (a system BLAS) are copied in too, as PyTorch bundles
// libgomp, and get RUNPATH $ORIGIN (patchelf), so the archive needs no conda
// env and no LD_LIBRARY_PATH. Deflated, reproducible (sorted members, one
// mtime) and written atomically.
#include <cstdint>
#include <filesystem>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "core/error.hpp"
#include "core/report.hpp"

namespace sf::binary {

// PyTorch's four kinds. shared-*: made from a `libtorch` package; static-*:
// from a `libtorch-static` one (static libraries, share/cmake/TorchStatic).
enum class LibtorchKind { shared_with_deps, shared_without_deps, static_with_deps, static_without_deps };

std::string_view kind_name(LibtorchKind k);  // "shared-with-deps", ...
std::optional<LibtorchKind> parse_libtorch_kind(std::string_view text);
constexpr bool is_static(LibtorchKind k) { return k == LibtorchKind::static_with_deps || k == LibtorchKind::static_without_deps; }
constexpr bool with_deps(LibtorchKind k) { return k == LibtorchKind::shared_with_deps || k == LibtorchKind::static_with_deps; }
// The kind an archive's file name says (libtorch-cxx11-abi-<kind>-...); nullopt for another name.
std::optional<LibtorchKind> libtorch_archive_kind(std::string_view file_name);

struct LibtorchOptions {
    std::filesystem::path package;                 // a libtorch-*.conda (shared kinds) or libtorch-static-* (static)
    LibtorchKind kind = LibtorchKind::shared_with_deps;
    std::vector<std::filesystem::path> channels;   // run dependencies; empty: the package's own channel
    std::filesystem::path output_dir;
    std::set<std::string> host_provided;           // names the host provides (the system map's ignore entries)
    Reporter* reporter = nullptr;
};

struct LibtorchArchive {
    std::filesystem::path path;
    std::string version, variant;
    std::vector<std::string> bundled;  // libraries from dependencies and the host, by name
    std::size_t members = 0;
    std::uint64_t size = 0;
};

Result<LibtorchArchive> make_libtorch_archive(const LibtorchOptions& opts);

// The kinds of `requested` that `package` is made into: the shared ones for
// a libtorch package, the static ones for libtorch-static; none requested:
// its with-deps kind. An error when none fits, or it is neither package.
Result<std::vector<LibtorchKind>> kinds_for_package(const std::filesystem::path& package,
                                                    const std::vector<LibtorchKind>& requested);

// The variant as PyTorch labels it, the wheels' local version ("cpu",
// "cu130", "cpu.mkl": wheel_meta.hpp's local_version); for a build string
// naming no cpu/cuda variant, its part before _h<hash>.
std::string libtorch_variant(const std::string& build_string);
std::string libtorch_archive_name(const std::string& version, const std::string& variant,
                                  LibtorchKind kind = LibtorchKind::shared_with_deps);

// What a consumer of the archive is expected to have: glibc, the C++ and
// GCC runtimes, and the GPU driver.
bool libtorch_platform_library(std::string_view soname);

// The channel a package file sits in (<channel>/<subdir>/file, the subdir
// holding repodata.json); empty when it sits in none.
std::filesystem::path channel_of(const std::filesystem::path& package);

}  // namespace sf::binary
