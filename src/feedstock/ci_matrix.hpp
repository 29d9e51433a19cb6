#pragma once
// `splitforge ci-matrix`: the CI job matrix from the variant files in
// variants/. GitHub format: {"include": [{config, short_config, platform,
// runs-on, timeout-minutes}, ...]} on one line, ready for
// `echo "matrix=..." >> $GITHUB_OUTPUT` and `fromJSON()`. JSON format: the
// same jobs, pretty-printed, with each job's split keys. Text: one line per
// job. `--subset pr` keeps the covering subset (ci_cover.hpp): each job then
// carries `covers`, the key=values no other job of the subset holds.
#include <filesystem>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/error.hpp"
#include "feedstock/ci_cover.hpp"
#include "feedstock/ci_job.hpp"

namespace sf::feedstock {

enum class MatrixFormat { github, json, text };
enum class MatrixSubset { all, pr };

// The jobs of the PR subset, in name order, and why each is there.
struct PrSubset {
    std::vector<CiJob> jobs;                     // the subset
    std::vector<std::vector<std::string>> why;   // per job: the items only it covers
    Cover cover;                                 // indices into the full job list
    size_t total_jobs = 0, items = 0;
};
PrSubset pr_subset(const std::vector<CiJob>& jobs, const CoverLimits& limits = {});

Result<nlohmann::ordered_json> ci_matrix_json(const std::filesystem::path& variants_dir, MatrixFormat format,
                                              MatrixSubset subset = MatrixSubset::all);

// The text to print (one line for github, indented for json), newline-terminated.
Result<std::string> ci_matrix(const std::filesystem::path& variants_dir, MatrixFormat format,
                              MatrixSubset subset = MatrixSubset::all);

}  // namespace sf::feedstock
