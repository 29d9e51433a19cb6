#pragma once
// The recipe keys that steer prefix detection, with conda-build 24.11's
// semantics (build.py get_files_with_prefix and record_prefix_files,
// metadata.py expand_globs):
//   ignore_prefix_files: true (every file) or paths/globs left alone;
//   has_prefix_files: when given, the only text files recorded (a listed
//     file holding a NUL byte is recorded as text only where binary files
//     are not detected: binary_has_prefix_files given, detection not asked);
//   binary_has_prefix_files: files recorded as binary; when given, other
//     binary files are left alone unless detect_binary_files_with_prefix
//     says detect;
//   detect_binary_files_with_prefix: false (and no binary list) leaves
//     every binary file alone.
// A file either list names that does not hold the prefix is an error, as
// in conda-build ("Did not detect hard-coded path in ...").
// Deliberate difference: globs expand over the output's files, where
// conda-build expands them over the whole host prefix (a glob matching a
// dependency's file is an error there).
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "core/error.hpp"
#include "types/package_record.hpp"

namespace sf::package {

struct PrefixFile {
    std::string path;         // relative to the package root
    std::string placeholder;  // the prefix string found in it
    types::FileMode mode = types::FileMode::text;
};

enum class BinaryPrefix { detect, ignore };  // detect_binary_files_with_prefix
enum class IgnorePrefix { listed, all };     // ignore_prefix_files: a list, or true

struct PrefixRules {
    IgnorePrefix ignore = IgnorePrefix::listed;
    std::vector<std::string> ignore_files;       // paths or globs, relative to the prefix
    std::vector<std::string> text_files;         // has_prefix_files
    std::vector<std::string> binary_files;       // binary_has_prefix_files
    std::optional<BinaryPrefix> detect_binary;   // unset: detect unless binary_files is given
    bool empty() const {
        return ignore == IgnorePrefix::listed && ignore_files.empty() && text_files.empty() &&
               binary_files.empty() && !detect_binary;
    }
};

// Python's glob.glob(pattern, recursive=True) over `files` (relative,
// '/'-separated): `*`, `?` and `[...]` stay within one component and skip
// names starting with '.', `**` as a whole component spans any number of
// them. A pattern naming a file gives it, one naming a directory every file
// below it (expand_globs' walk).
bool glob_matches(const std::string& rel, const std::string& pattern);
std::set<std::string> expand_globs(const std::vector<std::string>& patterns, const std::vector<std::string>& files);

// The files a scan skips before looking inside: *.pyc/*.pyo (conda-build's
// prefix_replacement_excluded) and what ignore_prefix_files names.
class PrefixScan {
public:
    PrefixScan(const PrefixRules& rules, const std::vector<std::string>& files, BinaryPrefix caller);
    bool skips(const std::string& rel) const;
    BinaryPrefix binary() const { return binary_; }  // whether binary files are looked at all
    // record_prefix_files: `found` (every file holding the prefix, its mode
    // as detected) filtered and re-moded by the lists; an error naming the
    // first listed file that was not found.
    Result<std::vector<PrefixFile>> record(std::vector<PrefixFile> found) const;

private:
    const PrefixRules& rules_;
    std::set<std::string> ignored_, text_, binary_files_;
    BinaryPrefix binary_ = BinaryPrefix::detect;
};

}  // namespace sf::package
