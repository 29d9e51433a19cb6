#include "render/v1_build_keys.hpp"

namespace sf::render {

namespace {

using recipe::YamlNode;

bool sets_something(const YamlNode& v) {
    if (v.is_sequence()) return !v.items.empty();
    if (v.is_mapping()) return !v.pairs.empty();
    return v.is_scalar() && !v.scalar.empty();
}

std::string refusal(const recipe::V1Recipe& r, const YamlNode& build) {
    if (!build.is_mapping()) return {};
    static const char* const keys[] = {"prefix_detection", "always_include_files", "always_copy_files",
                                       "dynamic_linking", "post_process", "files", "flags"};
    for (const auto& [k, v] : build.pairs) {
        bool refused = false;
        for (const char* key : keys) refused = refused || (k.scalar == key && sets_something(v));
        // rattler-build merges the prefixes only when it is true.
        if (k.scalar == "merge_build_and_host_envs") refused = !(v.is_scalar() && v.scalar == "false") && !v.is_null();
        if (refused)
            return r.at(k).str() + ": build." + k.scalar +
                   " is not supported by splitforge's build yet (render, lint and rerender read past it); "
                   "without it the package would differ from rattler-build's";
    }
    return {};
}

}  // namespace

std::string v1_unbuilt_build_keys(const recipe::V1Recipe& r, const YamlNode* top_build, const YamlNode* own_build) {
    for (const YamlNode* b : {own_build, top_build})
        if (b)
            if (auto why = refusal(r, *b); !why.empty()) return why;
    return {};
}

}  // namespace sf::render
