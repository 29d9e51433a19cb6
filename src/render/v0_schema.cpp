// meta.yaml's key table; see v0_schema.hpp. Each section lists its keys in
// the order conda_build/metadata.py's FIELDS names them.
#include "render/v0_schema.hpp"

#include <algorithm>
#include <map>

#include "util/strings.hpp"

namespace sf::render {
namespace {

using Keys = std::vector<std::string_view>;

const std::map<std::string_view, Keys, std::less<>>& table() {
    static const std::map<std::string_view, Keys, std::less<>> t = [] {
        std::map<std::string_view, Keys, std::less<>> t;
        t[""] = {"package", "source", "build", "outputs", "requirements", "app", "test", "about", "extra"};
        t["package"] = {"name", "version"};
        t["source"] = {"fn", "url", "md5", "sha1", "sha256", "path", "path_via_symlink", "git_url", "git_tag",
                       "git_branch", "git_rev", "git_depth", "hg_url", "hg_tag", "svn_url", "svn_rev",
                       "svn_ignore_externals", "svn_username", "svn_password", "folder", "no_hoist", "patches",
                       // newer conda-build's FIELDS
                       "sha224", "sha384", "sha512", "content_sha256", "content_sha384", "content_sha512",
                       "content_hash_skip"};
        t["build"] = {"number", "string", "entry_points", "osx_is_app", "disable_pip", "features", "track_features",
                      "preserve_egg_dir", "no_link", "binary_relocation", "script", "noarch", "noarch_python",
                      "has_prefix_files", "binary_has_prefix_files", "ignore_prefix_files",
                      "detect_binary_files_with_prefix", "skip_compile_pyc", "rpaths", "rpaths_patcher",
                      "script_env", "always_include_files", "skip", "msvc_compiler", "pin_depends",
                      "include_recipe", "preferred_env", "preferred_env_executable_paths", "run_exports",
                      "ignore_run_exports", "ignore_run_exports_from", "requires_features", "provides_features",
                      "force_use_keys", "force_ignore_keys", "merge_build_host", "pre-link", "post-link",
                      "pre-unlink", "missing_dso_whitelist", "error_overdepending", "error_overlinking",
                      "overlinking_ignore_patterns", "python_site_packages_path",
                      // Read by conda-build 24.11 (get_value) though FIELDS lacks them.
                      "activate_in_script", "ignore_verify_codes", "no_move_top_level_workdir_loops",
                      "runpath_whitelist",
                      // In newer conda-build's FIELDS; real feedstocks (opencv) write them already.
                      "python_version_independent", "missing_dso_allowlist", "runpath_allowlist"};
        t["outputs"] = {"name", "version", "number", "entry_points", "script", "script_interpreter", "build",
                        "requirements", "test", "about", "extra", "files", "type", "run_exports", "target"};
        t["requirements"] = {"build", "host", "run", "conflicts", "run_constrained"};
        t["app"] = {"entry", "icon", "summary", "type", "cli_opts", "own_environment"};
        t["test"] = {"requires", "commands", "files", "imports", "source_files", "downstreams"};
        // An output's test may also name its test script (build.py's output_d["test"]["script"]).
        t["output test"] = {"requires", "commands", "files", "imports", "source_files", "downstreams", "script"};
        t["about"] = {"home", "dev_url", "doc_url", "doc_source_url", "license_url", "license", "summary",
                      "description", "license_family", "identifiers", "tags", "keywords", "license_file",
                      "prelink_message", "readme"};
        return t;
    }();
    return t;
}

struct Walk {
    std::vector<UnknownKey>& out;

    // The keys of `m` against table section `id`; `shown` names it in messages.
    void mapping(const Meta& m, std::string_view id, const std::string& shown, const std::vector<Step>& path) {
        if (!m.is_object()) return;
        const Keys& keys = table().at(id);
        for (const auto& [k, v] : m.items()) {
            if (std::find(keys.begin(), keys.end(), k) != keys.end()) continue;
            std::vector<std::string> valid(keys.begin(), keys.end());
            std::vector<Step> at = path;
            at.push_back({k, ""});
            out.push_back({k, shown, std::move(at), str::closest(k, valid), std::move(valid)});
        }
    }

