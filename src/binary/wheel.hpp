#pragma once
// `splitforge wheel`: pip wheels of the `torch` distribution made from the
// conda packages a megabuild wrote, as PyTorch's manywheel ships them.
// Nothing recompiles: each wheel repacks one `pytorch` package (one Python,
// one variant) with the files of the `libtorch` (and `libtorch-cuda-linalg`)
// package it depends on, exactly as built, laid out as torch/ (torch/lib,
// torch/include, torch/share/cmake, torch/bin), with the other libraries
// they need from their dependencies' packages bundled into torch.libs/
// (wheel_bundle.hpp) and the platform tag the manylinux policies give.
#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "core/error.hpp"
#include "core/report.hpp"
#include "process/process.hpp"

namespace sf::binary {

// How members are stored: deflate, as pip's wheels are (each big file
// deflated once per run), or STORED (faster to write, bigger).
enum class WheelCompression { deflate, stored };

struct WheelOptions {
    std::filesystem::path input;          // a channel, or any folder of package files
    std::filesystem::path output_folder;  // where the wheels go (made if missing)
    std::string package = "pytorch";      // one wheel per package of this name
    std::string distribution = "torch";   // the wheel's distribution and import package
    // Dependencies whose files join the wheel; other dependencies only
    // provide libraries to bundle.
    std::vector<std::string> content = {"libtorch", "libtorch-cuda-linalg"};
    // Directories searched, in order, for a needed library no dependency's
    // package provides (auditwheel's --ldpaths); empty by default, so a
    // wheel bundles only what the channel built.
    std::vector<std::filesystem::path> library_dirs;
    WheelCompression compression = WheelCompression::deflate;
    std::string patchelf = "patchelf";    // a name looked up on env's PATH, or a path
    process::Env env = process::minimal_env();  // the environment patchelf runs in
    Reporter* reporter = nullptr;         // one note per wheel written
};

struct WheelReport {
    std::filesystem::path wheel;            // the file written
    std::string from;                       // the package file it was made from
    std::vector<std::string> packages;      // every package whose files it holds
    std::uint64_t wheel_size = 0;
    std::uint64_t conda_size = 0;           // the content packages' files, together
    std::string platform_tag;               // "manylinux_2_17_x86_64.manylinux2014_x86_64"
    std::vector<std::string> bundled;       // torch.libs/..., with where each came from
    std::vector<std::string> system_libs;   // what it leaves to the system
    std::vector<std::string> skipped;       // package files with no place in a wheel
    double seconds = 0;
};

// One wheel per `package` in the input folder. All or nothing per wheel: a
// wheel appears whole or not at all; the first error stops the run and names
// the package (and the file and library, for a library no policy allows).
Result<std::vector<WheelReport>> make_wheels(const WheelOptions& opts);

}  // namespace sf::binary
