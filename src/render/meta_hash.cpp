// conda-build's per-output hash inputs (metadata.py get_used_vars,
// get_hash_contents) and build string (build_id,
// build_string_from_metadata), rule for rule.
#include <algorithm>
#include <cctype>
#include <cstdint>

#include "render/meta.hpp"
#include "render/meta_detail.hpp"
#include "render/pin_text.hpp"
#include "types/match_spec.hpp"
#include "util/pyregex.hpp"
#include "util/strings.hpp"

namespace sf::render {

using detail::as_string;
using detail::reqs_of;
using detail::section;

namespace {

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

namespace {

// The text scans of used_vars(): they depend only on which output this is
// and on which selectors hold, so they are memoized across variants.
const TextCache::Scan& text_scan(const VariantText& vt, const OutputMeta& om, const variant::UsedVarScanner& scanner,
                                 UsedVarsOptions opts) {
    std::string scan_key = om.name + '\x1f' + (om.is_output ? "o" : "t") + (opts.force_global ? "g" : "l") +
                           (opts.force_top_level ? "T" : "") +
                           '\x1f' + std::to_string(reinterpret_cast<std::uintptr_t>(&scanner)) + '\x1f' +
                           vt.outcome_key;
    auto [scan_it, fresh] = vt.cache->scans.try_emplace(scan_key);
    TextCache::Scan* scan = &scan_it->second;
    if (!fresh) return *scan;
    if (opts.force_global) {
        scan->all = scanner.in_text(vt.recipe_text(nullptr, false), variant::Scan::selectors_only);
        for (const auto& k : scanner.in_text(vt.recipe_text(nullptr, true), variant::Scan::full)) scan->all.insert(k);
        return *scan;
    }
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
    return *scan;
}

// Scripts: an output's own script, or the top level's build.sh / bld.bat.
// The keys a script file uses are memoized by scanner and file name:
// scripts do not change between variants.
void add_script_keys(const VariantText& vt, const OutputMeta& om, const variant::UsedVarScanner& scanner,
                     std::set<std::string>& used) {
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
        if (str::starts_with(vt.subdir, "win-")) script_keys("bld.bat");
    }
}

// build/force_use_keys and build/force_ignore_keys, and splitforge's
// recipe-level declarations (extra/splitforge): use_keys and ignore_keys
// apply everywhere; output_keys never split the staging build but are
// always looped over for the outputs (force_global).
void apply_forced_keys(const OutputMeta& om, UsedVarsOptions opts, std::set<std::string>& used) {
    const Meta& build = section(om.meta, "build");
    std::vector<std::string> force_use = build.contains("force_use_keys") ? string_list(build["force_use_keys"]) : std::vector<std::string>{};
    std::vector<std::string> force_ignore = build.contains("force_ignore_keys") ? string_list(build["force_ignore_keys"]) : std::vector<std::string>{};
    splitforge_keys(om.meta, "use_keys", force_use);
    splitforge_keys(om.meta, "ignore_keys", force_ignore);
    if (!om.is_output) splitforge_keys(om.meta, "output_keys", opts.force_global ? force_use : force_ignore);
    for (const auto& k : force_ignore) used.erase(k);
    for (const auto& k : force_use) used.insert(k);
}

}  // namespace

std::set<std::string> used_vars(const VariantText& vt, const OutputMeta& om, const variant::Variant& v,
                                const variant::Specials& sp, const variant::UsedVarScanner& scanner,
                                UsedVarsOptions opts) {
    const TextCache::Scan& scan = text_scan(vt, om, scanner, opts);
    std::set<std::string> used = scan.all;
    if (!opts.force_global) {
        const auto& req_used = scan.in_requirements;
        std::set<std::string> outside;
        for (const auto& k : used)
            if (!req_used.count(k)) outside.insert(k);
        for (const auto& k : trim_build_only_deps(om, req_used, sp)) outside.insert(k);
        used = std::move(outside);
    }
    add_script_keys(vt, om, scanner, used);
    const Meta& build = section(om.meta, "build");
    bool noarch = build.contains("noarch") && meta_truthy(build["noarch"]);
    if (v.has("target_platform") && !noarch) used.insert("target_platform");
    if (v.has("channel_targets")) used.insert("channel_targets");
    apply_forced_keys(om, opts, used);
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

namespace {

// The version of one prefix's package (e.g. python) in the build deps,
// else the variant's value.
std::string prefix_version(const std::vector<std::string>& names, const std::vector<std::string>& build_deps,
                           const variant::Variant& v) {
    std::vector<std::string> pkg_names = names;
    for (const auto& n : names)
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
    return version;
}

// build_string_from_metadata: py312 / np126 / pl / lua / r prefixes,
// the features, and the build number.
std::string build_string_from_metadata(const VariantText& vt, const OutputMeta& om, const variant::Variant& v) {
    const Meta& build = section(om.meta, "build");
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
                auto parts = str::split(prefix_version(p.names, build_deps, v), '.');
                std::string entry = p.s;
                for (size_t i = 0; i < std::min(p.places, parts.size()); ++i) entry += parts[i];
                if (std::find(res.begin(), res.end(), entry) == res.end()) res.push_back(entry);
            }
    auto features = build.contains("features") ? string_list(build["features"]) : std::vector<std::string>{};
    if (!res.empty()) res.push_back("_");
    if (!features.empty()) res.push_back(str::join(features, "_")), res.push_back("_");
    res.push_back(std::to_string(build_number(om.meta)));
    return str::join(res, "");
}

}  // namespace

std::string build_id(const VariantText& vt, const OutputMeta& om, const variant::Variant& v,
                     const std::string& hash) {
    const Meta& build = section(om.meta, "build");
    std::string manual = build.contains("string") && meta_truthy(build["string"]) ? as_string(build["string"]) : "";
    const std::string& text = own_section(vt, om, R"((^.*?)(?=^requirements:|^test:|^extra:|^about:|^outputs:|\Z))");
    bool raw_manual = text.find("string:") != std::string::npos;  // re.search(r"\s*string:", text)
    if (!manual.empty() && !(raw_manual && has_pkg_hash_ref(text))) return manual;

    std::string out = manual.empty() ? build_string_from_metadata(vt, om, v) : manual;
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
