// conda-build's output derivation (metadata.py get_output_metadata and
// get_output_metadata_set, utils.expand_reqs, insert_variant_versions) and
// the plain reads of a rendered meta dict the other meta_*.cpp share.
#include "render/meta.hpp"

#include <algorithm>
#include <charconv>
#include <cstring>

#include "render/meta_detail.hpp"
#include "render/pins.hpp"
#include "util/pyregex.hpp"
#include "util/strings.hpp"

namespace sf::render {
namespace detail {

std::string as_string(const Meta& v) {
    if (v.is_string()) return v.get<std::string>();
    if (v.is_null()) return "";
    return v.dump();
}

const Meta& section(const Meta& meta, const char* name) {
    static const Meta empty = Meta::object();
    if (!meta.is_object() || !meta.contains(name) || !meta[name].is_object()) return empty;
    return meta[name];
}

std::vector<std::string> reqs_of(const Meta& meta, const char* env) {
    const Meta& r = section(meta, "requirements");
    return r.contains(env) ? string_list(r[env]) : std::vector<std::string>{};
}

}  // namespace detail

using detail::as_string;
using detail::reqs_of;
using detail::section;

namespace {

// utils.expand_reqs: a plain list means host and run.
Meta expand_reqs(const Meta& reqs) {
    if (reqs.is_null()) return Meta::object();
    if (!reqs.is_object()) {
        Meta list = reqs.is_array() ? reqs : Meta::array({reqs});
        if (list.empty()) return Meta::object();
        return Meta{{"host", list}, {"run", list}};
    }
    Meta out = Meta::object();
    for (auto& [k, v] : reqs.items()) out[k] = v.is_array() ? v : (v.is_null() ? Meta::array() : Meta::array({v}));
    return out;
}

// `name` is in string_list(list): the list's items (or the one scalar) as strings.
bool lists_name(const Meta& list, const std::string& name) {
    auto is = [&](const Meta& x) { return !x.is_null() && (x.is_string() ? x.get_ref<const std::string&>() == name : x.dump() == name); };
    if (!list.is_array()) return is(list);
    return std::any_of(list.begin(), list.end(), is);
}

}  // namespace

void insert_variant_versions(Meta& reqs, const variant::Variant& v, const char* env) {
    auto at = reqs.find(env);
    if (at == reqs.end() || !at->is_array()) return;
    const bool build_env = std::strcmp(env, "build") == 0 || std::strcmp(env, "host") == 0;
    auto in_build = [&](const std::string& name) {
        for (const char* e : {"build", "host"})
            if (auto it = reqs.find(e); it != reqs.end() && lists_name(*it, name)) return true;
        return false;
    };
    Meta& list = *at;
    // conda-build matches ^(key with _ as [-_])\s*$ : the bare name, '-' or '_'.
    for (auto& item : list) {
        if (!item.is_string()) continue;
        const std::string& text = item.get_ref<const std::string&>();
        if (text.empty() || text.front() == ' ') continue;
        std::string name(str::trim(text));
        if (name.empty()) continue;
        std::string key = name;
        std::replace(key.begin(), key.end(), '-', '_');
        const std::string* val = v.get(key);  // keys are unique
        if (!val) continue;
        if (build_env || in_build(name)) item = ensure_valid_spec(name + " " + *val);
    }
    static const PyRegex xx_re(R"(([0-9a-zA-Z\.\-\_]+)\s+x\.x)");
    for (auto& item : list) {
        if (!item.is_string() || item.get_ref<const std::string&>().find("x.x") == std::string::npos) continue;
        auto m = xx_re.match(item.get_ref<const std::string&>());
        if (!m) continue;
        if (const std::string* val = v.get(m->str(1))) item = ensure_valid_spec(m->str(1) + " " + *val);
    }
}

bool meta_truthy(const Meta& v) {
    if (v.is_null()) return false;
    if (v.is_boolean()) return v.get<bool>();
    if (v.is_string()) {
        std::string s = str::lower(v.get<std::string>());
        if (s.empty() || s == "n" || s == "no" || s == "false" || s == "off") return false;
        return true;
    }
    if (v.is_array() || v.is_object()) return !v.empty();
    return true;
}

std::vector<std::string> string_list(const Meta& v) {
    std::vector<std::string> out;
    if (v.is_array()) {
        for (const auto& x : v)
            if (!x.is_null()) out.push_back(as_string(x));
    } else if (!v.is_null()) {
        out.push_back(as_string(v));
    }
    return out;
}

int build_number(const Meta& meta) {
    const Meta& b = section(meta, "build");
    if (!b.contains("number") || !meta_truthy(b["number"])) return 0;
    // check_shape() has accepted every build number (types::parse_build_number: digits, below 2^31).
    std::string s(str::trim(as_string(b["number"])));
    int n = 0;
    std::from_chars(s.data(), s.data() + s.size(), n);
    return n;
}


namespace {

// re.match("(?:^NAME(?:\\s|$|\\Z))", spec) with NAME unescaped, as conda-build
// writes it: by hand for names without regex syntax.
bool names_self(const std::string& name, const std::string& spec) {
    bool plain = std::all_of(name.begin(), name.end(), [](char c) {
        return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-';
    });
    if (!plain) return PyRegex("(?:^" + name + R"((?:\s|$|\Z)))").match(spec).has_value();
    if (spec.compare(0, name.size(), name) != 0) return false;
    if (spec.size() == name.size()) return true;
    return str::is_py_space(spec[name.size()]);
}

bool uses_subpackage(const VariantText& vt, const std::vector<std::string>& output_names) {
    auto run = reqs_of(vt.meta, "run");
    for (const auto& n : output_names)  // re.match("^" + n + r"(\s|\Z|$)", r)
        for (const auto& r : run)
            if (names_self(n, r)) return true;
    static const PyRegex pin_re(R"(\{\{\s*pin_subpackage\(.*\)\s*\}\})");
    const std::string& reqs_text =
        vt.recipe_text(R"((^requirements:.*?)(?=^test:|^extra:|^about:|^outputs:|\Z))", true);
    return reqs_text.find("pin_subpackage(") != std::string::npos && pin_re.matches_anywhere(reqs_text);
}

}  // namespace

Meta output_sections(const Meta& meta) {
    Meta out = Meta::object();
    if (meta.is_object())
        for (const auto& [k, val] : meta.items())
            if (k != "outputs" && k != "source") out[k] = val;
    return out;
}

// conda-build's get_output_metadata: the output named like the package is a
// copy of the top level, so its own test: never runs (lz4-c's 11 commands).
// We render the same; the maintainer hears about it (--strict: the error).
Result<void> warn_ignored_test(const VariantText& vt, const Meta& out, const std::string& name) {
    if (!vt.diag || !out.contains("test") || !out["test"].is_object() || out["test"].empty()) return {};
    std::string file = vt.raw ? vt.raw->meta_file : std::string("meta.yaml");
    Error e{SourceLoc{file},
            "outputs: the test: of '" + name +
                "' never runs: conda-build gives the output named like the package the top level's "
                "test: (metadata.py get_output_metadata) [same-name-output-test]",
            "move its test: to the top level"};
    if (vt.diag->strict()) return unexpected(std::move(e));
    vt.diag->warn(std::move(e), file + '\x1f' + "same-name-output-test:" + name);
    return {};
}

namespace {

// The output entries of `outputs:`, read in place, never copied; the top
// level as an output of its own (`synthetic`) when there are none, or when
// none is named like it and the top level pins a subpackage.
std::vector<const Meta*> output_entries(const VariantText& vt, const std::string& top_name, const Meta& synthetic) {
    std::vector<const Meta*> outs;
    if (vt.meta.contains("outputs") && vt.meta["outputs"].is_array())
        for (const auto& o : vt.meta["outputs"]) outs.push_back(&o);
    if (outs.empty()) {
        outs.push_back(&synthetic);
        return outs;
    }
    std::vector<std::string> names;
    bool has_top = false;
    for (const Meta* o : outs) {
        std::string n = o->is_object() ? as_string(o->value("name", Meta(""))) : "";
        names.push_back(n);
        has_top |= n == top_name;
    }
    if (!has_top && uses_subpackage(vt, names)) outs.push_back(&synthetic);
    return outs;
}

// An output named like the top level merges its requirements, build and
// about into the top level's; the merged requirements replace its own.
Meta merge_into_top(Meta& top, const Meta& out) {
    Meta merged_reqs;
    for (const char* sec : {"requirements", "build", "about"}) {
        Meta msec = top.contains(sec) && top[sec].is_object() ? top[sec] : Meta::object();
        Meta osec = out.contains(sec) && !out[sec].is_null() ? out[sec] : Meta::object();
        if (std::string(sec) == "requirements") osec = expand_reqs(osec);
        if (!osec.is_object()) osec = Meta::object();
        for (auto& [k, val] : msec.items())
            if (!osec.contains(k)) osec[k] = val;
        if (std::string(sec) == "requirements") merged_reqs = osec;
        top[sec] = std::move(osec);
    }
    return merged_reqs;
}

// An output's requirements without the output itself.
Meta own_requirements(const Meta& reqs, const std::string& name) {
    Meta filtered = Meta::object();
    for (const char* env : {"build", "host", "run"}) {
        if (!reqs.contains(env)) continue;
        Meta list = Meta::array();
        for (const auto& r : reqs[env])
            if (!r.is_string() || !names_self(name, r.get<std::string>())) list.push_back(r);
        if (!list.empty()) filtered[env] = list;
    }
    if (reqs.contains("run_constrained") && !reqs["run_constrained"].empty())
        filtered["run_constrained"] = reqs["run_constrained"];
    for (auto& [k, val] : reqs.items())
        if (k != "build" && k != "host" && k != "run" && k != "run_constrained") filtered[k] = val;
    return filtered;
}

// An output's build section: the top level's, with the output's own keys
// (or its whole `build:`) over it.
Meta output_build(Meta build, const Meta& out, const Meta& top) {
    for (const char* key : {"entry_points", "run_exports", "script"}) {
        if (out.contains(key)) build[key] = out[key];
        else build.erase(key);
    }
    build["noarch"] = out.contains("noarch") ? out["noarch"] : Meta("false");
    build["noarch_python"] = out.contains("noarch_python") ? out["noarch_python"] : Meta("false");
    for (const char* key : {"number", "string", "run_exports", "track_features", "features"})
        if (out.contains(key) && meta_truthy(out[key])) build[key] = out[key];
    if (out.contains("build")) {
        Meta ob = out["build"].is_object() ? out["build"] : Meta::object();
        if (!ob.contains("number"))
            ob["number"] = out.contains("number") ? out["number"] : Meta(std::to_string(build_number(top)));
        build = std::move(ob);
    }
    return build;
}

// The metadata of an output not named like the top level: the top level's
// sections, but those this output replaces (null placeholders keep the key order).
Meta other_output_meta(const Meta& top, const Meta& out, const Meta& reqs, const std::string& name) {
    auto replaced = [&](const std::string& k) {
        return k == "requirements" || (k == "build" && out.contains("build")) ||
               ((k == "test" || k == "about") && out.contains(k));
    };
    Meta m = Meta::object();
    for (const auto& [k, val] : top.items()) m[k] = replaced(k) ? Meta() : val;
    m["requirements"] = own_requirements(reqs, name);
    m["package"]["name"] = name;
    std::string top_version = as_string(section(top, "package").value("version", Meta("")));
    m["package"]["version"] = out.contains("version") && meta_truthy(out["version"]) ? out["version"] : Meta(top_version);
    // Tests of the top level do not carry over to other outputs.
    if (m.contains("test") && m["test"].is_object()) {
        m["test"].erase("commands");
        m["test"].erase("imports");
    }
    Meta build = m.contains("build") && m["build"].is_object() ? std::move(m["build"]) : Meta::object();
    m["build"] = output_build(std::move(build), out, top);
    if (out.contains("test")) m["test"] = out["test"];
    if (out.contains("about")) m["about"] = out["about"];
    return m;
}

}  // namespace

Result<std::vector<OutputMeta>> derive_outputs(const VariantText& vt, const variant::Variant& v, bool variant_versions) {
    Meta top = output_sections(vt.meta);
    std::string top_name = as_string(section(top, "package").value("name", Meta("")));
    const Meta synthetic = Meta{{"name", top_name}};
    bool has_package = vt.raw->text.find("package:") != std::string::npos;
    std::vector<OutputMeta> result;
    for (const Meta* outp : output_entries(vt, top_name, synthetic)) {
        const Meta& out = *outp;
        if (!out.is_object()) continue;
        std::string name = as_string(out.value("name", Meta(top_name)));
        std::optional<Meta> merged_reqs;
        if (name == top_name && has_package) merged_reqs = merge_into_top(top, out);
        const bool has_reqs = merged_reqs || out.contains("requirements");
        Meta reqs = has_reqs ? expand_reqs(merged_reqs ? *merged_reqs : out["requirements"]) : Meta::object();
        if (variant_versions)
            for (const char* env : {"build", "host", "run"}) insert_variant_versions(reqs, v, env);
        if (name == top_name) top["requirements"] = has_reqs ? reqs : top.value("requirements", Meta::object());

        OutputMeta om;
        om.name = name;
        om.is_output = name != top_name;
        if (!om.is_output) {
            om.meta = top;
            if (auto ok = warn_ignored_test(vt, out, name); !ok) return unexpected(ok.error());
        } else {
            om.meta = other_output_meta(top, out, reqs, name);
        }
        om.output_dict = Meta::object();
        for (const char* key : {"script", "files"})
            if (out.contains(key)) om.output_dict[key] = out[key];
        result.push_back(std::move(om));
    }
    return result;
}

}  // namespace sf::render
