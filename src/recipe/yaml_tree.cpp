#include "recipe/yaml_tree.hpp"

#include <map>

#include "recipe/yaml_reader.hpp"

namespace sf::recipe {

const YamlNode* YamlNode::find(std::string_view key) const {
    for (const auto& [k, v] : pairs)
        if (k.is_scalar() && k.scalar == key) return &v;
    return nullptr;
}

namespace {

std::size_t count_nodes(const YamlNode& n) {
    std::size_t c = 1;
    for (const auto& i : n.items) c += count_nodes(i);
    for (const auto& [k, v] : n.pairs) c += count_nodes(k) + count_nodes(v);
    return c;
}

class Builder {
public:
    Builder(const std::string& text, const std::string& file, const std::vector<int>& line_map, Diagnostics* diag,
            NullText nulls)
        : r_(text, file, line_map, diag), nulls_(nulls) {}

    // The first document, as yaml-cpp's Load read it (config files have one).
    Result<YamlNode> document() {
        YamlEvent root, end;
        auto any = r_.root(root);
        if (!any) return unexpected(any.error());
        if (!*any) return YamlNode{};  // empty text
        auto out = node(root, 0);
        if (!out) return out;
        if (auto r = r_.next(end); !r) return unexpected(r.error());  // DOCUMENT-END: nothing left over
        return out;
    }

private:
    Result<YamlNode> node(YamlEvent& ev, std::size_t depth) {
        const yaml_event_t& e = ev.e;
        YamlNode out;
        out.line = static_cast<int>(e.start_mark.line);
        out.col = static_cast<int>(e.start_mark.column);
        if (e.type == YAML_ALIAS_EVENT) return anchors_.alias(r_, e);
        if (e.type == YAML_SCALAR_EVENT) {
            if (auto r = r_.count(1); !r) return unexpected(r.error());
            bool null = yaml_null(e);
            out.kind = null ? YamlNode::Kind::null : YamlNode::Kind::scalar;
            if (!null || nulls_ == NullText::keep) out.scalar.assign(reinterpret_cast<const char*>(e.data.scalar.value), e.data.scalar.length);
            out.plain = e.data.scalar.style == YAML_PLAIN_SCALAR_STYLE;
            std::string anchor = yaml_text(e.data.scalar.anchor);
            if (auto r = anchors_.open(r_, anchor, e.start_mark); !r) return unexpected(r.error());
            anchors_.close(anchor, out, 1);
            return out;
        }
        bool is_map = e.type == YAML_MAPPING_START_EVENT;
        if (!is_map && e.type != YAML_SEQUENCE_START_EVENT)
            return fail(r_.at(e.start_mark), "YAML error: unexpected event", "check the YAML structure");
        if (auto r = r_.depth(depth, e.start_mark); !r) return unexpected(r.error());
        if (auto r = r_.count(1); !r) return unexpected(r.error());
        std::string anchor = yaml_text(is_map ? e.data.mapping_start.anchor : e.data.sequence_start.anchor);
        if (auto r = anchors_.open(r_, anchor, e.start_mark); !r) return unexpected(r.error());
        auto r = is_map ? mapping(out, depth) : sequence(out, depth);
        if (!r) return unexpected(r.error());
        anchors_.close(anchor, out, count_nodes(out));
        return out;
    }

    Result<void> sequence(YamlNode& out, std::size_t depth) {
        out.kind = YamlNode::Kind::sequence;
        while (true) {
            YamlEvent ev;
            if (auto r = r_.next(ev); !r) return r;
            if (ev.e.type == YAML_SEQUENCE_END_EVENT) return {};
            auto item = node(ev, depth + 1);
            if (!item) return unexpected(item.error());
            out.items.push_back(std::move(*item));
        }
    }

    Result<void> mapping(YamlNode& out, std::size_t depth) {
        out.kind = YamlNode::Kind::mapping;
        std::map<std::string, int> seen;
        while (true) {
            YamlEvent kev;
            if (auto r = r_.next(kev); !r) return r;
            if (kev.e.type == YAML_MAPPING_END_EVENT) return {};
            SourceLoc key_at = r_.at(kev.e.start_mark);
            auto key = node(kev, depth + 1);
            if (!key) return unexpected(key.error());
            if (!key->is_sequence() && !key->is_mapping())
                if (auto r = r_.key(seen, key->scalar, key_at); !r) return r;
            YamlEvent vev;
            if (auto r = r_.next(vev); !r) return r;
            auto value = node(vev, depth + 1);
            if (!value) return unexpected(value.error());
            out.pairs.emplace_back(std::move(*key), std::move(*value));
        }
    }

    YamlReader r_;
    NullText nulls_;
    YamlAnchors<YamlNode> anchors_;
};

}  // namespace

Result<YamlNode> parse_yaml_tree(const std::string& text, const std::string& file, const std::vector<int>& line_map,
                                 Diagnostics* diag, NullText nulls) {
    Builder b(text, file, line_map, diag, nulls);
    return b.document();
}

}  // namespace sf::recipe
