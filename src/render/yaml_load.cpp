#include "render/yaml_load.hpp"

#include <map>
#include <string_view>

#include "recipe/yaml_reader.hpp"

namespace sf::render {
namespace {

std::size_t count_nodes(const Meta& m) {
    std::size_t n = 1;
    if (m.is_structured())
        for (const auto& c : m) n += count_nodes(c);
    return n;
}

using recipe::YamlEvent;
using recipe::yaml_text;

class Loader {
public:
    Loader(const std::string& text, const std::string& file, const std::vector<int>& line_map, Diagnostics* diag)
        : r_(text, file, line_map, diag) {}

    Result<Meta> document() {
        YamlEvent root, ev;
        auto any = r_.root(root);
        if (!any) return unexpected(any.error());
        if (!*any) return Meta(nullptr);  // empty text
        auto out = node(root, 0);
        if (!out) return out;
        if (auto r = r_.next(ev); !r) return unexpected(r.error());  // DOCUMENT-END
        if (auto r = r_.next(ev); !r) return unexpected(r.error());
        if (ev.e.type != YAML_STREAM_END_EVENT)  // PyYAML's get_single_data
            return fail(r_.at(ev.e.start_mark), "YAML error: expected a single document in the stream, but found another document",
                        "remove the '---' line, or everything after it");
        return out;
    }

private:
    // The node that starts with `ev`, with `depth` collections open around it.
    Result<Meta> node(YamlEvent& ev, std::size_t depth) {
        const yaml_event_t& e = ev.e;
        switch (e.type) {
            case YAML_ALIAS_EVENT: return anchors_.alias(r_, e);
            case YAML_SCALAR_EVENT: {
                if (auto r = r_.count(1); !r) return unexpected(r.error());
                std::string anchor = yaml_text(e.data.scalar.anchor);
                if (auto r = anchors_.open(r_, anchor, e.start_mark); !r) return unexpected(r.error());
                Meta out = recipe::yaml_null(e) ? Meta(nullptr)
                                                : Meta(std::string(reinterpret_cast<const char*>(e.data.scalar.value),
                                                                   e.data.scalar.length));
                anchors_.close(anchor, out, 1);
                return out;
            }
            case YAML_SEQUENCE_START_EVENT:
            case YAML_MAPPING_START_EVENT: break;
            default: return fail(r_.at(e.start_mark), "YAML error: unexpected event", "check the YAML structure");
        }
        if (auto r = r_.depth(depth, e.start_mark); !r) return unexpected(r.error());
        if (auto r = r_.count(1); !r) return unexpected(r.error());
        bool is_map = e.type == YAML_MAPPING_START_EVENT;
        std::string anchor = yaml_text(is_map ? e.data.mapping_start.anchor : e.data.sequence_start.anchor);
        if (auto r = anchors_.open(r_, anchor, e.start_mark); !r) return unexpected(r.error());
        auto out = is_map ? mapping(depth) : sequence(depth);
        if (!out) return out;
        anchors_.close(anchor, *out, count_nodes(*out));
        return out;
    }

    Result<Meta> sequence(std::size_t depth) {
        Meta out = Meta::array();
        while (true) {
            YamlEvent ev;
            if (auto r = r_.next(ev); !r) return unexpected(r.error());
            if (ev.e.type == YAML_SEQUENCE_END_EVENT) return out;
            auto item = node(ev, depth + 1);
            if (!item) return item;
            out.push_back(std::move(*item));
        }
    }

    Result<Meta> mapping(std::size_t depth) {
        // Keys in order, with what `<<` merges in first (PyYAML's flatten_mapping).
        std::vector<std::pair<std::string, Meta>> merged, own;
        std::map<std::string, int> seen;  // key -> line of its last definition
        while (true) {
            YamlEvent kev;
            if (auto r = r_.next(kev); !r) return unexpected(r.error());
            if (kev.e.type == YAML_MAPPING_END_EVENT) break;
            bool merge_key = kev.e.type == YAML_SCALAR_EVENT && kev.e.data.scalar.style == YAML_PLAIN_SCALAR_STYLE &&
                             kev.e.data.scalar.length == 2 &&
                             std::string_view(reinterpret_cast<const char*>(kev.e.data.scalar.value), 2) == "<<";
            SourceLoc key_at = r_.at(kev.e.start_mark);
            auto key = node(kev, depth + 1);
            if (!key) return key;
            if (key->is_structured())
                return fail(key_at, "YAML error: found unhashable key (a mapping or list used as a key)",
                            "use a plain string as the key");
            YamlEvent vev;
            if (auto r = r_.next(vev); !r) return unexpected(r.error());
            SourceLoc value_at = r_.at(vev.e.start_mark);
            auto value = node(vev, depth + 1);
            if (!value) return value;
            if (merge_key) {
                if (auto r = merge(*value, value_at, merged); !r) return unexpected(r.error());
                continue;
            }
            std::string k = key->is_null() ? "null" : key->get<std::string>();
            if (auto r = r_.key(seen, k, key_at); !r) return unexpected(r.error());
            own.emplace_back(std::move(k), std::move(*value));
        }
        Meta out = Meta::object();
        for (auto& [k, v] : merged) out[k] = std::move(v);
        for (auto& [k, v] : own) out[k] = std::move(v);
        return out;
    }

    // `<<: *a` or `<<: [*a, *b]`: the earlier mapping of a list wins.
    Result<void> merge(const Meta& value, const SourceLoc& loc, std::vector<std::pair<std::string, Meta>>& merged) {
        auto bad = [&] {
            return fail(loc, "YAML error: a merge key (<<) needs a mapping or a list of mappings",
                        "merge an anchored mapping: <<: *name");
        };
        std::vector<const Meta*> maps;
        if (value.is_object()) {
            maps.push_back(&value);
        } else if (value.is_array()) {
            for (auto it = value.rbegin(); it != value.rend(); ++it) {
                if (!it->is_object()) return bad();
                maps.push_back(&*it);
            }
        } else {
            return bad();
        }
        for (const Meta* m : maps)
            for (const auto& [k, v] : m->items()) merged.emplace_back(k, v);
        return {};
    }

    recipe::YamlReader r_;
    recipe::YamlAnchors<Meta> anchors_;
};

}  // namespace

Result<Meta> load_yaml(const std::string& text, const std::string& file, const std::vector<int>& line_map,
                       Diagnostics* diag) {
    Loader loader(text, file, line_map, diag);
    return loader.document();
}

}  // namespace sf::render