    void top(const Meta& t) {
        mapping(t, "", "", {});
        for (std::string_view s : {"package", "build", "requirements", "app", "test", "about"})
            if (t.contains(s)) mapping(t[std::string(s)], s, std::string(s), {{std::string(s), ""}});
        if (t.contains("source"))
            each(t["source"], [&](const Meta& s) { mapping(s, "source", "source", {{"source", ""}}); });
        if (t.contains("outputs"))
            each(t["outputs"], [&](const Meta& o) { output(o); });
    }

    void output(const Meta& o) {
        if (!o.is_object()) return;
        std::string name = o.contains("name") && o["name"].is_string() ? o["name"].get<std::string>() : "";
        std::string shown = name.empty() ? "an output" : "output '" + name + "'";
        std::vector<Step> at = {{"outputs", ""}, {"name", name}};
        mapping(o, "outputs", shown, at);
        auto in = [&](const char* k) {
            std::vector<Step> p = at;
            p.push_back({k, ""});
            return p;
        };
        if (o.contains("build")) mapping(o["build"], "build", shown + " build", in("build"));
        if (o.contains("requirements"))
            mapping(o["requirements"], "requirements", shown + " requirements", in("requirements"));
        if (o.contains("test")) mapping(o["test"], "output test", shown + " test", in("test"));
        if (o.contains("about")) mapping(o["about"], "about", shown + " about", in("about"));
    }

    // A section that may be one dict or a list of them (OPTIONALLY_ITERABLE_FIELDS).
    template <class F>
    static void each(const Meta& v, F f) {
        if (v.is_array())
            for (const auto& item : v) f(item);
        else
            f(v);
    }
};

// 1-based line of the key: each step of its path is looked for below the
// line the last one was found on (a step not found as written, say a Jinja
// name, is passed over); 0 when the key itself is not found.
int line_of(const std::vector<std::string>& lines, const UnknownKey& u) {
    auto matches = [](std::string_view l, const Step& s, bool top) {
        size_t indent = l.find_first_not_of(' ');
        if (indent == std::string_view::npos || (top && indent > 0)) return false;
        l.remove_prefix(indent);
        if (l.substr(0, 2) == "- ") l = str::trim(l.substr(2));
        if (l.substr(0, s.key.size()) != s.key) return false;
        std::string_view rest = str::trim(l.substr(s.key.size()));
        if (rest.empty() || rest.front() != ':') return false;
        if (s.value.empty()) return true;
        rest = str::trim(rest.substr(1));
        if (rest.size() >= 2 && (rest.front() == '"' || rest.front() == '\'')) rest = rest.substr(1, rest.size() - 2);
        return rest == s.value;
    };
    size_t from = 0;
    for (size_t step = 0; step < u.path.size(); ++step) {
        bool last = step + 1 == u.path.size();
        size_t i = from;
        while (i < lines.size() && !matches(lines[i], u.path[step], step == 0)) ++i;
        if (i < lines.size()) from = i;
        else if (last) return 0;
    }
    return static_cast<int>(from) + 1;
}

Error as_error(const UnknownKey& u, SourceLoc at) {
    std::string what = u.section.empty() ? "unknown section '" + u.key + "'" : "unknown key '" + u.key + "' in " + u.section;
    // The near name alone when there is one: the list is long (build has 44).
    std::string hint = u.near.empty() ? "conda-build ignores it; valid " +
                                            std::string(u.section.empty() ? "sections" : "keys") +
                                            " are: " + str::join(u.valid, ", ")
                                      : "did you mean '" + u.near + "'? conda-build ignores it";
    return Error{std::move(at), what + " [v0-unknown-key]", std::move(hint)};
}

}  // namespace

std::vector<UnknownKey> unknown_keys(const Meta& top) {
    std::vector<UnknownKey> out;
    Walk{out}.top(top);
    return out;
}

std::vector<std::string_view> v0_section_keys(std::string_view section) {
    auto it = table().find(section);
    return it == table().end() ? std::vector<std::string_view>{} : it->second;
}

Result<void> check_known_keys(const Meta& top, const std::string& text, const std::string& file, Diagnostics& diag) {
    auto found = unknown_keys(top);
    if (found.empty()) return {};
    auto lines = str::split_lines(text);
    for (const auto& u : found) {
        Error e = as_error(u, SourceLoc{file, line_of(lines, u)});
        if (diag.strict()) return unexpected(std::move(e));
        e.hint += " (--strict makes this an error)";
        diag.warn(std::move(e), "v0-unknown-key:" + u.section + "/" + u.key);
    }
    return {};
}

}  // namespace sf::render
