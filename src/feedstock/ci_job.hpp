#pragma once
// One CI job = one variant file in variants/ (conda-smithy's .ci_support
// files): every used key with its values for the job, zip_keys, the target
// platform, and the runner label / timeout the CI matrix needs. This file is
// the model, its naming rules and its YAML form; rerender.cpp builds jobs.
#include <filesystem>
#include <string>
#include <utility>
#include <vector>

#include "core/error.hpp"

namespace sf::feedstock {

// Variant keys that only carry CI settings; lint never calls them unused.
inline constexpr const char* kRunnerKey = "github_actions_labels";   // conda-forge's key
inline constexpr const char* kTimeoutKey = "ci_timeout_minutes";
inline constexpr int kDefaultTimeoutMinutes = 360;  // GitHub-hosted runners' maximum

struct CiJob {
    std::string name;        // file stem, conda-smithy's config_name
    std::string short_name;  // at most 48 characters, for CI job titles
    std::string platform;    // target platform, e.g. linux-64
    // (key, values) sorted by key; target_platform and the CI keys included.
    std::vector<std::pair<std::string, std::vector<std::string>>> keys;
    std::vector<std::vector<std::string>> zip_keys;  // groups of keys in this file
    std::vector<std::pair<std::string, std::string>> split;  // the keys that made this job, and their values
    std::string runner;
    int timeout_minutes = kDefaultTimeoutMinutes;
    // Known to rerender from the recipe, not written to the file (the
    // workflow writer reads them):
    bool gpu = false;                  // every cuda_compiler_version set and not None
    std::string time_limit;            // staging --time-limit ("5h30m"), or ""
    int resume_jobs = 0;               // chained resume jobs when time_limit is set
    std::vector<std::string> outputs;  // the names of its outputs, sorted

    const std::vector<std::string>* values(const std::string& key) const;
};

// conda-smithy's config_name: "<platform>_<arch>_" + sorted "<key><value>"
// over the split keys (target_platform left out), '*', ' ' and anything
// unsafe in a file name turned into '_'.
std::string config_name(const std::string& platform,
                        std::vector<std::pair<std::string, std::string>> split);
// conda-smithy's shortening: names of 49+ characters become the first 35
// characters + "_h" + 10 hex digits of the full name's sha256.
std::string short_config_name(const std::string& name);
// The file stem: the full name unless "conda-forge-build-done-<name>" would
// reach 250 characters (file name limits), then the short name.
std::string file_stem(const std::string& name);

// The file's text: a header comment, then the keys (sorted), zip_keys.
// Deterministic: same job, same bytes.
std::string job_yaml(const CiJob& job);

// Reads a variant file back (ci-matrix, lint, build-locally). The name is the
// file stem; platform, runner and timeout come from their keys.
Result<CiJob> read_job_file(const std::filesystem::path& file);

// Every *.yaml in `dir`, sorted by name. Errors when `dir` does not exist.
Result<std::vector<std::filesystem::path>> job_files(const std::filesystem::path& dir);

// The runner label GitHub offers for `platform` when the recipe names none.
std::string default_runner(const std::string& platform);

}  // namespace sf::feedstock
