#include "render/yaml_load.hpp"

#include <map>
#include <memory>
#include <set>

#include <yaml.h>

namespace sf::render {
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

std::size_t count_nodes(const Meta& m) {
    std::size_t n = 1;
    if (m.is_structured())
        for (const auto& c : m) n += count_nodes(c);
    return n;
}

class Loader {
public:
    Loader(const std::string& text, const std::string& file, const std::vector<int>& line_map, Diagnostics* diag)
        : file_(file), line_map_(line_map), diag_(diag) {
        yaml_parser_initialize(&p_);
        yaml_parser_set_input_string(&p_, reinterpret_cast<const unsigned char*>(text.data()), text.size());
    }
    ~Loader() { yaml_parser_delete(&p_); }
    Loader(const Loader&) = delete;
    Loader& operator=(const Loader&) = delete;

    Result<Meta> document() {
        Event ev;
        if (auto r = next(ev); !r) return unexpected(r.error());  // STREAM-START
        if (auto r = next(ev); !r) return unexpected(r.error());
        if (ev.e.type == YAML_STREAM_END_EVENT) return Meta(nullptr);  // empty text
        Event root;
        if (auto r = next(root); !r) return unexpected(r.error());
        auto out = node(root, 0);
        if (!out) return out;
        if (auto r = next(ev); !r) return unexpected(r.error());  // DOCUMENT-END
        if (auto r = next(ev); !r) return unexpected(r.error());
        if (ev.e.type != YAML_STREAM_END_EVENT)  // PyYAML's get_single_data
            return fail(at(ev.e.start_mark), "YAML error: expected a single document in the stream, but found another document",
                        "remove the '---' line, or everything after it");
        return out;
    }

private:
    SourceLoc at(const yaml_mark_t& m) const {
        auto line0 = static_cast<int>(m.line);
        int line = line0 + 1;
        if (!line_map_.empty()) {
            if (static_cast<std::size_t>(line0) < line_map_.size())
                line = line_map_[static_cast<std::size_t>(line0)];
            else  // past the last line (an error at end of input): count on from it
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

    Result<void> anchor(const yaml_char_t* name, const yaml_mark_t& mark) {
        if (!name) return {};
        std::string a(reinterpret_cast<const char*>(name));
        if (anchors_.count(a) || open_.count(a))
            return fail(at(mark), "YAML error: found duplicate anchor '" + a + "'", "give each anchor its own name");
        open_.emplace(a, mark);
        return {};
    }

    void close(const yaml_char_t* name, const Meta& value) {
        if (!name) return;
        std::string a(reinterpret_cast<const char*>(name));
        open_.erase(a);
        anchors_[a] = {value, count_nodes(value)};
    }

    // The node that starts with `ev`, with `depth` collections open around it.
    Result<Meta> node(Event& ev, std::size_t depth) {
        const yaml_event_t& e = ev.e;
        switch (e.type) {
            case YAML_ALIAS_EVENT: {
                std::string a(reinterpret_cast<const char*>(e.data.alias.anchor));
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
                if (auto r = anchor(e.data.scalar.anchor, e.start_mark); !r) return unexpected(r.error());
                std::string s(reinterpret_cast<const char*>(e.data.scalar.value), e.data.scalar.length);
                std::string tag = e.data.scalar.tag ? reinterpret_cast<const char*>(e.data.scalar.tag) : "";
                bool plain = e.data.scalar.style == YAML_PLAIN_SCALAR_STYLE && tag.empty();
                Meta out = (plain && (s.empty() || s == "~" || s == "null" || s == "Null" || s == "NULL")) ||
                                   tag == "tag:yaml.org,2002:null"
                               ? Meta(nullptr)
                               : Meta(std::move(s));
                close(e.data.scalar.anchor, out);
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
        const yaml_char_t* name = is_map ? e.data.mapping_start.anchor : e.data.sequence_start.anchor;
        // The anchor name outlives `ev` (its event is re-used below).
        std::string anchor_name = name ? reinterpret_cast<const char*>(name) : "";
        if (auto r = anchor(name, e.start_mark); !r) return unexpected(r.error());
        auto out = is_map ? mapping(depth) : sequence(depth);
        if (!out) return out;
        if (!anchor_name.empty()) close(reinterpret_cast<const yaml_char_t*>(anchor_name.c_str()), *out);
        return out;
    }

    Result<Meta> sequence(std::size_t depth) {
        Meta out = Meta::array();
        while (true) {
            Event ev;
            if (auto r = next(ev); !r) return unexpected(r.error());
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
            Event kev;
            if (auto r = next(kev); !r) return unexpected(r.error());
            if (kev.e.type == YAML_MAPPING_END_EVENT) break;
            bool merge_key = kev.e.type == YAML_SCALAR_EVENT && kev.e.data.scalar.style == YAML_PLAIN_SCALAR_STYLE &&
                             kev.e.data.scalar.length == 2 &&
                             std::string_view(reinterpret_cast<const char*>(kev.e.data.scalar.value), 2) == "<<";
            SourceLoc key_at = at(kev.e.start_mark);
            auto key = node(kev, depth + 1);
            if (!key) return key;
            if (key->is_structured())
                return fail(key_at, "YAML error: found unhashable key (a mapping or list used as a key)",
                            "use a plain string as the key");
            Event vev;
            if (auto r = next(vev); !r) return unexpected(r.error());
            SourceLoc value_at = at(vev.e.start_mark);
            auto value = node(vev, depth + 1);
            if (!value) return value;
            if (merge_key) {
                if (auto r = merge(*value, value_at, merged); !r) return unexpected(r.error());
                continue;
            }
            std::string k = key->is_null() ? "null" : key->get<std::string>();
            auto [it, inserted] = seen.emplace(k, key_at.line);
            if (!inserted) {
                Error err{key_at, "duplicate key '" + k + "' (first defined on line " + std::to_string(it->second) + ")",
                          "remove one, or give each a selector that excludes the other"};
                if (!diag_ || diag_->strict()) return unexpected(std::move(err));
                err.message += ": the last one wins, as in conda-build";
                err.hint = "--strict makes this an error";
                diag_->warn(err, err.loc.str());
                it->second = key_at.line;
            }
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

    yaml_parser_t p_{};
    const std::string& file_;
    const std::vector<int>& line_map_;
    Diagnostics* diag_;
    std::size_t nodes_ = 0;
    std::map<std::string, std::pair<Meta, std::size_t>> anchors_;  // finished: value, node count
    std::map<std::string, yaml_mark_t> open_;                       // being built
};

}  // namespace

Result<Meta> load_yaml(const std::string& text, const std::string& file, const std::vector<int>& line_map,
                       Diagnostics* diag) {
    Loader loader(text, file, line_map, diag);
    return loader.document();
}

}  // namespace sf::render
