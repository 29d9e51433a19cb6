#include "feedstock/workflow_yaml.hpp"

#include <boost/regex.hpp>
#include <yaml-cpp/yaml.h>

namespace sf::feedstock {

Yaml Yaml::text(std::string v) {
    Yaml y;
    y.kind = Kind::text;
    y.s = std::move(v);
    return y;
}
Yaml Yaml::literal(std::string v) {
    Yaml y = text(std::move(v));
    y.kind = Kind::literal;
    return y;
}
Yaml Yaml::raw(std::string v) {
    Yaml y = text(std::move(v));
    y.kind = Kind::raw;
    return y;
}
Yaml Yaml::number(int v) { return raw(std::to_string(v)); }
Yaml Yaml::mapping() { return Yaml{}; }
Yaml Yaml::list(std::vector<std::string> items) {
    Yaml y;
    y.kind = Kind::seq;
    for (auto& i : items) y.seq.push_back(text(std::move(i)));
    return y;
}

Yaml& Yaml::set(const std::string& key, Yaml v) {
    map.emplace_back(key, std::move(v));
    return map.back().second;
}
Yaml& Yaml::at(const std::string& key) {
    for (auto& [k, v] : map)
        if (k == key) return v;
    return set(key, mapping());
}

Yaml& Yaml::add(Yaml v) {
    seq.push_back(std::move(v));
    return seq.back();
}

bool yaml_needs_quotes(const std::string& s) {
    // YAML 1.1 (PyYAML, yaml-cpp) and 1.2 (GitHub's parser) numbers, bools,
    // nulls, sexagesimals and dates; anything else yaml-cpp's emitter judges.
    static const boost::regex retyped(
        R"([-+]?(?:[0-9][0-9_]*(?:\.[0-9_]*)?|\.[0-9_]+)(?:[eE][-+]?[0-9]+)?|0[xXoObB][0-9a-fA-F_]+|)"
        R"([-+]?\.(?:inf|Inf|INF)|\.(?:nan|NaN|NAN)|[0-9]+(?::[0-5]?[0-9])+(?:\.[0-9_]*)?|[0-9]{4}-[0-9]{1,2}-[0-9]{1,2}.*|)"
        R"(y|Y|yes|Yes|YES|n|N|no|No|NO|true|True|TRUE|false|False|FALSE|on|On|ON|off|Off|OFF|null|Null|NULL|~|<<|=)");
    return s.empty() || boost::regex_match(s, retyped) || s.front() == ' ' || s.back() == ' ';
}

namespace {

void emit(YAML::Emitter& e, const Yaml& y) {
    switch (y.kind) {
        case Yaml::Kind::text:
            if (yaml_needs_quotes(y.s)) e << YAML::SingleQuoted;
            e << y.s;
            break;
        case Yaml::Kind::literal:
            e << YAML::Literal << y.s;
            break;
        case Yaml::Kind::raw:
            e << y.s;
            break;
        case Yaml::Kind::map:
            e << YAML::BeginMap;
            for (const auto& [k, v] : y.map) {
                e << YAML::Key;
                if (yaml_needs_quotes(k)) e << YAML::SingleQuoted;
                e << k << YAML::Value;
                emit(e, v);
            }
            e << YAML::EndMap;
            break;
        case Yaml::Kind::seq:
            e << YAML::BeginSeq;
            for (const auto& v : y.seq) emit(e, v);
            e << YAML::EndSeq;
            break;
    }
}

}  // namespace

std::string emit_yaml(const Yaml& doc) {
    YAML::Emitter e;
    e.SetIndent(2);
    e.SetSeqFormat(YAML::Block);
    emit(e, doc);
    std::string out = e.c_str();
    return out + "\n";
}

}  // namespace sf::feedstock
