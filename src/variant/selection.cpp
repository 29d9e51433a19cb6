#include "variant/selection.hpp"

#include "variant/config.hpp"

namespace sf::variant {

Selection Selection::for_platform(const types::Platform& p) const {
    Selection s = *this;
    s.platform = p;
    return s;
}

namespace {

// The target_platform the files name, if exactly one value is set.
Result<std::optional<std::string>> platform_of_files(const std::vector<std::filesystem::path>& files) {
    std::optional<std::string> found;
    const types::Platform here;
    for (const auto& f : files) {
        auto spec = read_config_file(f, here, here);
        if (!spec) return unexpected(spec.error());
        for (const auto& [k, v] : spec->lists)
            if (k == "target_platform" && v.size() == 1) found = v.front();
    }
    return found;
}

}  // namespace

Result<Selection> select(std::string_view platform, std::vector<std::filesystem::path> variant_files,
                         const std::vector<std::string>& overrides) {
    Selection s;
    for (const auto& kv : overrides) {
        auto eq = kv.find('=');
        if (eq == std::string::npos || eq == 0)
            return fail("--variant " + kv + ": expected KEY=VALUE", "e.g. --variant python=3.12");
        s.overrides.emplace_back(kv.substr(0, eq), kv.substr(eq + 1));
    }
    std::string name(platform);
    if (name.empty()) {
        auto named = platform_of_files(variant_files);
        if (!named) return unexpected(named.error());
        if (*named) name = **named;
    }
    if (!name.empty()) {
        auto p = types::Platform::parse(name);
        if (!p) return fail("--platform: " + p.error().message, p.error().hint);
        s.platform = *p;
    }
    s.variant_files = std::move(variant_files);
    return s;
}

}  // namespace sf::variant
