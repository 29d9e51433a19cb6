#pragma once
// What a build step recompiled, from ninja's `.ninja_log` (v5: one
// "start<TAB>end<TAB>mtime<TAB>output<TAB>hash" line per finished edge,
// appended). The engine snapshots the logs under SRC_DIR before each step and
// reports the edges recorded during it: that is how the megabuild claims
// (per-Python steps recompile no non-Python object) are checked.
#include <filesystem>
#include <map>
#include <set>
#include <string>
#include <vector>

namespace sf::script {

struct NinjaLogs {
    std::map<std::filesystem::path, std::set<std::string>> lines;  // log file -> its entry lines
};

// Every .ninja_log up to three levels below `src_dir`.
NinjaLogs snapshot_ninja_logs(const std::filesystem::path& src_dir);

// Outputs (as `<build dir>/<output>`, the build dir relative to `src_dir`;
// in log order, repeats kept) of the
// entries that are not in `before`. CMake recompacts the log when it
// regenerates (`ninja -t recompact`), which rewrites the file but keeps each
// surviving entry's text, so comparing entry lines (not offsets) is exact.
std::vector<std::string> ninja_edges_since(const std::filesystem::path& src_dir, const NinjaLogs& before);

}  // namespace sf::script
