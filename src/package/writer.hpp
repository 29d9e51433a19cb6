#pragma once
// The conda package writer: a directory of files (relative to the prefix)
// plus PackageMeta -> .conda (v2) and/or .tar.bz2 (v1). Reproducible: the
// same input and options give the same bytes.
#include <cstdint>
#include <filesystem>
#include <optional>
#include <vector>

#include "core/error.hpp"
#include "package/meta.hpp"
#include "package/postprocess.hpp"

namespace sf::package {

enum class Format { conda, tar_bz2, both };
Result<Format> parse_format(const std::string& s);  // "conda", "tar.bz2", "both"

struct WriteOptions {
    Format format = Format::conda;
    int zstd_level = 19;
    int threads = 1;      // zstd workers; the bytes written do not depend on it
    int bzip2_level = 9;
    // mtime of every archive member; default SOURCE_DATE_EPOCH, else the
    // package timestamp in seconds.
    std::optional<std::int64_t> mtime;
};

struct PackageInput {
    std::filesystem::path dir;             // the output's files, relative to the prefix
    PackageMeta meta;
    std::vector<PrefixFile> prefix_files;  // from postprocess(); may be empty
};

// Writes <out_dir>/<name>-<version>-<build>.conda and/or .tar.bz2 (each to a
// temp file in out_dir, then renamed). Returns the paths written.
Result<std::vector<std::filesystem::path>> write_package(const PackageInput& in, const std::filesystem::path& out_dir,
                                                         const WriteOptions& opts);

// The one packaging workflow (`splitforge package` and the engine alike):
// optional post-processing of `dir` (prefix detection, RPATH rewriting),
// then write_package(). Adding the result to a channel is the caller's step.
struct MakeOptions {
    WriteOptions write;
    std::optional<PostprocessOptions> postprocess;  // unset: files are packaged as they are
};

struct MadePackage {
    std::vector<std::filesystem::path> files;  // as write_package() returns them
    std::vector<std::string> warnings;         // from post-processing
    LinkageReport linkage;                     // the linkage checks' messages (no errors: those fail)
};

Result<MadePackage> make_package(const std::filesystem::path& dir, const PackageMeta& meta,
                                 const std::filesystem::path& out_dir, const MakeOptions& opts);

}  // namespace sf::package
