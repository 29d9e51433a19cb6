#include "variant/selection.hpp"

#include "core/rewrap.hpp"
#include "util/strings.hpp"
#include "variant/config.hpp"

namespace sf::variant {

namespace {

// A platform a package can be built for: a known subdir other than noarch.
Result<types::Platform> target_platform(std::string_view name) {
    auto p = types::Platform::parse(name);
    if (!p) {
        std::vector<std::string> targets = types::Platform::known();
        targets.pop_back();  // noarch
        std::string near = str::closest(name, targets);
        if (near.empty()) return fail(p.error().message, "expected one of " + str::join(targets, ", "));
        return fail(p.error().message, "did you mean '" + near + "'? expected one of " + str::join(targets, ", "));
    }
    if (p->is_noarch())
        return fail("'noarch' is not a target platform",
                    "give the platform to build on, e.g. linux-64; noarch outputs are built on any of them");
    return p;
}

// The target_platform the -m files name, or nullopt. Two -m files naming
// different ones are an error (the last would silently win). -e files only
// give a default.
Result<std::optional<types::Platform>> platform_of_files(const std::vector<std::filesystem::path>& exclusive,
                                                         const std::vector<std::filesystem::path>& variant_files) {
    std::optional<types::Platform> found;
    std::string found_in;
    const Selection here;  // this machine, as target and build platform
    std::vector<std::filesystem::path> files = exclusive;
    files.insert(files.end(), variant_files.begin(), variant_files.end());
    for (size_t i = 0; i < files.size(); ++i) {
        const auto& f = files[i];
        const bool is_m = i >= exclusive.size();
        auto spec = read_config_file(f, here);
        if (!spec) return unexpected(name_flag(spec.error(), is_m ? "-m" : "-e"));
        for (const auto& [k, v] : spec->lists) {
            if (k != "target_platform" || v.size() != 1) continue;
            int line = spec->line_of.count(k) ? spec->line_of.at(k) : 0;
            auto p = target_platform(v.front());
            if (!p) return rewrap(p.error(), SourceLoc{spec->name, line}, "target_platform: ");
            if (is_m && found && !found_in.empty() && *found != *p)
                return fail(SourceLoc{spec->name, line},
                            "target_platform " + p->name() + " conflicts with " + found->name() + " from " + found_in,
                            "give -m files for one platform, or choose with --platform");
            found = *p;
            if (is_m) found_in = spec->name;
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
        auto p = target_platform(platform);
        if (!p) return rewrap(p.error(), "--platform: ");
        s.platform = *p;
    } else {
        auto named = platform_of_files(exclusive_files, variant_files);
        if (!named) return unexpected(named.error());
        if (*named) s.platform = **named;
    }
    s.variant_files = std::move(variant_files);
    s.exclusive_files = std::move(exclusive_files);
    return s;
}

}  // namespace sf::variant
