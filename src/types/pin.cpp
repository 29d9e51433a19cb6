#include "types/pin.hpp"

#include "util/strings.hpp"

namespace sf::types {

std::string encode_pin(const PinMarker& m) {
    std::string kind = m.kind == PinMarker::Kind::subpackage ? "sub" : "compat";
    return m.name + " @@pin:" + kind + ":" + m.min_pin + ":" + m.max_pin + ":" + (m.exact ? "1" : "0") + ":" +
           m.lower_bound + ":" + m.upper_bound + "@@";
}

std::optional<PinMarker> decode_pin(const std::string& spec) {
    auto at = spec.find(" @@pin:");
    if (at == std::string::npos) return std::nullopt;
    auto end = spec.find("@@", at + 7);
    if (end == std::string::npos) return std::nullopt;
    auto fields = str::split(spec.substr(at + 7, end - at - 7), ':');
    if (fields.size() != 6) return std::nullopt;
    PinMarker m;
    m.name = spec.substr(0, at);
    m.kind = fields[0] == "sub" ? PinMarker::Kind::subpackage : PinMarker::Kind::compatible;
    m.min_pin = fields[1];
    m.max_pin = fields[2];
    m.exact = fields[3] == "1";
    m.lower_bound = fields[4];
    m.upper_bound = fields[5];
    return m;
}

std::string strip_pin(const std::string& spec) {
    auto at = spec.find(" @@pin:");
    if (at == std::string::npos) return spec;
    auto end = spec.find("@@", at + 7);
    std::string rest = end == std::string::npos ? "" : spec.substr(end + 2);
    return spec.substr(0, at) + rest;
}

}  // namespace sf::types
