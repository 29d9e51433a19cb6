#include "recipe/yaml_tree.hpp"

#include <map>

#include <yaml.h>

namespace sf::recipe {

const YamlNode* YamlNode::find(std::string_view key) const {
    for (const auto& [k, v] : pairs)
        if (k.is_scalar() && k.scalar == key) return &v;
    return nullptr;
}

namespace {

constexpr std::size_t kMaxNodes = 200'000;
constexpr std::size_t kMaxDepth = 200;

struct Event {
    yaml_event_t e{};
    Event() = default;
    Event(const Event&) = delete;
    Event& operator=(const Event&) = delete;
    ~Event() { yaml_event_delete(&e); }
};

std::size_t count_nodes(const YamlNode& n) {
    std::size_t c = 1;
    for (const auto& i : n.items) c += count_nodes(i);
    for (const auto& [k, v] : n.pairs) c += count_nodes(k) + count_nodes(v);
    return c;
}

std::string text_of(const yaml_char_t* s) { return s ? reinterpret_cast<const char*>(s) : ""; }

class Builder {
public:
    Builder(const std::string& text, const std::string& file, const std::vector<int>& line_map, Diagnostics* diag)
        : file_(file), line_map_(line_map), diag_(diag) {
        yaml_parser_initialize(&p_);
        yaml_parser_set_input_string(&p_, reinterpret_cast<const unsigned char*>(text.data()), text.size());
    }
    ~Builder() { yaml_parser_delete(&p_); }
    Builder(const Builder&) = delete;
    Builder& operator=(const Builder&) = delete;

    // The first document, as yaml-cpp's Load read it (config files have one).
    Result<YamlNode> document() {
        Event ev;
        if (auto r = next(ev); !r) return unexpected(r.error());  // STREAM-START
        if (auto r = next(ev); !r) return unexpected(r.error());
        if (ev.e.type == YAML_STREAM_END_EVENT) return YamlNode{};
        Event root;
        if (auto r = next(root); !r) return unexpected(r.error());
        auto out = node(root, 0);
        if (!out) return out;
        if (auto r = next(ev); !r) return unexpected(r.error());  // DOCUMENT-END: nothing left over
        return out;
    }

private:
    SourceLoc at(const yaml_mark_t& m) const {
        auto line0 = static_cast<int>(m.line);
        int line = line0 + 1;
        if (!line_map_.empty()) {
            if (static_cast<std::size_t>(line0) < line_map_.size())
                line = line_map_[static_cast<std::size_t>(line0)];
            else
                line = line_map_.back() + line0 - static_cast<int>(line_map_.size()) + 1;
        }
        return SourceLoc{file_, line, static_cast<int>(m.column) + 1};
    }

    Result<void> next(Event& ev) {
        yaml_event_delete(&ev.e);
        if (yaml_parser_parse(&p_, &ev.e)) return {};
        std::string msg = "YAML error: ";
        msg += p_.problem ? p_.problem : "cannot parse";
        if (p_.context) msg += std::string(" (") + p_.context + ")";
        return fail(at(p_.problem ? p_.problem_mark : p_.mark), msg,
                    "check indentation and quoting; Jinja has already been applied to this text");
    }

    Result<void> count(std::size_t n) {
        nodes_ += n;
        if (nodes_ <= kMaxNodes) return {};
        return fail(SourceLoc{file_}, "YAML expands to more than " + std::to_string(kMaxNodes) + " nodes (through aliases?)",
                    "use fewer or smaller aliases");
    }

