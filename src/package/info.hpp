#pragma once
// The info/ folder of a conda package: paths.json records computed from the
// payload, and every generated info/ file, exactly as conda-formats.md says.
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "archive/write.hpp"
#include "package/meta.hpp"
#include "package/postprocess.hpp"
#include "types/package_record.hpp"

namespace sf::package {

using types::PathEntry;

// The payload of `dir`: every file, symlink and empty directory, sorted,
// excluding nothing. Errors if `dir` holds info/ or a symlink that is
// absolute or escapes the package.
Result<std::vector<archive::TarEntry>> payload_entries(const std::filesystem::path& dir);

// sha256/size for each payload entry (softlinks: of the target file when it
// is a regular file in the package, else of nothing), with prefix records.
Result<std::vector<PathEntry>> path_entries(const std::filesystem::path& dir,
                                             const std::vector<archive::TarEntry>& payload,
                                             const std::vector<PrefixFile>& prefix_files);

// The generated documents (each a complete file's text).
std::string index_json(const PackageMeta& m, std::int64_t timestamp_ms);
std::string paths_json(const std::vector<PathEntry>& records);
std::string files_list(const std::vector<PathEntry>& records);
std::string has_prefix(const std::vector<PathEntry>& records);  // empty when no prefix files
// build/no_link (conda-build's write_no_link and is_no_link): each file or
// link whose path matches one of the patterns (Python fnmatch: `*` crosses
// '/') is marked no_link, so the installer copies it; info/no_link lists them.
void mark_no_link(std::vector<PathEntry>& records, const std::vector<std::string>& patterns);
std::string no_link_list(const std::vector<PathEntry>& records);  // empty when none is marked
std::string about_json(const PackageMeta& m);
std::string run_exports_json(const types::RunExports& r);  // empty when r.empty()

// Every info/ entry, sorted by name.
Result<std::vector<archive::TarEntry>> info_entries(const PackageMeta& m, const std::vector<PathEntry>& records,
                                                    std::int64_t timestamp_ms);

}  // namespace sf::package
