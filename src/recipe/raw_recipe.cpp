#include "recipe/raw_recipe.hpp"

#include "util/fs.hpp"
#include "util/strings.hpp"

namespace sf::recipe {
namespace {

int map_line(int line0, const std::vector<int>& line_map) {
    // yaml-cpp marks are 0-based.
    if (line_map.empty()) return line0 + 1;
    if (line0 >= 0 && static_cast<size_t>(line0) < line_map.size()) return line_map[line0];
    // Past the last line (an error at end of input): count on from it.
    return line_map.back() + line0 - static_cast<int>(line_map.size()) + 1;
}

// Bounds on what a YAML document may expand to through aliases: a recursive
// alias (`&e {a: *e}`) would never end, an alias bomb would take gigabytes.
constexpr std::size_t kMaxYamlNodes = 1'000'000;
constexpr std::size_t kMaxYamlDepth = 200;

struct Walk {
    const std::string& file;
    const std::vector<int>& line_map;
    Diagnostics* diag;
    bool aliases;                 // the text has anchors: look for cycles
    std::size_t nodes = 0;
    std::vector<std::size_t> open;  // positions of the collections being walked
};

Result<void> check_tree(const YAML::Node& node, Walk& w) {
    if (++w.nodes > kMaxYamlNodes) {
        return fail(SourceLoc{w.file}, "YAML expands to more than " + std::to_string(kMaxYamlNodes) +
                                           " nodes (through aliases?)",
                    "use fewer or smaller aliases");
    }
    if (!node.IsMap() && !node.IsSequence()) return {};
    auto mark = node.Mark();
    auto pos = static_cast<std::size_t>(mark.pos);
    if (w.open.size() >= kMaxYamlDepth)
        return fail(SourceLoc{w.file, map_line(mark.line, w.line_map), mark.column + 1},
                    "YAML nested more than " + std::to_string(kMaxYamlDepth) + " levels deep", "flatten the structure");
    if (w.aliases)
        for (std::size_t p : w.open)
            if (p == pos)
                return fail(SourceLoc{w.file, map_line(mark.line, w.line_map), mark.column + 1},
                            "recursive YAML alias: this node contains itself", "an alias may not refer to its own anchor's node");
    w.open.push_back(pos);
    if (node.IsMap()) {
        std::map<std::string, int> seen;
        for (auto it = node.begin(); it != node.end(); ++it) {
            YAML::Node key = it->first;
            std::string k = key.IsScalar() ? key.Scalar() : std::string("<complex key>");
            int line = map_line(key.Mark().line, w.line_map);
            auto [at, inserted] = seen.emplace(k, line);
            if (!inserted) {
                Error e{SourceLoc{w.file, line, key.Mark().column + 1},
                        "duplicate key '" + k + "' (first defined on line " + std::to_string(at->second) + ")",
                        "remove one, or give each a selector that excludes the other"};
                if (!w.diag || w.diag->strict()) return unexpected(std::move(e));
                e.message += ": the last one wins, as in conda-build";
                e.hint = "--strict makes this an error";
                w.diag->warn(e, e.loc.str());
                at->second = line;
            }
            if (!key.IsScalar())
                if (auto r = check_tree(key, w); !r) return r;
            if (auto r = check_tree(it->second, w); !r) return r;
        }
    } else {
        for (const auto& child : node)
            if (auto r = check_tree(child, w); !r) return r;
    }
    w.open.pop_back();
    return {};
}

}  // namespace

Result<void> check_text(const std::string& text, const std::string& file) {
    size_t bad = 0;
    if (!str::is_valid_utf8(text, &bad)) {
        int line = 1, col = 1;
        for (size_t i = 0; i < bad; ++i) {
            if (text[i] == '\n') {
                ++line;
                col = 1;
            } else {
                ++col;
            }
        }
        return fail(SourceLoc{file, line, col}, "invalid UTF-8 byte in recipe",
                    "save the file as UTF-8");
    }
    int line = 1;
    size_t start = 0;
    while (start <= text.size()) {
        size_t end = text.find('\n', start);
        if (end == std::string::npos) end = text.size();
        for (size_t i = start; i < end; ++i) {
            if (text[i] == ' ') continue;
            if (text[i] == '\t')
                return fail(SourceLoc{file, line, static_cast<int>(i - start) + 1},
                            "tab character in indentation", "YAML forbids tabs for indentation; use spaces");
            break;
        }
        ++line;
        start = end + 1;
    }
    return {};
}

Result<RawRecipe> RawRecipe::from_text(std::string text, std::string file) {
    if (auto r = check_text(text, file); !r) return unexpected(r.error());
    RawRecipe raw;
    raw.meta_file = std::move(file);
    raw.lines = split_selectors(text);
    raw.text = std::move(text);
    return raw;
}

Result<RawRecipe> RawRecipe::load(const std::filesystem::path& dir) {
    std::filesystem::path meta = dir / "meta.yaml";
    std::error_code ec;
    if (!std::filesystem::is_directory(dir, ec))
        return fail(SourceLoc{dir.string()}, "recipe directory not found",
                    "pass the folder that holds meta.yaml");
    if (!std::filesystem::exists(meta, ec))
        return fail(SourceLoc{meta.string()}, "no meta.yaml in recipe directory",
                    "splitforge reads conda-build style recipes (meta.yaml)");
    auto text = fs::read_input_file(meta);
    if (!text) return unexpected(text.error());
    auto raw = from_text(std::move(*text), meta.lexically_normal().string());
    if (!raw) return raw;
    raw->dir = dir;
    if (std::filesystem::exists(dir / "conda_build_config.yaml", ec))
        raw->config_file = dir / "conda_build_config.yaml";
    return raw;
}

const std::string* RawRecipe::script_text(const std::string& relative) const {
    if (dir.empty()) return nullptr;
    if (auto it = scripts_.find(relative); it != scripts_.end()) return it->second ? &*it->second : nullptr;
    std::error_code ec;
    auto p = dir / relative;
    std::optional<std::string> text;
    if (std::filesystem::is_regular_file(p, ec))
        if (auto t = fs::read_file(p)) text = std::move(*t);
    auto& kept = scripts_.emplace(relative, std::move(text)).first->second;
    return kept ? &*kept : nullptr;
}

std::string RawRecipe::display_path(const std::string& relative) const {
    return (dir / relative).lexically_normal().string();
}

Result<YAML::Node> parse_yaml(const std::string& text, const std::string& file,
                              const std::vector<int>& line_map, Diagnostics* diag) {
    YAML::Node node;
    try {
        node = YAML::Load(text);
    } catch (const YAML::Exception& e) {
        int line = e.mark.is_null() ? 0 : map_line(e.mark.line, line_map);
        int col = e.mark.is_null() ? 0 : e.mark.column + 1;
        return fail(SourceLoc{file, line, col}, "YAML error: " + e.msg,
                    "check indentation and quoting; Jinja has already been applied to this text");
    }
    Walk w{file, line_map, diag, text.find('&') != std::string::npos, 0, {}};
    if (auto r = check_tree(node, w); !r) return unexpected(r.error());
    return node;
}

}  // namespace sf::recipe
