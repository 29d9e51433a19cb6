#include "render/build_keys.hpp"

#include "util/strings.hpp"

namespace sf::render {

namespace {

// PyYAML's True (metadata.py compares with `is True`): a plain true, yes or on.
bool yaml_true(const Meta& v) {
    if (v.is_boolean()) return v.get<bool>();
    if (!v.is_string()) return false;
    const std::string s = str::lower(v.get<std::string>());
    return s == "true" || s == "yes" || s == "on";
}

bool yaml_false(const Meta& v) {
    if (v.is_boolean()) return !v.get<bool>();
    if (!v.is_string()) return false;
    const std::string s = str::lower(v.get<std::string>());
    return s == "false" || s == "no" || s == "off";
}

// metadata.py's checks: ignore_prefix_files is a bool or a list.
Result<void> ignore_prefix(const Meta& v, const std::string& where, PostBuildKeys& k) {
    if (v.is_array()) {
        k.ignore_prefix_files = string_list(v);
    } else if (v.is_boolean() || v.is_null() || yaml_true(v) || yaml_false(v)) {
        k.ignore_prefix_all = yaml_true(v);
    } else {
        return fail(SourceLoc{where + "build/ignore_prefix_files"},
                    "build/ignore_prefix_files should be boolean or a list of paths (optionally globs)");
    }
    return {};
}

// The first line of meta.yaml that sets `key:` (0: none found).
int key_line(const std::string& text, const std::string& key) {
    int n = 0;
    for (const auto& line : str::split(text, '\n')) {
        ++n;
        auto t = str::trim(line);
        if (str::starts_with(t, key) && str::trim(t.substr(key.size())).substr(0, 1) == ":") return n;
    }
    return 0;
}

// info_index: each key only when truthy; the feature lists joined by spaces.
void index_keys(const Meta& build, PostBuildKeys& k) {
    auto given = [&](const char* key) { return build.contains(key) && meta_truthy(build[key]); };
    if (given("features")) k.index_extra["features"] = str::join(string_list(build["features"]), " ");
    if (given("track_features")) k.track_features = string_list(build["track_features"]);
    for (const char* key : {"provides_features", "requires_features", "python_site_packages_path"})
        if (given(key)) k.index_extra[key] = nlohmann::json::parse(build[key].dump());
}

}  // namespace

Result<void> packaging_keys(const Meta& build, bool is_output, const std::string& name, const std::string& where,
                            PostBuildKeys& k) {
    if (build.contains("ignore_prefix_files"))
        if (auto ok = ignore_prefix(build["ignore_prefix_files"], where, k); !ok) return ok;
    auto list = [&](const char* key, std::vector<std::string>& into) {
        if (build.contains(key)) into = string_list(build[key]);
    };
    list("has_prefix_files", k.has_prefix_files);
    list("binary_has_prefix_files", k.binary_has_prefix_files);
    list("always_include_files", k.always_include_files);
    list("no_link", k.no_link);
    if (build.contains("detect_binary_files_with_prefix") && !build["detect_binary_files_with_prefix"].is_null())
        k.detect_binary_files_with_prefix = meta_truthy(build["detect_binary_files_with_prefix"]);
    // create_post_scripts: the package's own scripts are pre-link.sh, ...;
    // an output's are build/<kind> or <name>-<kind>, with .sh added.
    for (const char* kind : {"pre-link", "post-link", "pre-unlink"}) {
        std::string file = kind;
        if (is_output) {
            file = name + "-" + kind;
            if (build.contains(kind) && build[kind].is_string()) file = build[kind].get<std::string>();
        }
        k.link_scripts[kind] = file + ".sh";
    }
    index_keys(build, k);
    return {};
}

Result<void> refuse_unbuilt_keys(const recipe::RawRecipe& raw, const Meta& build, const std::string& output) {
    // conda-build's build_is_host: one prefix for build and host, so PREFIX
    // and BUILD_PREFIX are one directory; splitforge's envs are always two.
    if (build.contains("merge_build_host") && yaml_true(build["merge_build_host"]))
        return fail(SourceLoc{raw.meta_file, key_line(raw.text, "merge_build_host")},
                    output + ": build/merge_build_host: true is not supported by splitforge's build (build and host "
                             "are always two prefixes)",
                    "drop the key and list host requirements under requirements/host");
    // info/link.json's preferred_env and pin_depends' info/requires and
    // pinned depends are not written by splitforge's packager.
    for (const char* key : {"preferred_env", "pin_depends"})
        if (build.contains(key) && meta_truthy(build[key]))
            return fail(SourceLoc{raw.meta_file, key_line(raw.text, key)},
                        output + ": build/" + key + " is not supported by splitforge's build",
                        "drop the key; conda-build's packages with it differ from splitforge's");
    return {};
}

}  // namespace sf::render