    Result<YamlNode> node(Event& ev, std::size_t depth) {
        const yaml_event_t& e = ev.e;
        YamlNode out;
        out.line = static_cast<int>(e.start_mark.line);
        std::string anchor;
        switch (e.type) {
            case YAML_ALIAS_EVENT: {
                std::string a = text_of(e.data.alias.anchor);
                if (auto it = open_.find(a); it != open_.end())
                    return fail(at(it->second), "recursive YAML alias: this node contains itself",
                                "an alias may not refer to its own anchor's node");
                auto it = anchors_.find(a);
                if (it == anchors_.end())
                    return fail(at(e.start_mark), "YAML error: found undefined alias '" + a + "'",
                                "define the anchor (&" + a + ") before its alias");
                if (auto r = count(it->second.second); !r) return unexpected(r.error());
                return it->second.first;
            }
            case YAML_SCALAR_EVENT: {
                if (auto r = count(1); !r) return unexpected(r.error());
                std::string s(reinterpret_cast<const char*>(e.data.scalar.value), e.data.scalar.length);
                bool plain = e.data.scalar.style == YAML_PLAIN_SCALAR_STYLE && !e.data.scalar.tag;
                bool null = (plain && (s.empty() || s == "~" || s == "null" || s == "Null" || s == "NULL")) ||
                            text_of(e.data.scalar.tag) == "tag:yaml.org,2002:null";
                out.kind = null ? YamlNode::Kind::null : YamlNode::Kind::scalar;
                if (!null) out.scalar = std::move(s);
                anchor = text_of(e.data.scalar.anchor);
                if (!anchor.empty()) {
                    if (anchors_.count(anchor))
                        return fail(at(e.start_mark), "YAML error: found duplicate anchor '" + anchor + "'",
                                    "give each anchor its own name");
                    anchors_[anchor] = {out, 1};
                }
                return out;
            }
            case YAML_SEQUENCE_START_EVENT:
            case YAML_MAPPING_START_EVENT: break;
            default: return fail(at(e.start_mark), "YAML error: unexpected event", "check the YAML structure");
        }
        if (depth >= kMaxDepth)
            return fail(at(e.start_mark), "YAML nested more than " + std::to_string(kMaxDepth) + " levels deep",
                        "flatten the structure");
        if (auto r = count(1); !r) return unexpected(r.error());
        bool is_map = e.type == YAML_MAPPING_START_EVENT;
        anchor = text_of(is_map ? e.data.mapping_start.anchor : e.data.sequence_start.anchor);
        if (!anchor.empty()) {
            if (anchors_.count(anchor) || open_.count(anchor))
                return fail(at(e.start_mark), "YAML error: found duplicate anchor '" + anchor + "'",
                            "give each anchor its own name");
            open_.emplace(anchor, e.start_mark);
        }
        auto r = is_map ? mapping(out, depth) : sequence(out, depth);
        if (!r) return unexpected(r.error());
        if (!anchor.empty()) {
            open_.erase(anchor);
            anchors_[anchor] = {out, count_nodes(out)};
        }
        return out;
    }

    Result<void> sequence(YamlNode& out, std::size_t depth) {
        out.kind = YamlNode::Kind::sequence;
        while (true) {
            Event ev;
            if (auto r = next(ev); !r) return r;
            if (ev.e.type == YAML_SEQUENCE_END_EVENT) return {};
            auto item = node(ev, depth + 1);
            if (!item) return unexpected(item.error());
            out.items.push_back(std::move(*item));
        }
    }

    Result<void> mapping(YamlNode& out, std::size_t depth) {
        out.kind = YamlNode::Kind::mapping;
        std::map<std::string, int> seen;  // key -> line of its last definition
        while (true) {
            Event kev;
            if (auto r = next(kev); !r) return r;
            if (kev.e.type == YAML_MAPPING_END_EVENT) return {};
            SourceLoc key_at = at(kev.e.start_mark);
            auto key = node(kev, depth + 1);
            if (!key) return unexpected(key.error());
            if (key->is_scalar() || key->is_null()) {
                auto [it, inserted] = seen.emplace(key->scalar, key_at.line);
                if (!inserted) {
                    Error err{key_at, "duplicate key '" + key->scalar + "' (first defined on line " +
                                          std::to_string(it->second) + ")",
                              "remove one, or give each a selector that excludes the other"};
                    if (!diag_ || diag_->strict()) return unexpected(std::move(err));
                    err.message += ": the last one wins, as in conda-build";
                    err.hint = "--strict makes this an error";
                    diag_->warn(err, err.loc.str());
                    it->second = key_at.line;
                }
            }
            Event vev;
            if (auto r = next(vev); !r) return r;
            auto value = node(vev, depth + 1);
            if (!value) return unexpected(value.error());
            out.pairs.emplace_back(std::move(*key), std::move(*value));
        }
    }

    yaml_parser_t p_{};
    const std::string& file_;
    const std::vector<int>& line_map_;
    Diagnostics* diag_;
    std::size_t nodes_ = 0;
    std::map<std::string, std::pair<YamlNode, std::size_t>> anchors_;  // finished: node, node count
    std::map<std::string, yaml_mark_t> open_;                          // being built
};

}  // namespace

Result<YamlNode> parse_yaml_tree(const std::string& text, const std::string& file, const std::vector<int>& line_map,
                                 Diagnostics* diag) {
    Builder b(text, file, line_map, diag);
    return b.document();
}

}  // namespace sf::recipe
