#pragma once
// Rendered meta.yaml text -> Meta, through libyaml: the parser conda-build
// itself runs (metadata.py loads with yaml.CLoader), and 8x faster than
// yaml-cpp. Scalars stay strings, as conda-build's StringifyNumbersLoader
// keeps numbers; plain `~`, `null` and empty values are null. Merge keys
// (`<<`) merge as PyYAML merges them.
#include <string>
#include <vector>

#include "core/error.hpp"
#include "render/meta.hpp"

namespace sf::render {

// `line_map` maps lines of `text` to source lines (line i+1 of `text` came
// from source line line_map[i]). A duplicate key keeps its last value, with
// a warning in `diag`; without `diag`, or under --strict, it is an error.
// Aliases may expand to at most 1,000,000 nodes, nesting to 200 levels.
Result<Meta> load_yaml(const std::string& text, const std::string& file, const std::vector<int>& line_map = {},
                       Diagnostics* diag = nullptr);

}  // namespace sf::render
