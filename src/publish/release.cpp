#include "publish/release.hpp"

namespace sf::publish {

Result<Release> parse_release_tag(std::string_view tag) {
    Release r;
    r.tag = std::string(tag);
    std::string_view v = tag;
    if (!v.empty() && (v.front() == 'v' || v.front() == 'V')) v.remove_prefix(1);
    if (auto dash = v.find('-'); dash != std::string_view::npos) {
        r.suffix = std::string(v.substr(dash + 1));
        v = v.substr(0, dash);
    }
    bool ok = !v.empty() && v.front() != '.' && v.back() != '.' && v.find("..") == std::string_view::npos &&
              v.find_first_not_of("0123456789.") == std::string_view::npos;
    if (!ok || (tag.find('-') != std::string_view::npos && r.suffix.empty()))
        return fail({}, "--release: '" + r.tag + "' is not a release tag",
                    "give a tag such as v2.6.0 or v2.6.0-rc3");
    r.version = std::string(v);
    return r;
}

std::string channel_label(BuildKind kind) {
    switch (kind) {
        case BuildKind::nightly: return "nightly";
        case BuildKind::release: return "test";
        case BuildKind::plain: break;
    }
    return "main";
}

}  // namespace sf::publish
