#include "render/validate.hpp"

#include <algorithm>
#include <cctype>
#include <set>

#include "types/identifiers.hpp"
#include "util/strings.hpp"

namespace sf::render {
namespace {

std::string shown(const Meta& v) { return v.is_string() ? v.get<std::string>() : v.dump(); }

Unexpected<Error> bad(const std::string& file, const std::string& what, const std::string& hint) {
    return fail(SourceLoc{file}, what, hint);
}

// A requirements section: a mapping of lists of strings.
Result<void> check_requirements(const Meta& reqs, const std::string& where, const std::string& file, bool list_ok) {
    if (reqs.is_null()) return {};
    if (reqs.is_array() && list_ok) return check_requirements(Meta{{"run", reqs}}, where, file, false);
    if (!reqs.is_object())
        return bad(file, where + "requirements must be a mapping of build/host/run lists, not " + shown(reqs),
                   "write e.g. 'requirements:' then 'run:' then '- zlib'");
    for (const auto& [env, list] : reqs.items()) {
        if (!list.is_array() && !list.is_object()) continue;  // a scalar: ensure_list makes it one spec
        if (!list.is_array())
            return bad(file, where + "requirements/" + env + " must be a list, not " + shown(list), "write one '- spec' per line");
        for (const auto& item : list)
            if (item.is_array() || item.is_object())
                return bad(file, where + "requirements/" + env + ": '" + shown(item) + "' is not a package spec",
                           "write one '- spec' per line");
    }
    return {};
}

// conda-build's build_number() is int() of the value, so a value that is no
// integer ("3.0", "abc") is an error there too; render's build_number() reads
// only what this accepted (types::parse_build_number, recipe.yaml's rule too).
// `key` is "build/number", or an output's own "number" (which conda-build
// copies into the output's build section).
Result<void> check_build_number(const Meta& build, const std::string& where, const std::string& file,
                                const char* key = "build/number") {
    if (!build.is_object() || !build.contains("number")) return {};
    const Meta& n = build["number"];
    if (n.is_null()) return {};
    std::string s = n.is_string() ? std::string(str::trim(n.get<std::string>())) : n.dump();
    if (auto ok = types::parse_build_number(s); !ok)
        return bad(file, where + key + " " + ok.error().message, ok.error().hint);
    return {};
}

bool is_hex(const std::string& s, std::size_t len) {
    if (s.size() != len) return false;
    for (char c : s)
        if (!std::isxdigit(static_cast<unsigned char>(c))) return false;
    return true;
}

// A path the source stage will write to: relative, no "..".
bool inside(const std::string& p) {
    if (p.empty() || p.front() == '/' || p.find('\\') != std::string::npos) return false;
    for (const auto& part : str::split(p, '/'))
        if (part == "..") return false;
    return true;
}

Result<void> check_sources(const Meta& src, const std::string& where, const std::string& file) {
    if (src.is_null()) return {};
    Meta list = src.is_array() ? src : Meta::array({src});
    for (const auto& s : list) {
        if (s.is_null()) continue;
        if (!s.is_object())
            return bad(file, where + "source: '" + shown(s) + "' is not a source (a mapping with url, path or git_url)",
                       "write e.g. 'source:' then 'url: ...' and 'sha256: ...'");
        for (auto [key, len] : {std::pair<const char*, std::size_t>{"sha256", 64}, {"md5", 32}, {"sha1", 40}}) {
            if (!s.contains(key) || s[key].is_null()) continue;
            std::string v = shown(s[key]);
            if (!v.empty() && !is_hex(v, len))
                return bad(file, where + "source: " + key + " '" + v + "' is not " + std::to_string(len) + " hex digits",
                           "copy the checksum of the file you trust");
        }
        for (const char* key : {"folder", "fn"}) {
            if (!s.contains(key) || s[key].is_null()) continue;
            std::string v = shown(s[key]);
            bool ok = std::string(key) == "fn" ? !v.empty() && v.find('/') == std::string::npos && v != ".." && v != "."
                                               : inside(v);
            if (!ok)
                return bad(file, where + "source: " + key + " '" + v + "' must be a relative path inside the work dir" +
                                     (std::string(key) == "fn" ? " (a plain file name)" : ""),
                           "remove '..', '/' at the start and '\\'");
        }
        if (s.contains("patches") && !s["patches"].is_null()) {
            const Meta& patches = s["patches"];
            if (!patches.is_array() && !patches.is_string())
                return bad(file, where + "source: patches must be a list of file names, not " + shown(patches),
                           "write one '- file.patch' per line");
            if (patches.is_array())
                for (const auto& p : patches)
                    if (!p.is_string())
                        return bad(file, where + "source: patch '" + shown(p) + "' is not a file name",
                                   "write one '- file.patch' per line");
        }
    }
    return {};
}

}  // namespace

Result<void> check_shape(const Meta& top, const std::string& file, Diagnostics& diag) {
    if (!top.is_object()) return {};
    if (auto ok = check_build_number(top.value("build", Meta(nullptr)), "", file); !ok) return ok;
    if (top.contains("requirements"))
        if (auto ok = check_requirements(top["requirements"], "", file, false); !ok) return ok;
    if (top.contains("source"))
        if (auto ok = check_sources(top["source"], "", file); !ok) return ok;
    if (!top.contains("outputs") || top["outputs"].is_null()) return {};
    const Meta& outs = top["outputs"];
    if (!outs.is_array())
        return bad(file, "outputs must be a list of outputs, not " + std::string(outs.type_name()),
                   "write each output as '- name: ...'");
    std::set<std::string> names;
    for (const auto& o : outs) {
        if (!o.is_object())
            return bad(file, "outputs: '" + shown(o) + "' is not an output", "write each output as '- name: ...'");
        if (!o.contains("name") || !o["name"].is_string()) continue;  // conda-build's own error comes later
        std::string name = o["name"].get<std::string>();
        std::string where = "output '" + name + "': ";
        if (!names.insert(name).second) {
            // conda-build accepts this (and builds one of them): a warning.
            Error e = duplicate_output(name, SourceLoc{file});
            if (diag.strict()) return unexpected(std::move(e));
            e.message += "; only the first is built";
            e.hint = "--strict makes this an error";
            diag.warn(e, "duplicate-output:" + name);
        }
        if (auto ok = check_build_number(o.value("build", Meta(nullptr)), where, file); !ok) return ok;
        if (auto ok = check_build_number(o, where, file, "number"); !ok) return ok;
        if (o.contains("requirements"))
            if (auto ok = check_requirements(o["requirements"], where, file, true); !ok) return ok;
    }
    return {};
}

IdentifierMarks IdentifierMarks::file(const std::string& file) {
    SourceLoc f{file};
    return {f, f, f, f, f, {}};
}

Result<void> check_script_env(const std::map<std::string, std::string>& env, const IdentifierMarks& at,
                              const std::string& where) {
    for (const auto& [k, v] : env) {
        if (auto ok = types::check_env_name(k); !ok) {
            auto mark = at.env_keys.find(k);
            return fail(mark != at.env_keys.end() ? mark->second : at.output, where + ok.error().message,
                        ok.error().hint);
        }
    }
    return {};
}

Result<void> check_identifiers(const RenderedOutput& o, const IdentifierMarks& at, bool has_build_string) {
    auto in_file = [&](const SourceLoc& loc, const Error& e, const std::string& where) {
        return fail(loc, where + e.message, e.hint);
    };
    if (auto ok = types::check_package_name(o.name); !ok) return in_file(at.name, ok.error(), "");
    if (auto ok = types::check_version(o.version); !ok) return in_file(at.version, ok.error(), o.name + ": ");
    if (o.build_number < 0)  // both front ends parse it with types::parse_build_number
        return fail(at.build_number, o.name + ": build number must be a non-negative integer, not " +
                                         std::to_string(o.build_number), "write e.g. 'number: 0'");
    if (has_build_string && o.unbuildable.empty())
        if (auto ok = types::check_build_string(o.build_string); !ok)
            return in_file(at.build_string, ok.error(), o.name + ": ");
    return check_script_env(o.script_env, at, o.name + ": ");
}

Result<void> check_recipe_identity(const RenderedRecipe& rr, const SourceLoc& name_at, const SourceLoc& version_at) {
    if (!rr.name.empty())
        if (auto ok = types::check_package_name(rr.name); !ok)
            return fail(name_at, ok.error().message, ok.error().hint);
    if (!rr.version.empty())
        if (auto ok = types::check_version(rr.version); !ok)
            return fail(version_at, (rr.name.empty() ? "" : rr.name + ": ") + ok.error().message, ok.error().hint);
    return {};
}

Error duplicate_output(const std::string& name, const SourceLoc& at) {
    return Error{at, "outputs: the name '" + name + "' is used twice", "give each output its own name"};
}

Result<void> check_computed_build_string(RenderedOutput& o, const std::string& file, Diagnostics& diag) {
    auto ok = types::check_build_string(o.build_string);
    if (ok) return {};
    const std::string& b = o.build_string;
    bool path_safe = b.find_first_of("/\\") == std::string::npos && b.find("..") == std::string::npos &&
                     std::none_of(b.begin(), b.end(), [](unsigned char c) { return c < 0x20 || c == 0x7f; });
    Error e{SourceLoc{file}, o.name + ": " + ok.error().message + ", computed by conda-build's rules from a spec",
            "give the spec conda-build reads the prefix from a plain version (e.g. 'python 3.14.*'), or set build/string"};
    if (!path_safe || diag.strict()) return unexpected(std::move(e));
    o.unbuildable = "no package may carry build string '" + b + "' (" + e.hint + ")";
    e.message += "; rendered as conda-build does, not buildable";
    e.hint = "--strict makes this an error";
    diag.warn(std::move(e), "build-string:" + o.name + "-" + b);
    return {};
}

}  // namespace sf::render
