#pragma once
// PackageMeta: everything the package writer needs to know about one output
// besides its files. A plain value; the render/build stages fill it in.
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/error.hpp"
#include "types/platform.hpp"
#include "types/recipe_values.hpp"

namespace sf::package {

// A file placed under info/<dir>/: copied from `source`, or `content` when
// source is empty. `dest` is relative to that info/ subfolder.
struct ExtraFile {
    std::string dest;
    std::filesystem::path source;
    std::string content;
};

struct TestSpec {
    std::vector<std::string> commands;  // -> info/test/run_test.sh
    std::vector<std::string> requires_; // -> info/test/test_time_dependencies.json
    std::vector<ExtraFile> files;       // -> info/test/<dest>
};

struct PackageMeta {
    std::string name, version, build;
    int build_number = 0;
    std::vector<std::string> depends, constrains, track_features;
    types::Platform subdir;  // default: this machine
    types::NoArch noarch = types::NoArch::none;
    std::string license, license_family;
    // about.json
    std::string summary, description, home, dev_url, doc_url;
    std::vector<std::string> license_file_names;  // about.json "license_file"
    nlohmann::json extra = nlohmann::json::object();
    types::RunExports run_exports;
    nlohmann::json hash_input = nlohmann::json::object();
    TestSpec test;
    std::vector<ExtraFile> recipe_files;   // -> info/recipe/<dest>
    std::vector<ExtraFile> license_files;  // -> info/licenses/<dest>
    std::vector<std::string> no_link;      // build/no_link patterns (info.hpp mark_no_link)
    nlohmann::json index_extra = nlohmann::json::object();  // more index.json keys (features, ...), as given
    std::optional<std::int64_t> timestamp; // ms since epoch; see resolved_timestamp()
    std::string link_json;  // info/link.json (package::link_json); empty: none


    std::string stem() const { return name + "-" + version + "-" + build; }
};

// Checks name/version/build/subdir/noarch are present and well-formed.
Result<void> validate(const PackageMeta& m);

// The timestamp (ms) to write: m.timestamp, else timestamp::reproducible()
// of no inputs (SOURCE_DATE_EPOCH*1000, else 0; never the clock).
std::int64_t resolved_timestamp(const PackageMeta& m);

// Reads the fields above from a JSON object (the `--meta` file of the CLI).
// Unknown keys are errors, so typos do not pass silently.
Result<PackageMeta> meta_from_json(const nlohmann::json& j, const std::string& origin);

}  // namespace sf::package
