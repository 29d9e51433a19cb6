#include "render/yaml_memo.hpp"

#include <cctype>
#include <set>

#include "render/yaml_load.hpp"
#include "util/strings.hpp"

namespace sf::render {
namespace {

bool is_blank_or_comment(std::string_view line) {
    for (char c : line) {
        if (c == '#') return true;
        if (!std::isspace(static_cast<unsigned char>(c))) return false;
    }
    return true;
}

size_t indent_of(std::string_view line) {
    size_t i = 0;
    while (i < line.size() && line[i] == ' ') ++i;
    return i;
}

// What chunked parsing cannot handle: an anchor (`&name` where a node may
// start: after a space, '[', '{', ',' or at a line start), a document
// marker, a tab. `a && b` or `cuda & nvrtc` in a string are none of them.
bool needs_whole(const std::string& text) {
    if (text.find('\t') != std::string::npos) return true;
    for (size_t a = text.find('&'); a != std::string::npos; a = text.find('&', a + 1)) {
        char prev = a == 0 ? '\n' : text[a - 1];
        char next = a + 1 < text.size() ? text[a + 1] : ' ';
        bool starts_node = prev == '\n' || prev == ' ' || prev == '[' || prev == '{' || prev == ',';
        if (starts_node && (std::isalnum(static_cast<unsigned char>(next)) || next == '_' || next == '-')) return true;
    }
    for (size_t at = 0; at < text.size(); at = text.find('\n', at) + 1) {
        if (text.compare(at, 3, "---") == 0 || text.compare(at, 3, "...") == 0) return true;
        if (text.find('\n', at) == std::string::npos) break;
    }
    return false;
}

Result<Meta> parse_whole(const std::string& text, const std::string& file, const std::vector<int>& line_map,
                         Diagnostics* diag) {
    return load_yaml(text, file, line_map, diag);
}

// Key of a `key: ...` line at `indent`, or "" when the line is not one a
// section split can handle (flow collections, quoting, tags, merge keys).
std::string simple_key(std::string_view line, size_t indent) {
    size_t colon = line.find(':', indent);
    if (colon == std::string::npos) return "";
    std::string key(str::trim(line.substr(indent, colon - indent)));
    if (key.empty() || key == "<<") return "";
    for (char c : key)
        if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_' && c != '-' && c != '.') return "";
    return key;
}

}  // namespace

std::optional<Meta> YamlMemo::parse_chunk(const std::string& chunk, const std::string& file) {
    auto it = chunks_.find(chunk);
    if (it != chunks_.end()) return it->second;
    std::optional<Meta> out;
    if (auto m = load_yaml(chunk, file)) out = std::move(*m);
    chunks_.emplace(chunk, out);
    return out;
}

// A block mapping whose keys sit at column `indent` of lines [a, b), split
// into one memoized chunk per key. `outputs:` items are split the same way,
// one level down. nullopt: something this split cannot judge; the caller
// parses the whole text instead.
std::optional<Meta> YamlMemo::parse_mapping(const std::vector<std::string_view>& lines, size_t a, size_t b,
                                            size_t indent, const std::string& file) {
    std::vector<std::pair<size_t, size_t>> sections;
    for (size_t i = a; i < b; ++i) {
        std::string_view l = lines[i];
        if (is_blank_or_comment(l)) continue;
        size_t ind = indent_of(l);
        if (ind < indent) return std::nullopt;
        if (ind > indent) {
            if (sections.empty()) return std::nullopt;
            continue;
        }
        if (simple_key(l, indent).empty()) return std::nullopt;
        if (!sections.empty()) sections.back().second = i;
        sections.emplace_back(i, b);
    }
    auto join = [&](size_t from, size_t to) {
        std::string s;
        for (size_t i = from; i < to; ++i) {
            // Blank and comment lines may sit left of the column: keep their text.
            std::string_view l = lines[i];
            s += indent_of(l) >= indent ? l.substr(indent) : str::trim(l);
            s += '\n';
        }
        return s;
    };
    Meta out = Meta::object();
    for (auto [s0, s1] : sections) {
        std::string key = simple_key(lines[s0], indent);
        if (out.contains(key)) return std::nullopt;  // a repeated key: the whole parse gives the exact error
        std::string rest(str::trim(lines[s0].substr(lines[s0].find(':') + 1)));
        if (key == "outputs" && rest.empty() && indent == 0) {
            auto items = parse_items(lines, s0 + 1, s1, file);
            if (!items) return std::nullopt;
            out["outputs"] = std::move(*items);
            continue;
        }
        auto chunk = parse_chunk(join(s0, s1), file);
        if (!chunk || !chunk->is_object() || chunk->size() != 1 || !chunk->contains(key)) return std::nullopt;
        out[key] = std::move((*chunk)[key]);
    }
    return out;
}

// The items of the `outputs:` list in lines [a, b): each a mapping, split by key.
std::optional<Meta> YamlMemo::parse_items(const std::vector<std::string_view>& lines, size_t a, size_t b,
                                          const std::string& file) {
    size_t item_indent = std::string::npos;
    std::vector<size_t> starts;
    for (size_t i = a; i < b; ++i) {
        if (is_blank_or_comment(lines[i])) continue;
        size_t ind = indent_of(lines[i]);
        if (item_indent == std::string::npos) item_indent = ind;
        if (ind < item_indent) return std::nullopt;
        if (ind == item_indent) {
            if (lines[i].compare(ind, 2, "- ") != 0) return std::nullopt;
            starts.push_back(i);
        }
    }
    if (starts.empty()) return Meta(nullptr);
    Meta items = Meta::array();
    for (size_t k = 0; k < starts.size(); ++k) {
        size_t end = k + 1 < starts.size() ? starts[k + 1] : b;
        // "  - name: x" becomes "    name: x": the item's keys then share one column.
        std::vector<std::string_view> item(lines.begin() + static_cast<long>(starts[k]),
                                           lines.begin() + static_cast<long>(end));
        std::string first(item[0]);
        first[item_indent] = ' ';
        item[0] = first;
        size_t key_indent = indent_of(item[0]);
        if (key_indent >= item[0].size() || key_indent != item_indent + 2) return std::nullopt;
        auto m = parse_mapping(item, 0, item.size(), key_indent, file);
        if (!m) return std::nullopt;
        items.push_back(std::move(*m));
    }
    return items;
}

Result<Meta> YamlMemo::parse(const std::string& text, const std::string& file, const std::vector<int>& line_map,
                             Diagnostics* diag) {
    if (needs_whole(text)) return parse_whole(text, file, line_map, diag);
    auto lines = str::split_line_views(text);
    auto out = parse_mapping(lines, 0, lines.size(), 0, file);
    if (!out) return parse_whole(text, file, line_map, diag);
    return std::move(*out);
}

}  // namespace sf::render
