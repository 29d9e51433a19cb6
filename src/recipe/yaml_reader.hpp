#pragma once
// libyaml's event parser (the one conda-build's yaml.CLoader runs) with our
// errors and bounds. Two trees are built from its events: recipe::YamlNode
// (config files, with lines) and render's Meta (rendered recipes).
#include <cstddef>
#include <map>
#include <string>
#include <vector>

#include <yaml.h>

#include "core/diagnostics.hpp"
#include "core/error.hpp"

namespace sf::recipe {

struct YamlEvent {
    yaml_event_t e{};
    YamlEvent() = default;
    YamlEvent(const YamlEvent&) = delete;
    YamlEvent& operator=(const YamlEvent&) = delete;
    ~YamlEvent() { yaml_event_delete(&e); }
};

class YamlReader {
public:
    static constexpr std::size_t kMaxNodes = 1'000'000;  // through aliases: an alias bomb stops here
    static constexpr std::size_t kMaxDepth = 200;

    // `line_map`: line i+1 of `text` came from source line line_map[i].
    YamlReader(const std::string& text, const std::string& file, const std::vector<int>& line_map, Diagnostics* diag);
    ~YamlReader();
    YamlReader(const YamlReader&) = delete;
    YamlReader& operator=(const YamlReader&) = delete;

    Result<void> next(YamlEvent& ev);  // a parse error at file:line:col
    // Past the stream and document starts to the first event of the first
    // document's root node; false when the text holds no document.
    Result<bool> root(YamlEvent& first);
    SourceLoc at(const yaml_mark_t& m) const;
    Result<void> count(std::size_t nodes);                       // the alias-expansion bound
    Result<void> depth(std::size_t open, const yaml_mark_t& m) const;  // the nesting bound
    // A key seen again in one mapping: the last one wins with a warning, or
    // an error without `diag` or under --strict. `seen`: key -> line.
    Result<void> key(std::map<std::string, int>& seen, const std::string& key, const SourceLoc& loc);

    Error recursive_alias(const yaml_mark_t& anchored) const;
    Error undefined_alias(const yaml_mark_t& m, const std::string& name) const;
    Error duplicate_anchor(const yaml_mark_t& m, const std::string& name) const;

private:
    yaml_parser_t p_{};
    const std::string& file_;
    const std::vector<int>& line_map_;
    Diagnostics* diag_;
    std::size_t nodes_ = 0;
};

// The text of a libyaml string (anchor, tag), "" for none.
inline std::string yaml_text(const yaml_char_t* s) { return s ? reinterpret_cast<const char*>(s) : ""; }

// A scalar event read as null: plain `~`, `null`, `Null`, `NULL` or nothing
// (yaml-cpp's reading, which our trees keep), or an explicit !!null.
bool yaml_null(const yaml_event_t& scalar);

// The anchors of one document, for either tree: a name is open while its
// node is built (an alias to it then is recursive) and an alias target after.
template <typename Node>
class YamlAnchors {
public:
    Result<void> open(const YamlReader& r, const std::string& name, const yaml_mark_t& m) {
        if (name.empty()) return {};
        if (done_.count(name) || open_.count(name)) return unexpected(r.duplicate_anchor(m, name));
        open_.emplace(name, m);
        return {};
    }
    // `nodes`: the node's size, charged to the expansion bound at each alias.
    void close(const std::string& name, const Node& n, std::size_t nodes) {
        if (name.empty()) return;
        open_.erase(name);
        done_[name] = {n, nodes};
    }
    Result<Node> alias(YamlReader& r, const yaml_event_t& e) const {
        std::string a = yaml_text(e.data.alias.anchor);
        if (auto it = open_.find(a); it != open_.end()) return unexpected(r.recursive_alias(it->second));
        auto it = done_.find(a);
        if (it == done_.end()) return unexpected(r.undefined_alias(e.start_mark, a));
        if (auto c = r.count(it->second.second); !c) return unexpected(c.error());
        return it->second.first;
    }

private:
    std::map<std::string, std::pair<Node, std::size_t>> done_;
    std::map<std::string, yaml_mark_t> open_;
};

}  // namespace sf::recipe
