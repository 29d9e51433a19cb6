#pragma once
// Post-processing of an output's files before packaging, in this order:
//   1. symlinks: absolute links into the prefix become relative; absolute
//      links outside it, and relative links escaping it, are errors;
//   2. ELF RPATHs as conda-build's mk_relative_linux sets them (through the
//      external `patchelf --force-rpath`, so always a DT_RPATH): entries into
//      the prefix become $ORIGIN-relative, others are dropped, and each of
//      build/rpaths (default lib) is added $ORIGIN-relative;
//   2b. optionally, the linkage checks (linkage.hpp) on the relocated files;
//   3. prefix detection: files still containing the build prefix get a
//      prefix_placeholder, text (no NUL byte) or binary, as the recipe's
//      prefix keys say (prefix_rules.hpp).
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "core/error.hpp"
#include "package/linkage.hpp"
#include "package/prefix_rules.hpp"
#include "process/process.hpp"
#include "types/package_record.hpp"

namespace sf::package {

enum class RpathFix { rewrite, keep };
// rehash: recompute ELF build-ids from the final bytes (rehash_build_id), so
// that they do not depend on the build's paths, after zeroing the pid in
// nvcc's temp file names (normalize_nvcc_temp_names); what the engine builds.
enum class BuildIdFix { keep, rehash };

struct PostprocessOptions {
    std::string prefix;  // the build prefix as written into files; empty: the directory itself
    BinaryPrefix binary = BinaryPrefix::detect;  // ignore: binary files never, whatever `prefix_rules` say
    PrefixRules prefix_rules;                    // the recipe's prefix keys
    RpathFix rpath = RpathFix::rewrite;
    std::vector<std::string> rpaths{"lib"};   // build/rpaths: dirs every ELF file finds its libraries in
    std::vector<std::string> relocate_only;  // build/binary_relocation as a list of globs; empty: every file
    std::optional<LinkageOptions> linkage;   // set: check_linkage() after relocation; its errors fail
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
    LinkageReport linkage;  // when PostprocessOptions::linkage was set
};

Result<PostprocessReport> postprocess(const std::filesystem::path& dir, const PostprocessOptions& opts);

// The pieces, exposed for tests and for callers that want only one.

// Step 1. Returns the links it rewrote.
Result<std::vector<std::string>> fix_symlinks(const std::filesystem::path& dir, const std::string& prefix);

// Step 2 for one rpath string (conda-build's mk_relative_linux): `file_dir`
// is the ELF file's directory relative to the prefix. $ORIGIN entries stay;
// absolute entries inside the prefix become $ORIGIN-relative ("$ORIGIN/."
// for the file's own dir, as Python's relpath gives); absolute entries
// outside it are dropped (named in `dropped`), and so are relative ones;
// then each of `rpaths` is added ($ORIGIN-relative unless absolute).
// Deliberate difference: ${ORIGIN} entries stay too (conda-build drops them).
std::string relocate_rpath(const std::string& rpath, const std::string& prefix, const std::string& file_dir,
                           const std::vector<std::string>& rpaths, std::vector<std::string>* dropped = nullptr);

// Step 3 for one file (streamed; any size).
Result<std::optional<PrefixFile>> detect_prefix(const std::filesystem::path& file, const std::string& rel,
                                                const std::string& prefix, BinaryPrefix binary);

}  // namespace sf::package
