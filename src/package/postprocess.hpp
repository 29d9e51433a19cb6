#pragma once
// Post-processing of an output's files before packaging, in this order:
//   1. symlinks: absolute links into the prefix become relative; absolute
//      links outside it, and relative links escaping it, are errors;
//   2. ELF RPATH/RUNPATH entries pointing into the prefix become
//      $ORIGIN-relative (through the external `patchelf`);
//   3. prefix detection: files still containing the build prefix get a
//      prefix_placeholder, text (no NUL byte) or binary.
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "core/error.hpp"
#include "process/process.hpp"
#include "types/package_record.hpp"

namespace sf::package {

struct PrefixFile {
    std::string path;         // relative to the package root
    std::string placeholder;  // the prefix string found in it
    types::FileMode mode = types::FileMode::text;
};

enum class BinaryPrefix { detect, ignore };  // detect_binary_files_with_prefix
enum class RpathFix { rewrite, keep };
// rehash: recompute ELF build-ids from the final bytes (rehash_build_id), so
// that they do not depend on the build's paths, after zeroing the pid in
// nvcc's temp file names (normalize_nvcc_temp_names); what the engine builds.
enum class BuildIdFix { keep, rehash };

struct PostprocessOptions {
    std::string prefix;  // the build prefix as written into files; empty: the directory itself
    BinaryPrefix binary = BinaryPrefix::detect;
    RpathFix rpath = RpathFix::rewrite;
    BuildIdFix build_id = BuildIdFix::keep;
    std::string patchelf = "patchelf";          // name looked up on env PATH, or a path
    process::Env env = process::minimal_env();  // the environment patchelf runs in
};

struct PostprocessReport {
    std::vector<PrefixFile> prefix_files;           // sorted by path
    std::vector<std::string> rpaths_rewritten;      // "path: old -> new"
    std::vector<std::string> build_ids_rehashed;    // paths
    std::vector<std::string> symlinks_made_relative;
    std::vector<std::string> warnings;
};

Result<PostprocessReport> postprocess(const std::filesystem::path& dir, const PostprocessOptions& opts);

// The pieces, exposed for tests and for callers that want only one.

// Step 1. Returns the links it rewrote.
Result<std::vector<std::string>> fix_symlinks(const std::filesystem::path& dir, const std::string& prefix);

// Step 2 for one rpath string: `file_dir` is the ELF file's directory relative
// to the prefix. Entries outside the prefix are dropped (named in `dropped`).
std::string relocate_rpath(const std::string& rpath, const std::string& prefix, const std::string& file_dir,
                           std::vector<std::string>* dropped = nullptr);

// Step 3 for one file (streamed; any size).
Result<std::optional<PrefixFile>> detect_prefix(const std::filesystem::path& file, const std::string& rel,
                                                const std::string& prefix, BinaryPrefix binary);

}  // namespace sf::package
