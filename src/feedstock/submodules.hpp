#pragma once
// `splitforge submodules`: bundled dependency versions upstream (git
// submodules, wheel metadata) next to the recipe's pins and the channel's
// newest version -- the table in the PyTorch feedstock README:
//   | Package | Upstream | Recipe | Channel | Source |
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/error.hpp"
#include "types/platform.hpp"

namespace sf::feedstock {

// One line of `git submodule status --recursive`, described.
struct Submodule {
    std::string path;    // relative to the source root, e.g. third_party/sleef
    std::string commit;  // full hash
    bool checked_out = true;
    std::string tag;     // nearest tag ("" when none)
    int past_tag = 0;    // commits past `tag`
    // "v3.1.0", "v2.1.0+705", or the short hash.
    std::string describe() const;
};

// Runs git (through the process wrapper) in `source`. Errors when `source`
// is not a git work tree.
Result<std::vector<Submodule>> read_submodules(const std::filesystem::path& source);

// Parses `git describe --tags --always --abbrev=7` output for `commit`.
void apply_describe(Submodule& s, const std::string& describe_output);

// The mapping file: submodule path -> conda name (null / "" hides one), and
// PyPI name -> conda name for wheel metadata.
struct NameMap {
    std::map<std::string, std::string> submodules;
    std::map<std::string, std::string> wheel;
};
Result<void> read_name_map(const std::filesystem::path& file, NameMap& into);  // later files override

// Requires-Dist of a wheel (.whl), an unpacked wheel / site-packages dir, or
// a METADATA file: PyPI name (normalized) -> version spec ("" when none).
// Requirements behind an `extra == ...` marker are left out.
Result<std::vector<std::pair<std::string, std::string>>> read_wheel_requirements(const std::filesystem::path& p);

// Newest version of each package over repodata.json files or channel dirs
// (<dir>/*/repodata.json).
Result<std::map<std::string, std::string>> newest_versions(const std::vector<std::filesystem::path>& sources);

struct DepRow {
    std::string package;   // conda name
    std::string upstream;  // "v3.1.0", "v3.6+12", "a1b2c3d", "==1.13.1"
    std::string upstream_version;  // what the pin is checked against ("" when unknown)
    std::string recipe;    // "" (not in the recipe), "*" (unpinned), or the pins
    std::string channel;   // newest version, or ""
    std::string source;    // "third_party/sleef" or "(wheel metadata)"
    bool mismatch = false; // a recipe pin excludes upstream_version
    std::string why;       // the pin that excludes it
    bool unmapped = false; // a submodule the name map does not name (package is "")
};

struct SubmoduleReport {
    std::vector<DepRow> rows;
    std::vector<std::string> unmapped;  // submodule paths with no conda name
    int submodules = 0;                 // in the source, hidden ones included
    std::string empty_why;              // why `rows` is empty, when it is
};

struct SubmoduleOptions {
    std::filesystem::path source;
    std::optional<std::filesystem::path> recipe_dir;
    types::Platform platform;  // default: this machine
    std::vector<std::filesystem::path> repodata;
    std::optional<std::filesystem::path> wheel;
    std::vector<std::filesystem::path> map_files;
};

Result<SubmoduleReport> submodule_report(const SubmoduleOptions& opts);

std::string report_markdown(const SubmoduleReport& r);
nlohmann::ordered_json report_json(const SubmoduleReport& r);

}  // namespace sf::feedstock
