#pragma once
// The rendered recipe (stage 1): concrete values only. One RenderedOutput per
// package that the recipe produces for one variant.
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "types/dependency.hpp"
#include "types/platform.hpp"
#include "types/recipe_values.hpp"
#include "variant/config.hpp"

namespace sf::render {

struct Requirements {
    std::vector<types::Dependency> build, host, run, run_constrained;
};


// The build/ keys conda-build's post.py reads after the script ran, with
// its defaults where the recipe is silent (metadata.py: rpaths ['lib'],
// binary_relocation True; the error_* keys unset: the build's setting).
struct PostBuildKeys {
    std::vector<std::string> rpaths{"lib"};
    bool binary_relocation = true;            // false: no RPATH is touched
    std::vector<std::string> relocate_only;   // binary_relocation as a list: only these paths (globs)
    std::string rpaths_patcher;               // "patchelf" or "LIEF" (ours is always patchelf)
    std::optional<bool> error_overlinking, error_overdepending;
    std::vector<std::string> missing_dso_whitelist, runpath_whitelist, overlinking_ignore_patterns;
    // Python: build/entry_points and build/skip_compile_pyc (recipe.yaml:
    // build.python.entry_points, .skip_pyc_compilation), as written; the
    // engine parses the entry points when it writes them.
    std::vector<std::string> entry_points, skip_compile_pyc;
    // The keys build.py's packaging reads (render/build_keys.hpp), as given:
    // prefix detection (package/prefix_rules.hpp),
    bool ignore_prefix_all = false;  // ignore_prefix_files: true
    std::vector<std::string> ignore_prefix_files, has_prefix_files, binary_has_prefix_files;
    std::optional<bool> detect_binary_files_with_prefix;
    // host-prefix files packaged though they were there before the script,
    std::vector<std::string> always_include_files;
    std::vector<std::string> no_link;  // paths.json no_link (fnmatch patterns)
    // create_post_scripts: per kind ("pre-link", "post-link", "pre-unlink")
    // the recipe file that becomes bin/.<name>-<kind>.sh when it exists.
    std::map<std::string, std::string> link_scripts;
    // index.json's keys from build/ (metadata.py info_index): track_features
    // here, features, provides_features, requires_features and
    // python_site_packages_path in `index_extra`, as conda-build writes them.
    std::vector<std::string> track_features;
    nlohmann::json index_extra = nlohmann::json::object();
};

struct RenderedOutput {
    std::string name, version, build_string;
    int build_number = 0;
    bool is_staging = false;  // the top-level recipe itself (single-output recipes)
    types::NoArch noarch = types::NoArch::none;
    Requirements requirements;  // pins resolved against the other outputs
    // conda-build's non-finalized lists (what conda-smithy sees): each pin
    // is its bare name and pin_run_as_build is not applied yet.
    Requirements nonfinal_requirements;
    types::RunExportDeps run_exports;
    std::vector<std::string> ignore_run_exports, ignore_run_exports_from;
    PostBuildKeys post_build;
    types::Test test;  // recipe.yaml: all its tests: items together (info/test)
    // recipe.yaml: each tests: item (python, script), run in an env of its own.
    std::vector<types::Test> test_elements;
    nlohmann::json about = nlohmann::json::object();
    std::string script;            // output script file, relative to the recipe
    std::vector<std::string> script_lines;  // build/script as inline commands
    std::map<std::string, std::string> script_env;  // recipe.yaml's build.script env
    std::vector<std::string> files;  // explicit file list / globs for this output
    std::map<std::string, std::string> used;  // used variant keys and their values
    // conda-build's get_used_vars(force_top_level=True): the keys this output
    // uses when read with the whole meta.yaml (RenderOptions::top_level_keys).
    std::vector<std::string> top_level_used;
    nlohmann::json hash_input = nlohmann::json::object();
    std::string hash;         // "h1234abc" or "" when nothing is hashed
    variant::Variant variant;  // the full variant this output was rendered with
    int top_variant = 0;       // index of the staging (top-level) variant it belongs to
    // recipe.yaml: the staging output it inherits ("": the top level), and
    // whether that one's run_exports reach it (`inherit: {run_exports: false}`).
    std::string inherits;
    bool inherit_run_exports = true;
    // Set when it uses what the engine cannot build (recipe.yaml's build.steps,
    // meta.yaml's build/merge_build_host: true): the error, file:line first.
    std::string unbuildable;

    std::string dist() const { return name + "-" + version + "-" + build_string; }
};

// recipe.yaml's `- staging:` output for one staging variant: built once, in a
// work dir of its own (the top level's sources, then its own), before the
// outputs that inherit it; they start from its work dir and its prefix files.
struct StagingOutput {
    std::string name;
    Requirements requirements;  // build and host
    std::vector<types::Source> sources;
    // Its script: a file relative to the recipe (build.sh when it names none
    // and the recipe has one, as rattler-build's default script), or lines.
    std::string script;
    std::vector<std::string> script_lines;
    std::map<std::string, std::string> script_env;
    std::string unbuildable;  // as RenderedOutput::unbuildable
    std::vector<std::string> ignore_run_exports, ignore_run_exports_from;
};

// One staging (top-level) variant, with what the top level itself declares
// for it: its requirements and its sources (both may depend on the variant).
struct TopVariant {
    variant::Variant variant;
    Requirements requirements;  // recipe.yaml: the staging outputs' together
    std::vector<types::Source> sources;
    // recipe.yaml's staging outputs, in recipe order (meta.yaml's staging
    // build is the recipe's build.sh, RenderedRecipe::build_script).
    std::vector<StagingOutput> stagings;
};

// Which front end made a RenderedRecipe: conda-build's meta.yaml or
// rattler-build's recipe.yaml (their rules differ where `variants` explains them).
enum class RecipeFormat { meta_yaml, recipe_yaml };

struct RenderedRecipe {
    RecipeFormat format = RecipeFormat::meta_yaml;
    std::string name;       // top-level package name (e.g. libtorch-split)
    std::string version;
    std::string recipe_dir;
    types::Platform platform;  // the target
    std::string build_script;  // top-level build.sh (relative), if any
    std::vector<TopVariant> tops;                // one staging build each
    std::vector<std::string> staging_keys;       // keys that split the staging build
    std::vector<std::string> used_keys;          // keys used anywhere (sorted)
    std::vector<variant::Variant> variants;      // the full matrix, before reduction
    std::vector<RenderedOutput> outputs;  // build order: top variant, then dependencies first
    // Where each variant key is used first (file:line): filled by
    // render::key_uses() for `splitforge variants`, empty otherwise.
    std::map<std::string, SourceLoc> key_uses;
    // What conda-build accepts but is dubious (unknown selector names,
    // repeated keys), once each; --strict made the first one an error.
    std::vector<Error> warnings;
};

}  // namespace sf::render
