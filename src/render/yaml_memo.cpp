#include "render/yaml_memo.hpp"

#include <cctype>
#include <set>

#include "util/strings.hpp"

namespace sf::render {
namespace {

bool is_blank_or_comment(const std::string& line) {
    auto t = str::trim(line);
    return t.empty() || t.front() == '#';
}

size_t indent_of(const std::string& line) {
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
    auto node = recipe::parse_yaml(text, file, line_map, diag);
    if (!node) return unexpected(node.error());
    return yaml_to_meta(*node);
}

}  // namespace

std::optional<Meta> YamlMemo::parse_chunk(const std::string& chunk, const std::string& file) {
    auto it = chunks_.find(chunk);
    if (it != chunks_.end()) return it->second;
    std::optional<Meta> out;
    if (auto node = recipe::parse_yaml(chunk, file)) out = yaml_to_meta(*node);
    chunks_.emplace(chunk, out);
    return out;
}

Result<Meta> YamlMemo::parse(const std::string& text, const std::string& file, const std::vector<int>& line_map,
                             Diagnostics* diag) {
    if (needs_whole(text)) return parse_whole(text, file, line_map, diag);
    auto lines = str::split_lines(text);
    // Top-level sections: a key at column 0 up to the next one.
    std::vector<std::pair<size_t, size_t>> sections;
    for (size_t i = 0; i < lines.size(); ++i) {
        const std::string& l = lines[i];
        if (is_blank_or_comment(l) || l[0] == ' ') continue;
        if (l[0] == '-' || l[0] == '%' || l.find(':') == std::string::npos) return parse_whole(text, file, line_map, diag);
        if (!sections.empty()) sections.back().second = i;
        sections.emplace_back(i, lines.size());
    }
    Meta out = Meta::object();
    std::set<std::string> seen;
    auto join = [&](size_t a, size_t b) {
        std::string s;
        for (size_t i = a; i < b; ++i) s += lines[i] + '\n';
        return s;
    };
    for (auto [a, b] : sections) {
        std::string key(str::trim(lines[a].substr(0, lines[a].find(':'))));
        if (!seen.insert(key).second) return parse_whole(text, file, line_map, diag);  // duplicate: exact error
        std::string rest(str::trim(lines[a].substr(lines[a].find(':') + 1)));
        if (key == "outputs" && rest.empty()) {
            // Items of the outputs list, each parsed (and memoized) on its own.
            size_t item_indent = std::string::npos;
            std::vector<size_t> starts;
            for (size_t i = a + 1; i < b; ++i) {
                if (is_blank_or_comment(lines[i])) continue;
                size_t ind = indent_of(lines[i]);
                if (item_indent == std::string::npos) item_indent = ind;
                if (ind < item_indent) return parse_whole(text, file, line_map, diag);
                if (ind == item_indent) {
                    if (lines[i].compare(ind, 2, "- ") != 0 && lines[i].substr(ind) != "-") return parse_whole(text, file, line_map, diag);
                    starts.push_back(i);
                }
            }
            Meta items = Meta::array();
            for (size_t k = 0; k < starts.size(); ++k) {
                size_t end = k + 1 < starts.size() ? starts[k + 1] : b;
                auto item = parse_chunk(join(starts[k], end), file);
                if (!item || !item->is_array() || item->size() != 1) return parse_whole(text, file, line_map, diag);
                items.push_back((*item)[0]);
            }
            out["outputs"] = starts.empty() ? Meta(nullptr) : items;
            continue;
        }
        auto chunk = parse_chunk(join(a, b), file);
        if (!chunk || !chunk->is_object() || !chunk->contains(key)) return parse_whole(text, file, line_map, diag);
        out[key] = (*chunk)[key];
    }
    return out;
}

}  // namespace sf::render
