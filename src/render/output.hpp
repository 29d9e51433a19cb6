#pragma once
// The rendered recipe (stage 1): concrete values only. One RenderedOutput per
// package that the recipe produces for one variant.
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "variant/config.hpp"

namespace sf::render {

struct Requirements {
    std::vector<std::string> build, host, run, run_constrained;
};

struct RunExports {
    std::vector<std::string> weak, strong, noarch, weak_constrains, strong_constrains;
    bool empty() const {
        return weak.empty() && strong.empty() && noarch.empty() && weak_constrains.empty() &&
               strong_constrains.empty();
    }
};

struct Test {
    std::vector<std::string> commands, imports, requires_, files, source_files;
    bool empty() const { return commands.empty() && imports.empty() && files.empty(); }
};

struct Source {
    std::string url, sha256, md5, path, git_url, git_rev, folder;
    std::vector<std::string> patches;
};

struct RenderedOutput {
    std::string name, version, build_string;
    int build_number = 0;
    bool is_staging = false;  // the top-level recipe itself (single-output recipes)
    std::string noarch;       // "", "generic" or "python"
    Requirements requirements;
    RunExports run_exports;
    std::vector<std::string> ignore_run_exports, ignore_run_exports_from;
    Test test;
    nlohmann::json about = nlohmann::json::object();
    std::string script;            // output script file, relative to the recipe
    std::vector<std::string> script_lines;  // build/script as inline commands
    std::vector<std::string> files;  // explicit file list / globs for this output
    std::map<std::string, std::string> used;  // used variant keys and their values
    nlohmann::json hash_input = nlohmann::json::object();
    std::string hash;         // "h1234abc" or "" when nothing is hashed
    variant::Variant variant;  // the full variant this output was rendered with
    int top_variant = 0;       // index of the staging (top-level) variant it belongs to

    std::string dist() const { return name + "-" + version + "-" + build_string; }
};

struct RenderedRecipe {
    std::string name;       // top-level package name (e.g. libtorch-split)
    std::string version;
    std::string recipe_dir;
    std::string subdir;
    std::vector<Source> sources;
    std::string build_script;  // top-level build.sh (relative), if any
    std::vector<variant::Variant> top_variants;  // one staging build each
    std::vector<Requirements> top_requirements;  // per top variant: the top level's own requirements
    std::vector<std::string> staging_keys;       // keys that split the staging build
    std::vector<std::string> used_keys;          // keys used anywhere (sorted)
    std::vector<variant::Variant> variants;      // the full matrix, before reduction
    std::vector<RenderedOutput> outputs;  // build order: top variant, then dependencies first
    // Where each variant key is used first (file:line), for `splitforge variants`.
    std::map<std::string, SourceLoc> key_uses;
};

}  // namespace sf::render
