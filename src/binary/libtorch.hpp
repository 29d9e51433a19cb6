#pragma once
// libtorch archives, as PyTorch ships them for C++ users: one zip per
// (cpu|cuda) x blas variant, named as PyTorch names its "with-deps" archives
// (libtorch-cxx11-abi-shared-with-deps-<version>+<variant>.zip, the variant
// labelled as the wheels label it: cpu, cu130, cpu.mkl), holding
//   libtorch/lib/               the libraries, and every shared library they
//                               need that is neither glibc nor the C++ runtime
//   libtorch/include/           headers
//   libtorch/share/cmake/Torch/ TorchConfig.cmake (find_package(Torch))
//   libtorch/build-version      <version>+<variant>
//   libtorch/build-hash         sha256 of the libtorch package it was made from
// It is made from a built libtorch package: the package and its run
// dependencies are installed (by our installer, from the channel) into a
// temp prefix and their libraries copied; nothing is recompiled. Libraries
// the host provides (a system BLAS) are copied in too, as PyTorch bundles
// libgomp, and get RUNPATH $ORIGIN (patchelf), so the archive needs no conda
// env and no LD_LIBRARY_PATH. Deflated, reproducible (sorted members, one
// mtime) and written atomically.
#include <cstdint>
#include <filesystem>
#include <set>
#include <string>
#include <vector>

#include "core/error.hpp"
#include "core/report.hpp"

namespace sf::binary {

struct LibtorchOptions {
    std::filesystem::path package;                 // a libtorch-*.conda / .tar.bz2
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

// The variant as PyTorch labels it, the wheels' local version ("cpu",
// "cu130", "cpu.mkl": wheel_meta.hpp's local_version); for a build string
// naming no cpu/cuda variant, its part before _h<hash>.
std::string libtorch_variant(const std::string& build_string);
std::string libtorch_archive_name(const std::string& version, const std::string& variant);

// What a consumer of the archive is expected to have: glibc, the C++ and
// GCC runtimes, and the GPU driver.
bool libtorch_platform_library(std::string_view soname);

// The channel a package file sits in (<channel>/<subdir>/file, the subdir
// holding repodata.json); empty when it sits in none.
std::filesystem::path channel_of(const std::filesystem::path& package);

}  // namespace sf::binary
