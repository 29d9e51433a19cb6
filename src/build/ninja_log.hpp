#pragma once
// What a build step recompiled, from ninja's `.ninja_log` (v5: one
// "start<TAB>end<TAB>mtime<TAB>output<TAB>hash" line per finished edge,
// appended). The engine snapshots the logs under SRC_DIR before each step and
// reports the edges appended during it: that is how the megabuild claims
// (per-Python steps recompile no non-Python object) are checked.
#include <filesystem>
#include <map>
#include <string>
#include <vector>

namespace sf::build {

struct NinjaLogs {
    std::map<std::filesystem::path, size_t> lines;  // log file -> line count
};

// Every .ninja_log up to three levels below `src_dir`.
NinjaLogs snapshot_ninja_logs(const std::filesystem::path& src_dir);

// Outputs (relative to their build dir, in log order, repeats kept) of the
// edges appended since `before`. A log that shrank (ninja recompacted it) is
// read whole.
std::vector<std::string> ninja_edges_since(const std::filesystem::path& src_dir, const NinjaLogs& before);

}  // namespace sf::build
