#pragma once
// Plain values that a recipe declares and every later stage reads: a source,
// run_exports, an output's tests. No parsing of recipes here (render does
// that); only the values and their JSON forms.
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "types/dependency.hpp"

namespace sf::types {

// One entry of `source:`. url + sha256 (md5 optional), a local `path`, or
// git_url + git_rev; then `patches` (relative to the recipe) in order.
struct Source {
    std::string url;      // file://..., /local/file, relative/file, http(s)://...
    std::vector<std::string> mirrors;  // the rest of a `url:` list, tried in order after `url`
    std::string sha256;   // required for http(s); keys the download cache
    std::string md5;      // optional extra check
    std::string fn;       // file name to store the download as; default: URL basename
    std::string path;     // a local directory (relative: to the recipe dir)
    std::string git_url;  // a clone URL or a local repository path
    std::string git_rev;  // branch, tag or commit; empty: the default branch
    std::string folder;   // sub-directory of SRC_DIR to put it in
    std::vector<std::string> patches;
    SourceLoc where;      // the recipe line of this entry (errors name it); empty when unknown

    friend bool operator==(const Source&, const Source&) = default;
};

// A git source's fields as a recipe may give them. A revision (meta.yaml's
// git_rev, git_tag, git_branch; recipe.yaml's rev, tag, branch) never starts
// with '-', which git would read as an option (`--orphan=x`); a URL neither,
// nor names a transport helper, `<transport>::<address>` (`ext::cmd` runs
// cmd). The error names the value; callers put the recipe line in front.
Result<void> check_git_rev(std::string_view key, std::string_view rev);
Result<void> check_git_url(std::string_view key, std::string_view url);

// `build: noarch:` of an output, index.json's "noarch" of a package.
enum class NoArch { none, generic, python };
std::string_view to_string(NoArch n);  // "", "generic", "python"
// "generic"/"python"; "" is none. Anything else is an error naming it.
Result<NoArch> parse_noarch(std::string_view text);

// info/run_exports.json of a package, as packages carry it: spec strings.
struct RunExports {
    std::vector<std::string> weak, strong, noarch, weak_constrains, strong_constrains;

    bool empty() const {
        return weak.empty() && strong.empty() && noarch.empty() && weak_constrains.empty() &&
               strong_constrains.empty();
    }
    // info/run_exports.json: only the non-empty lists.
    nlohmann::json to_json() const;
    // Lenient: missing or malformed lists read as empty.
    static RunExports from_json(const nlohmann::json& j);
};

// `build: run_exports:` of a rendered output: pins until render resolves them.
struct RunExportDeps {
    std::vector<Dependency> weak, strong, noarch, weak_constrains, strong_constrains;

    bool empty() const {
        return weak.empty() && strong.empty() && noarch.empty() && weak_constrains.empty() &&
               strong_constrains.empty();
    }
    RunExports strings() const;  // what info/run_exports.json says
};

// An output's `test:` section.
struct Test {
    std::vector<std::string> commands, imports;
    std::vector<Dependency> requires_;
    std::vector<std::string> files, source_files;
    bool pip_check = false;  // recipe.yaml's python test: `python -m pip check` where pip is
    // recipe.yaml's package_contents test: per section (include, bin, lib,
    // site_packages, files) the globs that must match, and must not match,
    // the package's paths; `strict`: every path must be matched.
    struct ContentGlobs {
        std::vector<std::string> exists, not_exists;
    };
    std::map<std::string, ContentGlobs> contents{};
    bool contents_strict = false;
    // recipe.yaml's downstream test: the spec of a package whose own tests
    // run against this one (the engine reports it skipped, never passed).
    std::string downstream{};
    bool empty() const {
        return commands.empty() && imports.empty() && files.empty() && contents.empty() && downstream.empty();
    }
};

}  // namespace sf::types
