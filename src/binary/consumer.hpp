#pragma once
// The libtorch consumer program (demo/libtorch-consumer), compiled into the
// binary from the repository's files (src/CMakeLists.txt), so `splitforge
// check` builds the same program wherever it runs.
#include <string_view>
#include <utility>
#include <vector>

namespace sf::binary {

// (file name, text) of each source file.
const std::vector<std::pair<std::string_view, std::string_view>>& libtorch_consumer_sources();

}  // namespace sf::binary
