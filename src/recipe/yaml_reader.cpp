#include "recipe/yaml_reader.hpp"

#include <string_view>

namespace sf::recipe {

YamlReader::YamlReader(const std::string& text, const std::string& file, const std::vector<int>& line_map,
                       Diagnostics* diag)
    : file_(file), line_map_(line_map), diag_(diag) {
    yaml_parser_initialize(&p_);
    yaml_parser_set_input_string(&p_, reinterpret_cast<const unsigned char*>(text.data()), text.size());
}

YamlReader::~YamlReader() { yaml_parser_delete(&p_); }

SourceLoc YamlReader::at(const yaml_mark_t& m) const {
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

Result<void> YamlReader::next(YamlEvent& ev) {
    yaml_event_delete(&ev.e);
    if (yaml_parser_parse(&p_, &ev.e)) return {};
    std::string msg = "YAML error: ";
    msg += p_.problem ? p_.problem : "cannot parse";
    if (p_.context) msg += std::string(" (") + p_.context + ")";
    return fail(at(p_.problem ? p_.problem_mark : p_.mark), msg,
                "check indentation and quoting; Jinja has already been applied to this text");
}

Result<bool> YamlReader::root(YamlEvent& first) {
    YamlEvent ev;
    if (auto r = next(ev); !r) return unexpected(r.error());  // STREAM-START
    if (auto r = next(ev); !r) return unexpected(r.error());  // DOCUMENT-START or STREAM-END
    if (ev.e.type == YAML_STREAM_END_EVENT) return false;
    if (auto r = next(first); !r) return unexpected(r.error());
    return true;
}

Result<void> YamlReader::count(std::size_t nodes) {
    nodes_ += nodes;
    if (nodes_ <= kMaxNodes) return {};
    return fail(SourceLoc{file_}, "YAML expands to more than " + std::to_string(kMaxNodes) + " nodes (through aliases?)",
                "use fewer or smaller aliases");
}

Result<void> YamlReader::depth(std::size_t open, const yaml_mark_t& m) const {
    if (open < kMaxDepth) return {};
    return fail(at(m), "YAML nested more than " + std::to_string(kMaxDepth) + " levels deep", "flatten the structure");
}

Result<void> YamlReader::key(std::map<std::string, int>& seen, const std::string& key, const SourceLoc& loc) {
    auto [it, inserted] = seen.emplace(key, loc.line);
    if (inserted) return {};
    Error err{loc, "duplicate key '" + key + "' (first defined on line " + std::to_string(it->second) + ")",
              "remove one, or give each a selector that excludes the other"};
    if (!diag_ || diag_->strict()) return unexpected(std::move(err));
    err.message += ": the last one wins, as in conda-build";
    err.hint = "--strict makes this an error";
    diag_->warn(err, err.loc.str());
    it->second = loc.line;
    return {};
}

bool yaml_null(const yaml_event_t& e) {
    const auto& sc = e.data.scalar;
    std::string tag = yaml_text(sc.tag);
    if (tag == "tag:yaml.org,2002:null") return true;
    if (sc.style != YAML_PLAIN_SCALAR_STYLE || !tag.empty()) return false;
    std::string_view s(reinterpret_cast<const char*>(sc.value), sc.length);
    return s.empty() || s == "~" || s == "null" || s == "Null" || s == "NULL";
}

Error YamlReader::recursive_alias(const yaml_mark_t& anchored) const {
    return Error{at(anchored), "recursive YAML alias: this node contains itself",
                 "an alias may not refer to its own anchor's node"};
}

Error YamlReader::undefined_alias(const yaml_mark_t& m, const std::string& name) const {
    return Error{at(m), "YAML error: found undefined alias '" + name + "'",
                 "define the anchor (&" + name + ") before its alias"};
}

Error YamlReader::duplicate_anchor(const yaml_mark_t& m, const std::string& name) const {
    return Error{at(m), "YAML error: found duplicate anchor '" + name + "'", "give each anchor its own name"};
}

}  // namespace sf::recipe
