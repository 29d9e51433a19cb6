#include "variant/selection.hpp"

#include "variant/config.hpp"

namespace sf::variant {

namespace {

// The target_platform the files name (the last file with a single value
// wins), or nullopt.
Result<std::optional<types::Platform>> platform_of_files(const std::vector<std::filesystem::path>& files) {
    std::optional<types::Platform> found;
    const types::Platform here;
    for (const auto& f : files) {
        auto spec = read_config_file(f, here, here);
        if (!spec) return unexpected(spec.error());
        for (const auto& [k, v] : spec->lists) {
            if (k != "target_platform" || v.size() != 1) continue;
            auto p = types::Platform::parse(v.front());
            if (!p) {
                int line = spec->line_of.count(k) ? spec->line_of.at(k) : 0;
                return fail(SourceLoc{spec->name, line}, "target_platform: " + p.error().message, p.error().hint);
            }
            found = *p;
        }
    }
    return found;
}

}  // namespace

Result<Selection> select(std::string_view platform, std::vector<std::filesystem::path> variant_files,
                         const std::vector<std::string>& overrides,
                         std::vector<std::filesystem::path> exclusive_files) {
    Selection s;
    for (const auto& kv : overrides) {
        auto eq = kv.find('=');
        if (eq == std::string::npos || eq == 0)
            return fail("--variant " + kv + ": expected KEY=VALUE", "e.g. --variant python=3.12");
        s.overrides.emplace_back(kv.substr(0, eq), kv.substr(eq + 1));
    }
    if (!platform.empty()) {
        auto p = types::Platform::parse(platform);
        if (!p) return fail("--platform: " + p.error().message, p.error().hint);
        s.platform = *p;
    } else {
        std::vector<std::filesystem::path> all = exclusive_files;
        all.insert(all.end(), variant_files.begin(), variant_files.end());
        auto named = platform_of_files(all);
        if (!named) return unexpected(named.error());
        if (*named) s.platform = **named;
    }
    s.variant_files = std::move(variant_files);
    s.exclusive_files = std::move(exclusive_files);
    return s;
}

}  // namespace sf::variant
