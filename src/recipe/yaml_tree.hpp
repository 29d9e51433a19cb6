#pragma once
// YAML text -> a plain tree with source positions, through libyaml (the
// parser conda-build's yaml.CLoader runs). For config files, whose readers
// need each node's line for their messages. Scalars stay text; plain `~`,
// `null` and empty values are null nodes (yaml-cpp's reading, kept so
// that configs read as before). Mappings keep their pairs in order,
// repeated keys included (a reader decides; most let the last one win).
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/diagnostics.hpp"
#include "core/error.hpp"

namespace sf::recipe {

struct YamlNode {
    enum class Kind { null, scalar, sequence, mapping };
    Kind kind = Kind::null;
    std::string scalar;                                 // Kind::scalar
    std::vector<YamlNode> items;                        // Kind::sequence
    std::vector<std::pair<YamlNode, YamlNode>> pairs;  // Kind::mapping
    int line = 0;                                      // 0-based line in the parsed text
    int col = 0;                                       // 0-based column
    // A plain (unquoted) scalar: recipe.yaml and rattler-build's variant
    // files read `false` or `3` typed only when plain.
    bool plain = false;

    bool is_null() const { return kind == Kind::null; }
    bool is_scalar() const { return kind == Kind::scalar; }
    bool is_sequence() const { return kind == Kind::sequence; }
    bool is_mapping() const { return kind == Kind::mapping; }
    // The value of the first pair whose key is the scalar `key`, or null.
    const YamlNode* find(std::string_view key) const;
};

// Whether a null scalar (`~`, `null`, `NULL`, an empty value) keeps its text
// in `scalar`: rattler-build's marked_yaml resolves no nulls, so its context
// and variants.yaml read `~` as the text "~".
enum class NullText { drop, keep };

// As parse_yaml: errors and the duplicate-key warning at file:line:col
// through `line_map`, aliases bounded to 1,000,000 nodes, nesting to 200.
Result<YamlNode> parse_yaml_tree(const std::string& text, const std::string& file,
                                 const std::vector<int>& line_map = {}, Diagnostics* diag = nullptr,
                                 NullText nulls = NullText::drop);

}  // namespace sf::recipe
