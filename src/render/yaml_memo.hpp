#pragma once
// Rendered meta.yaml -> Meta, memoized per top-level section (and per item of
// `outputs:`). Variants of one recipe render mostly the same text, and yaml-cpp
// is the slowest step of a render, so each distinct piece is parsed once.
// Anything unusual (anchors, documents markers, a repeated key, a parse error)
// falls back to parsing the whole text, which also gives the exact error.
#include <map>
#include <string>
#include <string_view>
#include <optional>
#include <unordered_map>
#include <vector>

#include "core/error.hpp"
#include "render/meta.hpp"

namespace sf::render {

class YamlMemo {
public:
    // `line_map` maps lines of `text` to source lines, for messages.
    Result<Meta> parse(const std::string& text, const std::string& file, const std::vector<int>& line_map,
                       Diagnostics* diag);

private:
    std::optional<Meta> parse_chunk(const std::string& chunk, const std::string& file);
    std::optional<Meta> parse_mapping(const std::vector<std::string_view>& lines, size_t a, size_t b, size_t indent,
                                      const std::string& file);
    std::optional<Meta> parse_items(const std::vector<std::string_view>& lines, size_t a, size_t b,
                                    const std::string& file);
    std::unordered_map<std::string, std::optional<Meta>> chunks_;
};

}  // namespace sf::render
