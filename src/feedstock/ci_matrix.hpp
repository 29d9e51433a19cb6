#pragma once
// `splitforge ci-matrix`: the CI job matrix from the variant files in
// variants/. GitHub format: {"include": [{config, short_config, platform,
// runs-on, timeout-minutes}, ...]} on one line, ready for
// `echo "matrix=..." >> $GITHUB_OUTPUT` and `fromJSON()`. JSON format: the
// same jobs, pretty-printed, with each job's split keys.
#include <filesystem>
#include <string>

#include <nlohmann/json.hpp>

#include "core/error.hpp"

namespace sf::feedstock {

enum class MatrixFormat { github, json };

Result<nlohmann::ordered_json> ci_matrix_json(const std::filesystem::path& variants_dir, MatrixFormat format);

// The text to print (one line for github, indented for json), newline-terminated.
Result<std::string> ci_matrix(const std::filesystem::path& variants_dir, MatrixFormat format);

}  // namespace sf::feedstock
