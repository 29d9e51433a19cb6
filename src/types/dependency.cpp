#include "types/dependency.hpp"

namespace sf::types {

Result<Dependency> Dependency::parse(std::string_view spec) {
    auto m = MatchSpec::parse(spec);
    if (!m) return unexpected(m.error());
    return Dependency(std::move(*m), std::string(spec));
}

std::string Dependency::name() const { return MatchSpec::name_of(str()); }

std::string Dependency::str() const {
    if (const Pin* p = pin()) return p->name;
    if (const auto* p = std::get_if<Parsed>(&value_)) return p->text;
    return std::get<UnparsedSpec>(value_).text;
}

Result<std::vector<Dependency>> parse_dependencies(const std::vector<std::string>& specs) {
    std::vector<Dependency> out;
    out.reserve(specs.size());
    for (const auto& s : specs) {
        auto d = Dependency::parse(s);
        if (!d) return unexpected(d.error());
        out.push_back(std::move(*d));
    }
    return out;
}

std::vector<std::string> dependency_strings(const std::vector<Dependency>& deps) {
    std::vector<std::string> out;
    out.reserve(deps.size());
    for (const auto& d : deps) out.push_back(d.str());
    return out;
}

}  // namespace sf::types
