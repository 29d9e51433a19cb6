#include "render/meta.hpp"

#include <algorithm>
#include <charconv>
#include <cstdint>
#include <cstring>

#include "render/pins.hpp"
#include "types/match_spec.hpp"
#include "render/pin_text.hpp"
#include "util/pyregex.hpp"
#include "util/strings.hpp"

namespace sf::render {
namespace {

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

std::vector<std::string> words(const std::string& s) {
    std::vector<std::string> out;
    std::string cur;
    for (char c : s) {
        if (std::isspace(static_cast<unsigned char>(c))) {
            if (!cur.empty()) out.push_back(cur), cur.clear();
        } else {
            cur += c;
        }
    }
    if (!cur.empty()) out.push_back(cur);
    return out;
}

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

std::vector<std::string> reqs_of(const Meta& meta, const char* env) {
    const Meta& r = section(meta, "requirements");
    return r.contains(env) ? string_list(r[env]) : std::vector<std::string>{};
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
    // check_shape() has accepted every build number (digits, below 10^9).
    std::string s(str::trim(as_string(b["number"])));
    int n = 0;
    std::from_chars(s.data(), s.data() + s.size(), n);
    return n;
}

const PyRegex& TextCache::regex(const std::string& pattern, unsigned flags) {
    std::string key = std::to_string(flags) + '\x1f' + pattern;
    auto it = regexes_.find(key);
    if (it == regexes_.end()) it = regexes_.emplace(key, PyRegex(pattern, flags)).first;
    return it->second;
}

namespace {

// A line-anchored piece of a section pattern: `^lit`, `^\s*lit`, or
// `^\s*-\s+name:`.
struct Anchor {
    bool ws = false;    // `\s*` after `^` (it may span blank lines)
    bool dash = false;  // `-\s+` before the literal
    std::string_view lit;
};
struct SectionPattern {
    std::string_view regex;  // what this matcher computes, as Python wrote it
    Anchor start;
    std::vector<Anchor> stops;  // `\Z` is always a stop
};

bool is_word(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }
bool line_start(std::string_view t, size_t p) { return p == 0 || (p <= t.size() && t[p - 1] == '\n'); }
size_t next_line(std::string_view t, size_t p) {
    size_t nl = t.find('\n', p);
    return nl == std::string_view::npos ? t.size() : nl + 1;
}


size_t anchor_end(std::string_view t, size_t p, const Anchor& a) {
    if (a.ws)
        while (p < t.size() && str::is_py_space(t[p])) ++p;
    if (a.dash) {
        if (p >= t.size() || t[p] != '-') return std::string_view::npos;
        size_t q = ++p;
        while (p < t.size() && str::is_py_space(t[p])) ++p;
        if (p == q) return std::string_view::npos;
    }
    return t.compare(p, a.lit.size(), a.lit) == 0 ? p + a.lit.size() : std::string_view::npos;
}

// conda-build's section regexes (multiline, dotall): `(START.*?)(?=STOP|...|\Z)`.
const std::vector<SectionPattern>& section_patterns() {
    static const std::vector<SectionPattern> patterns = {
        {R"((^outputs:.*?)(?=^test:|^extra:|^about:|\Z))",
         {false, false, "outputs:"},
         {{false, false, "test:"}, {false, false, "extra:"}, {false, false, "about:"}}},
        {R"((^requirements:.*?)(?=^test:|^extra:|^about:|^outputs:|\Z))",
         {false, false, "requirements:"},
         {{false, false, "test:"}, {false, false, "extra:"}, {false, false, "about:"}, {false, false, "outputs:"}}},
        {R"((^\s*requirements:.*?)(?=^\s*test:|^\s*extra:|^\s*about:|^\s*-\s+name:|^outputs:|\Z))",
         {true, false, "requirements:"},
         {{true, false, "test:"}, {true, false, "extra:"}, {true, false, "about:"}, {true, true, "name:"},
          {false, false, "outputs:"}}},
        {R"((^.*?)(?=^requirements:|^test:|^extra:|^about:|^outputs:|\Z))",
         {false, false, ""},
         {{false, false, "requirements:"}, {false, false, "test:"}, {false, false, "extra:"}, {false, false, "about:"},
          {false, false, "outputs:"}}},
    };
    return patterns;
}

// The first group, or nullopt when START never matches.
std::optional<std::string> match_section(std::string_view t, const SectionPattern& sp) {
    size_t from = 0, body = 0;
    while ((body = anchor_end(t, from, sp.start)) == std::string_view::npos) {
        if (from >= t.size()) return std::nullopt;
        from = next_line(t, from);
    }
    size_t q = line_start(t, body) ? body : next_line(t, body);
    for (; q < t.size(); q = next_line(t, q))
        if (std::any_of(sp.stops.begin(), sp.stops.end(),
                        [&](const Anchor& a) { return anchor_end(t, q, a) != std::string_view::npos; }))
            break;
    return std::string(t.substr(from, q - from));
}

// `^\ +-\ +(?:name|type)` at p, with the colon when `colon`: the end of it, or npos.
size_t item_head_end(std::string_view t, size_t p, bool colon = true) {
    size_t i = p;
    while (i < t.size() && t[i] == ' ') ++i;
    if (i == p || i >= t.size() || t[i] != '-') return std::string_view::npos;
    size_t j = ++i;
    while (i < t.size() && t[i] == ' ') ++i;
    if (i == j) return std::string_view::npos;
    for (std::string_view w : {"name:", "type:"}) {
        if (!colon) w.remove_suffix(1);
        if (t.compare(i, w.size(), w) == 0) return i + w.size();
    }
    return std::string_view::npos;
}

}  // namespace

// output_re's findall: `^\ +-\ +(?:name|type):.+?(?=^\w|\Z|^\ +-\ +(?:name|type))`
// (the stop needs no colon: `- type %X%` in a script ends an output's text).
std::vector<std::string> output_blocks(std::string_view t) {
    std::vector<std::string> out;
    for (size_t p = 0; p < t.size();) {  // p is always a line start
        size_t body = item_head_end(t, p);
        if (body == std::string_view::npos || body >= t.size()) {  // `.+?` needs a character
            p = next_line(t, p);
            continue;
        }
        size_t q = line_start(t, body + 1) ? body + 1 : next_line(t, body + 1);
        while (q < t.size() && !is_word(t[q]) && item_head_end(t, q, false) == std::string_view::npos)
            q = next_line(t, q);
        out.emplace_back(t.substr(p, q - p));
        p = q;
    }
    return out;
}

// `requirements:.+?(?=^\w|\Z|^\s+-\s(?=name|type))`'s whole match, or "".
std::string requirements_block(std::string_view t) {
    auto stops_at = [&](size_t q) {  // q is a line start
        if (is_word(t[q])) return true;
        size_t i = q;
        while (i < t.size() && str::is_py_space(t[i])) ++i;
        return i > q && i + 1 < t.size() && t[i] == '-' && str::is_py_space(t[i + 1]) &&
               (t.compare(i + 2, 4, "name") == 0 || t.compare(i + 2, 4, "type") == 0);
    };
    for (size_t at = t.find("requirements:"); at != std::string_view::npos; at = t.find("requirements:", at + 1)) {
        size_t body = at + std::string_view("requirements:").size();
        if (body >= t.size()) continue;  // `.+?` needs a character
        size_t q = line_start(t, body + 1) ? body + 1 : next_line(t, body + 1);
        while (q < t.size() && !stops_at(q)) q = next_line(t, q);
        return std::string(t.substr(at, q - at));
    }
    return "";
}

std::optional<std::string> section_fast_path(std::string_view pattern, std::string_view text) {
    for (const auto& sp : section_patterns())
        if (sp.regex == pattern) return match_section(text, sp).value_or("");
    return std::nullopt;
}

const std::string& TextCache::extract(const char* pattern, const std::string& text, const std::string& text_id) {
    std::string key = std::string(pattern) + '\x1f' + text_id;
    if (auto it = extracts_.find(key); it != extracts_.end()) return it->second;
    if (auto fast = section_fast_path(pattern, text)) return extracts_.emplace(std::move(key), std::move(*fast)).first->second;
    auto m = regex(pattern, PyRegex::multiline | PyRegex::dotall).search(text);
    return extracts_.emplace(std::move(key), m && m->group(1) ? *m->group(1) : std::string()).first->second;
}

namespace {
std::string text_key(const char* pattern, bool apply_selectors, const std::string& outcome_key) {
    return std::string(pattern ? pattern : "") + '\x1f' + (apply_selectors ? outcome_key : "raw");
}
void rstrip(std::string& s) {
    while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.pop_back();
}
}  // namespace

void VariantText::seed_selected_text(std::string text) const {
    rstrip(text);
    cache->memo.try_emplace(text_key(nullptr, true, outcome_key), std::move(text));
}

const std::string& VariantText::recipe_text(const char* pattern, bool apply_selectors) const {
    std::string key = text_key(pattern, apply_selectors, outcome_key);
    if (auto it = cache->memo.find(key); it != cache->memo.end()) return it->second;
    const std::string& source = pattern ? cache->extract(pattern, raw->text, "\x1eraw") : raw->text;
    std::optional<recipe::Selected> sel;
    if (apply_selectors) {
        const std::vector<recipe::SelectorLine>* lines = &raw->lines;
        if (pattern) {
            auto split = cache->split_lines.find(pattern);
            if (split == cache->split_lines.end()) split = cache->split_lines.emplace(pattern, recipe::split_selectors(source)).first;
            lines = &split->second;
        }
        if (auto s = recipe::apply_selectors(*lines, *ns, raw->meta_file, &cache->selectors, &outcomes, diag)) sel = std::move(*s);
    }
    std::string text = sel ? std::move(sel->text) : source;
    rstrip(text);
    return cache->memo.emplace(std::move(key), std::move(text)).first->second;
}

const std::string& VariantText::outputs_text(bool apply_selectors) const {
    return recipe_text(R"((^outputs:.*?)(?=^test:|^extra:|^about:|\Z))", apply_selectors);
}

const std::string& VariantText::single_output_text(const std::string& name, bool apply_selectors) const {
    std::string top_name = as_string(section(meta, "package").value("name", Meta("")));
    std::vector<std::string> names;
    if (meta.contains("outputs") && meta["outputs"].is_array() && !meta["outputs"].empty()) {
        for (const auto& o : meta["outputs"])
            names.push_back(o.is_object() && o.contains("name") ? as_string(o["name"]) : top_name);
    } else {
        names.push_back(top_name);
    }
    auto it = std::find(names.begin(), names.end(), name);
    if (it == names.end()) return cache->memo.try_emplace("\x1eunknown output\x1f" + name, name).first->second;
    size_t idx = static_cast<size_t>(it - names.begin());
    auto key_of = [&](size_t i) {
        return "\x1eoutput\x1f" + std::to_string(i) + '\x1f' + (apply_selectors ? outcome_key : "raw");
    };
    if (auto m = cache->memo.find(key_of(idx)); m != cache->memo.end()) return m->second;
    // Split the outputs section once per selection; every output's text is memoized.
    auto matches = output_blocks(outputs_text(apply_selectors));
    for (size_t i = 0; i < matches.size(); ++i) cache->memo.emplace(key_of(i), std::move(matches[i]));
    return cache->memo.try_emplace(key_of(idx)).first->second;
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

Result<std::vector<OutputMeta>> derive_outputs(const VariantText& vt, const variant::Variant& v, bool variant_versions) {
    Meta top = output_sections(vt.meta);
    std::string top_name = as_string(section(top, "package").value("name", Meta("")));
    std::string top_version = as_string(section(top, "package").value("version", Meta("")));
    // The output entries are read in place, never copied: an OutputMeta
    // keeps only the script and files of its entry.
    const Meta synthetic = Meta{{"name", top_name}};  // the top level as an output of its own
    std::vector<const Meta*> outs;
    if (vt.meta.contains("outputs") && vt.meta["outputs"].is_array())
        for (const auto& o : vt.meta["outputs"]) outs.push_back(&o);
    if (outs.empty()) {
        outs.push_back(&synthetic);
    } else {
        std::vector<std::string> names;
        bool has_top = false;
        for (const Meta* o : outs) {
            std::string n = o->is_object() ? as_string(o->value("name", Meta(""))) : "";
            names.push_back(n);
            has_top |= n == top_name;
        }
        if (!has_top && uses_subpackage(vt, names)) outs.push_back(&synthetic);
    }
    bool has_package = vt.raw->text.find("package:") != std::string::npos;
    std::vector<OutputMeta> result;
    for (const Meta* outp : outs) {
        const Meta& out = *outp;
        if (!out.is_object()) continue;
        std::string name = as_string(out.value("name", Meta(top_name)));
        // An output named like the top level merges its requirements, build
        // and about with the top level's; its merged requirements replace its own.
        std::optional<Meta> merged_reqs;
        if (name == top_name && has_package) {
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
        }
        const bool has_reqs = merged_reqs || out.contains("requirements");
        Meta reqs = has_reqs ? expand_reqs(merged_reqs ? *merged_reqs : out["requirements"]) : Meta::object();
        if (variant_versions)
            for (const char* env : {"build", "host", "run"}) insert_variant_versions(reqs, v, env);
        if (name == top_name) top["requirements"] = has_reqs ? reqs : top.value("requirements", Meta::object());

        OutputMeta om;
        om.name = name;
        if (name == top_name) {
            om.is_output = false;
            om.meta = top;
            if (auto ok = warn_ignored_test(vt, out, name); !ok) return unexpected(ok.error());
        } else {
            om.is_output = true;
            // The top level's sections, but those this output replaces
            // (null placeholders keep the key order).
            auto replaced = [&](const std::string& k) {
                return k == "requirements" || (k == "build" && out.contains("build")) ||
                       ((k == "test" || k == "about") && out.contains(k));
            };
            Meta m = Meta::object();
            for (const auto& [k, val] : top.items()) m[k] = replaced(k) ? Meta() : val;
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
            m["requirements"] = std::move(filtered);
            m["package"]["name"] = name;
            m["package"]["version"] = out.contains("version") && meta_truthy(out["version"]) ? out["version"] : Meta(top_version);
            // Tests of the top level do not carry over to other outputs.
            if (m.contains("test") && m["test"].is_object()) {
                m["test"].erase("commands");
                m["test"].erase("imports");
            }
            Meta build = m.contains("build") && m["build"].is_object() ? std::move(m["build"]) : Meta::object();
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
            m["build"] = std::move(build);
            if (out.contains("test")) m["test"] = out["test"];
            if (out.contains("about")) m["about"] = out["about"];
            om.meta = std::move(m);
        }
        om.output_dict = Meta::object();
        for (const char* key : {"script", "files"})
            if (out.contains(key)) om.output_dict[key] = out[key];
        result.push_back(std::move(om));
    }
    return result;
}

namespace {

std::set<std::string> trim_build_only_deps(const OutputMeta& om, std::set<std::string> used,
                                           const variant::Specials& sp) {
    auto names = [&](const char* env) {
        std::set<std::string> out;
        for (const auto& r : reqs_of(om.meta, env)) {
            size_t b = 0;  // the first word (r.split()[0])
            while (b < r.size() && std::isspace(static_cast<unsigned char>(r[b]))) ++b;
            size_t e = b;
            while (e < r.size() && !std::isspace(static_cast<unsigned char>(r[e]))) ++e;
            if (e == b) continue;
            std::string name = r.substr(b, e - b);
            std::replace(name.begin(), name.end(), '-', '_');
            out.insert(std::move(name));
        }
        return out;
    };
    auto build = names("build"), host = names("host");
    auto run = reqs_of(om.meta, "run");
    for (auto& r : run) r = strip_pin_placeholder(r);  // conda-build sees "tbb", not a pin, before finalizing
    const auto& ignore = sp.ignore_build_only_deps;
    std::set<std::string> out;
    for (const auto& dep : used) {
        bool remove = false;
        if (std::find(run.begin(), run.end(), dep) != run.end()) {
            remove = !build.count(dep) && !host.count(dep);
        } else {
            remove = build.count(dep) && !host.count(dep) &&
                     std::find(ignore.begin(), ignore.end(), dep) != ignore.end();
        }
        if (!remove) out.insert(dep);
    }
    return out;
}

// get_recipe_text() of this metadata: the output's own text, or the whole recipe.
const std::string& own_text(const VariantText& vt, const OutputMeta& om) {
    return om.is_output ? vt.single_output_text(om.name, true) : vt.recipe_text(nullptr, true);
}

// A section of own_text(), memoized by output and selector outcomes.
const std::string& own_section(const VariantText& vt, const OutputMeta& om, const char* pattern) {
    std::string id = "\x1eown\x1f" + (om.is_output ? om.name : std::string()) + '\x1f' + vt.outcome_key;
    return vt.cache->extract(pattern, own_text(vt, om), id);
}

const std::string& requirements_text(const VariantText& vt, const OutputMeta& om) {
    const char* pattern = own_text(vt, om).find("package:") != std::string::npos
                              ? R"((^requirements:.*?)(?=^test:|^extra:|^about:|^outputs:|\Z))"
                              : R"((^\s*requirements:.*?)(?=^\s*test:|^\s*extra:|^\s*about:|^\s*-\s+name:|^outputs:|\Z))";
    return own_section(vt, om, pattern);
}

// numpy in an output's requirements text: pinned `numpy x.x` (or a
// pin_compatible with max_pin='x.x'), and whether the hash leaves it out.
// Pure functions of the text, memoized by the text (TextCache owns it).
const TextCache::NumpyPins& numpy_pins(const VariantText& vt, const OutputMeta& om) {
    const std::string& text = requirements_text(vt, om);
    auto [it, fresh] = vt.cache->numpy_pins.try_emplace(&text);
    if (!fresh || text.find("numpy") == std::string::npos) return it->second;  // every pattern spells it
    static const PyRegex xx_re(R"((numpy\s*x\.x)|pin_compatible\([\'\"]numpy.*max_pin=[\'\"]x\.x[\'\"])");
    static const PyRegex compat(R"(pin_\w+\([\'\"]numpy[\'\"])");
    static const PyRegex compat_x(R"(pin_\w+\([\'\"]numpy[\'\"].*((?<=x_pin=[\'\"])[x\.]*(?=[\'\"])))");
    // Each pattern needs a literal: "x.x", "pin_", "x_pin=".
    it->second.xx = text.find("x.x") != std::string::npos && xx_re.matches_anywhere(text);
    bool pin_compatible = text.find("pin_") != std::string::npos && compat.matches_anywhere(text);
    bool not_xx = true;
    if (pin_compatible && text.find("x_pin=") != std::string::npos)
        if (auto m = compat_x.search(text)) {
            const std::string pin = m->str(1);  // one string: begin() and end() of two copies are UB
            not_xx = std::count(pin.begin(), pin.end(), 'x') != 2;
        }
    it->second.excluded = it->second.xx || (pin_compatible && !not_xx);
    return it->second;
}

void splitforge_keys(const Meta& meta, const std::string& field, std::vector<std::string>& out) {
    const Meta& extra = section(meta, "extra");
    if (!extra.contains("splitforge") || !extra["splitforge"].is_object()) return;
    const Meta& sf = extra["splitforge"];
    if (sf.contains(field)) {
        auto l = string_list(sf[field]);
        out.insert(out.end(), l.begin(), l.end());
    }
}

}  // namespace

std::set<std::string> used_vars(const VariantText& vt, const OutputMeta& om, const variant::Variant& v,
                                const variant::Specials& sp, const variant::UsedVarScanner& scanner,
                                UsedVarsOptions opts) {
    // The text scans depend only on which output this is and on which
    // selectors hold: memoized across variants.
    std::string scan_key = om.name + '\x1f' + (om.is_output ? "o" : "t") + (opts.force_global ? "g" : "l") +
                           (opts.force_top_level ? "T" : "") +
                           '\x1f' + std::to_string(reinterpret_cast<std::uintptr_t>(&scanner)) + '\x1f' +
                           vt.outcome_key;
    auto [scan_it, fresh] = vt.cache->scans.try_emplace(scan_key);
    TextCache::Scan* scan = &scan_it->second;
    if (fresh) {
        if (opts.force_global) {
            scan->all = scanner.in_text(vt.recipe_text(nullptr, false), variant::Scan::selectors_only);
            for (const auto& k : scanner.in_text(vt.recipe_text(nullptr, true), variant::Scan::full)) scan->all.insert(k);
        } else {
            auto text_for = [&](bool apply) -> const std::string& {
                if (om.is_output && !opts.force_top_level) return vt.single_output_text(om.name, apply);
                // The recipe without its outputs, plus this output's text:
                // the same for every scanner, so memoized with the texts.
                std::string key = "\x1etop\x1f" + om.name + '\x1f' + (apply ? vt.outcome_key : "raw");
                if (auto it = vt.cache->memo.find(key); it != vt.cache->memo.end()) return it->second;
                std::string all = vt.recipe_text(nullptr, apply);  // a copy, edited below
                std::string outs = std::string(str::trim(vt.outputs_text(apply)));
                if (!outs.empty()) all = str::replace_all(all, outs, "");
                all += vt.single_output_text(om.name, apply);
                return vt.cache->memo.emplace(std::move(key), std::move(all)).first->second;
            };
            const std::string& raw_text = text_for(false);
            const std::string& sel_text = text_for(true);
            std::string reqs_text = requirements_block(sel_text);
            scan->all = scanner.in_text(raw_text, variant::Scan::selectors_only);
            for (const auto& k : scanner.in_text(sel_text, variant::Scan::full)) scan->all.insert(k);
            scan->in_requirements = scanner.in_text(reqs_text, variant::Scan::full);
        }
    }
    std::set<std::string> used = scan->all;
    if (!opts.force_global) {
        const auto& req_used = scan->in_requirements;
        std::set<std::string> outside;
        for (const auto& k : used)
            if (!req_used.count(k)) outside.insert(k);
        for (const auto& k : trim_build_only_deps(om, req_used, sp)) outside.insert(k);
        used = std::move(outside);
    }
    // Scripts: an output's own script, or the top level's build.sh / bld.bat.
    bool win = str::starts_with(vt.subdir, "win-");
    // The keys a script file uses, by scanner and file name: scripts do not
    // change between variants.
    auto script_keys = [&](const std::string& script) {
        std::string key = std::to_string(reinterpret_cast<std::uintptr_t>(&scanner)) + '\x1f' + script;
        auto [it, fresh_script] = vt.cache->script_scans.try_emplace(key);
        if (fresh_script)
            if (auto t = vt.raw->script_text(script))
                it->second = str::ends_with(script, ".bat") ? scanner.in_batch_script(*t) : scanner.in_shell_script(*t);
        used.insert(it->second.begin(), it->second.end());
    };
    if (om.is_output) {
        std::string script = om.output_dict.is_object() && om.output_dict.contains("script")
                                 ? as_string(om.output_dict["script"]) : "";
        if (str::ends_with(script, ".sh") || str::ends_with(script, ".bat")) script_keys(script);
    } else {
        script_keys("build.sh");
        if (win) script_keys("bld.bat");
    }
    const Meta& build = section(om.meta, "build");
    bool noarch = build.contains("noarch") && meta_truthy(build["noarch"]);
    if (v.has("target_platform") && !noarch) used.insert("target_platform");
    if (v.has("channel_targets")) used.insert("channel_targets");

    std::vector<std::string> force_use = build.contains("force_use_keys") ? string_list(build["force_use_keys"]) : std::vector<std::string>{};
    std::vector<std::string> force_ignore = build.contains("force_ignore_keys") ? string_list(build["force_ignore_keys"]) : std::vector<std::string>{};
    // splitforge's recipe-level declarations (extra/splitforge): use_keys and
    // ignore_keys apply everywhere; output_keys never split the staging build
    // but are always looped over for the outputs (force_global).
    splitforge_keys(om.meta, "use_keys", force_use);
    splitforge_keys(om.meta, "ignore_keys", force_ignore);
    if (!om.is_output) splitforge_keys(om.meta, "output_keys", opts.force_global ? force_use : force_ignore);
    for (const auto& k : force_ignore) used.erase(k);
    for (const auto& k : force_use) used.insert(k);
    return used;
}

nlohmann::json hash_contents(const VariantText& vt, const OutputMeta& om, const std::set<std::string>& used,
                             const variant::Variant& v, const variant::Specials& sp) {
    std::vector<std::string> excludes = {"python", "r_base", "perl", "lua"};
    excludes.insert(excludes.end(), sp.ignore_version.begin(), sp.ignore_version.end());
    if (used.count("numpy") && numpy_pins(vt, om).excluded) excludes.push_back("numpy");
    // re.match("|".join(e + r"[\s$]?.*" for e in excludes), key): a prefix
    // test while every exclude is a plain name, else the regex.
    bool plain = std::all_of(excludes.begin(), excludes.end(), [](const std::string& e) {
        return std::all_of(e.begin(), e.end(), [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-'; });
    });
    auto excluded = [&](const std::string& k) {
        if (plain) return std::any_of(excludes.begin(), excludes.end(), [&](const std::string& e) { return str::starts_with(k, e); });
        std::vector<std::string> alts;
        for (const auto& e : excludes) alts.push_back(e + R"([\s$]?.*)");
        return vt.cache->regex(str::join(alts, "|")).match(k).has_value();
    };
    std::vector<std::string> deps;
    for (const auto& k : used) {
        const std::string* val = v.get(k);
        if (!excluded(k) || (val && val->find(' ') != std::string::npos)) deps.push_back(k);
    }
    nlohmann::json h = nlohmann::json::object();
    if (!(deps.size() == 1 && deps[0] == "target_platform"))
        for (const auto& k : deps)
            if (const std::string* val = v.get(k)) h[k] = *val;
    for (const auto& r : reqs_of(om.meta, "run"))
        if (str::starts_with(r, "__")) h[r.substr(0, r.find(' '))] = strip_pin_placeholder(r);
    return h;
}

namespace {

// re.search(r"h\{\{\s*PKG_HASH\s*\}\}", text): by hand on ASCII text.
bool has_pkg_hash_ref(const std::string& text) {
    if (text.find("PKG_HASH") == std::string::npos) return false;
    if (!str::is_ascii(text)) {
        static const PyRegex re(R"(h\{\{\s*PKG_HASH\s*\}\})");
        return re.matches_anywhere(text);
    }
    auto skip = [&](size_t i) {
        while (i < text.size() && str::is_py_space(text[i])) ++i;
        return i;
    };
    for (size_t p = text.find("h{{"); p != std::string::npos; p = text.find("h{{", p + 1)) {
        size_t q = skip(p + 3);
        if (text.compare(q, 8, "PKG_HASH") != 0) continue;
        q = skip(q + 8);
        if (text.compare(q, 2, "}}") == 0) return true;
    }
    return false;
}

}  // namespace

std::string build_id(const VariantText& vt, const OutputMeta& om, const variant::Variant& v,
                     const std::string& hash) {
    const Meta& build = section(om.meta, "build");
    std::string manual = build.contains("string") && meta_truthy(build["string"]) ? as_string(build["string"]) : "";
    const std::string& text = own_section(vt, om, R"((^.*?)(?=^requirements:|^test:|^extra:|^about:|^outputs:|\Z))");
    bool raw_manual = text.find("string:") != std::string::npos;  // re.search(r"\s*string:", text)
    if (!manual.empty() && !(raw_manual && has_pkg_hash_ref(text))) return manual;

    std::string out = manual;
    if (out.empty()) {
        // build_string_from_metadata: py312 / np126 / pl / lua / r prefixes.
        bool is_cross = section(om.meta, "requirements").contains("host");
        auto build_deps = reqs_of(om.meta, is_cross ? "host" : "build");
        std::vector<std::string> build_names;
        for (const auto& d : build_deps) build_names.push_back(types::MatchSpec::name_of(strip_pin_placeholder(d)));
        std::vector<std::string> run_names;
        for (const auto& d : reqs_of(om.meta, "run")) run_names.push_back(types::MatchSpec::name_of(strip_pin_placeholder(d)));
        std::string noarch = build.contains("noarch") ? as_string(build["noarch"]) : "";
        bool noarch_python = build.contains("noarch_python") && meta_truthy(build["noarch_python"]);
        struct Prefix { const char* s; std::vector<std::string> names; size_t places; };
        const Prefix prefixes[] = {{"np", {"numpy"}, 2}, {"py", {"python"}, 2}, {"pl", {"perl"}, 3},
                                   {"lua", {"lua"}, 2}, {"r", {"r", "r-base"}, 2},
                                   {"mro", {"mro-base"}, 3}, {"mro", {"mro-base_impl"}, 3}};
        std::vector<std::string> res;
        for (const auto& p : prefixes)
            for (const auto& rn : run_names)
                for (const auto& name : p.names) {
                    if (rn != name || std::find(build_names.begin(), build_names.end(), name) == build_names.end()) continue;
                    if (name == "numpy" && !numpy_pins(vt, om).xx) continue;
                    if (noarch == name || (noarch_python && name == "python")) {
                        res.push_back(p.s);
                        continue;
                    }
                    std::vector<std::string> pkg_names = p.names;
                    for (const auto& n : p.names)
                        if (n.find('-') != std::string::npos) pkg_names.push_back(str::replace_all(n, "-", "_"));
                    std::string version;
                    for (const auto& n : pkg_names) {
                        for (const auto& d : build_deps) {
                            auto w = words(strip_pin_placeholder(d));
                            if (w.size() > 1 && w[0] == n) version = w[1];
                        }
                        if (version.empty()) version = v.value_or(str::replace_all(n, "-", "_"), "");
                        if (!version.empty()) break;
                    }
                    auto parts = str::split(version, '.');
                    std::string entry = p.s;
                    for (size_t i = 0; i < std::min(p.places, parts.size()); ++i) entry += parts[i];
                    if (std::find(res.begin(), res.end(), entry) == res.end()) res.push_back(entry);
                }
        auto features = build.contains("features") ? string_list(build["features"]) : std::vector<std::string>{};
        if (!res.empty()) res.push_back("_");
        if (!features.empty()) res.push_back(str::join(features, "_")), res.push_back("_");
        res.push_back(std::to_string(build_number(om.meta)));
        out = str::join(res, "");
    }
    static const PyRegex hash_re(R"(h[0-9a-f]{7})");
    if (!hash_re.matches_anywhere(out)) {
        auto us = out.rfind('_');
        std::string head = us == std::string::npos ? out : out.substr(0, us);
        bool numeric = !head.empty() && std::all_of(head.begin(), head.end(), [](char c) { return std::isdigit(static_cast<unsigned char>(c)); });
        std::string rebuilt = numeric ? (hash.empty() ? head : hash + "_" + head) : head + hash;
        if (us != std::string::npos) rebuilt += "_" + out.substr(us + 1);
        return rebuilt;
    }
    return boost::regex_replace(out, boost::regex("h[0-9a-f]{7}"), hash);
}

}  // namespace sf::render
