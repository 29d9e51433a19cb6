#include "render/pin_text.hpp"

#include "util/strings.hpp"

namespace sf::render {

namespace {
constexpr std::string_view kOpen = " @@sf-pin:";
constexpr std::string_view kClose = "@@";
}  // namespace

std::string pin_placeholder(const types::Pin& p) {
    std::string kind = p.kind == types::Pin::Kind::subpackage ? "sub" : "compat";
    return p.name + std::string(kOpen) + kind + ":" + p.min_pin + ":" + p.max_pin + ":" + (p.exact ? "1" : "0") + ":" +
           p.lower_bound + ":" + p.upper_bound + std::string(kClose);
}

std::optional<types::Pin> read_pin_placeholder(std::string_view spec) {
    auto at = spec.find(kOpen);
    if (at == std::string_view::npos) return std::nullopt;
    size_t body = at + kOpen.size();
    auto end = spec.find(kClose, body);
    if (end == std::string_view::npos) return std::nullopt;
    auto fields = str::split(std::string(spec.substr(body, end - body)), ':');
    if (fields.size() != 6) return std::nullopt;
    types::Pin p;
    p.name = std::string(spec.substr(0, at));
    p.kind = fields[0] == "sub" ? types::Pin::Kind::subpackage : types::Pin::Kind::compatible;
    p.min_pin = fields[1];
    p.max_pin = fields[2];
    p.exact = fields[3] == "1";
    p.lower_bound = fields[4];
    p.upper_bound = fields[5];
    return p;
}

std::string strip_pin_placeholder(const std::string& spec) {
    auto at = spec.find(kOpen);
    if (at == std::string::npos) return spec;
    auto end = spec.find(kClose, at + kOpen.size());
    std::string rest = end == std::string::npos ? "" : spec.substr(end + kClose.size());
    return spec.substr(0, at) + rest;
}

}  // namespace sf::render
