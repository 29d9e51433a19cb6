// recipe.yaml evaluation for one variant; see v1_eval.hpp.
#include "render/v1_eval.hpp"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstdlib>
#include <optional>

#include "core/try.hpp"
#include "jinja/minijinja_display.hpp"
#include "render/v1_scalar.hpp"
#include "types/version.hpp"
#include "types/version_spec.hpp"
#include "util/strings.hpp"

namespace sf::render::v1 {

using jinja::Value;
using recipe::YamlNode;

namespace {

// rattler-build's short_version: the first `n` dot-separated parts, joined.
std::string short_version(const std::string& s, int n) {
    auto parts = str::split(s, '.');
    std::string out;
    for (int i = 0; i < n && i < static_cast<int>(parts.size()); ++i) out += parts[i];
    return out;
}

// Python's str.split(sep), and str.split() on whitespace when sep is empty.
std::vector<std::string> split_by(const std::string& s, const std::string& sep) {
    std::vector<std::string> out;
    if (sep.empty()) {
        std::string cur;
        for (char c : s) {
            if (std::isspace((unsigned char)c)) {
                if (!cur.empty()) out.push_back(std::move(cur));
                cur.clear();
            } else {
                cur += c;
            }
        }
        if (!cur.empty()) out.push_back(std::move(cur));
        return out;
    }
    size_t pos = 0;
    for (size_t at; (at = s.find(sep, pos)) != std::string::npos; pos = at + sep.size()) out.push_back(s.substr(pos, at - pos));
    out.push_back(s.substr(pos));
    return out;
}

Result<Value> need_string(const jinja::List& args, size_t i, const char* fn) {
    if (args.size() <= i || !args[i].is_string())
        return fail(std::string(fn) + "() expects a string as argument " + std::to_string(i + 1));
    return args[i];
}

const Value* kwarg(const jinja::KwArgs& kw, std::string_view name) {
    for (const auto& [k, v] : kw)
        if (k == name) return &v;
    return nullptr;
}

// pin_subpackage / pin_compatible: a dict render/v1 turns into a types::Pin.
jinja::Function pin_function(const char* kind) {
    return [kind](const jinja::List& args, const jinja::KwArgs& kw) -> Result<Value> {
        SF_TRY(name, need_string(args, 0, kind));
        jinja::Dict d{{kPinKey, Value(kind)}, {"name", name}};
        for (const auto& [k, v] : kw) {
            if (k == "min_pin" || k == "max_pin")
                return fail("`" + k + "` is not supported anymore",
                            std::string("use `") + (k == "min_pin" ? "lower_bound" : "upper_bound") + "` instead");
            if (k != "lower_bound" && k != "upper_bound" && k != "exact" && k != "build")
                return fail(std::string(kind) + "() got an unexpected keyword argument '" + k + "'",
                            "its arguments are lower_bound, upper_bound, exact and build");
            d.emplace_back(k, v);
        }
        const Value* exact = kwarg(kw, "exact");
        if (exact && exact->truthy() && kwarg(kw, "build"))
            return fail("Cannot set `exact` and `build` at the same time.");
        return Value(std::move(d));
    };
}

std::string platform_family(const types::Platform& p) {
    std::string os = p.os();
    return os == "windows" ? "win" : os;
}

}  // namespace

// rattler-build's Variable prints a boolean as Rust does (true, false), and
// everything else as minijinja displays it.
std::string to_text(const Value& v) {
    if (v.is_bool()) return v.as_bool() ? "true" : "false";
    return jinja::minijinja::display(v);
}

Env::Env(const recipe::V1Recipe& r, const types::Platform& target, const types::Platform& build, const Vars& variant,
         ExprCache& cache, const Environ& environ)
    : r_(r), cache_(cache) {
    add_functions(target, build, environ);
    vars_.base = &base_;
    vars_.hooks.accessed = &accessed_;
    vars_.hooks.filters = &filters_;
    vars_.hooks.display = &jinja::minijinja::display;
    // rattler-build's minijinja is Strict: an unknown name fails where it is
    // used, and match() takes it (true: "searching all variants").
    static const std::set<std::string, std::less<>> undefined_ok{"match"};
    vars_.hooks.undefined_ok = &undefined_ok;
    vars_.undefined = jinja::Undefinedness::at_use;
    for (const auto& [k, v] : variant) vars_.globals[k] = v;
}

namespace {

using Globals = std::map<std::string, Value, std::less<>>;

// The platform names rattler-build's Jinja defines: target/build/host
// platform, unix, each family (linux, osx, win, ...), each arch and each
// subdir without its dash (linux64), true only for the target.
void add_platform_names(Globals& g, const types::Platform& target, const types::Platform& build) {
    g["target_platform"] = target.name();
    g["build_platform"] = build.name();
    g["host_platform"] = target.name();
    g["unix"] = !target.is_noarch() && platform_family(target) != "win";
    for (const auto& p : types::Platform::known()) {
        auto plat = types::Platform::parse(p);
        if (!plat || plat->is_noarch()) continue;
        std::string alias = p;
        alias.erase(std::remove(alias.begin(), alias.end(), '-'), alias.end());
        g[alias] = p == target.name();
        std::string fam = platform_family(*plat), arch = plat->arch();
        if (!fam.empty() && !g.count(fam)) g[fam] = fam == platform_family(target);
        if (!arch.empty() && !g.count(arch)) g[arch] = arch == target.arch();
    }
    g["SHLIB_EXT"] = platform_family(target) == "osx" ? ".dylib" : platform_family(target) == "win" ? ".dll" : ".so";
}

// compiler(), stdlib() and cdt(): they read variant keys, and say so.
void add_tools(Globals& g, std::set<std::string, std::less<>>* accessed, Globals* vars, const types::Platform& target) {
    std::string tp = target.name();
    auto tool = [accessed, vars, tp](std::string lang, std::string what, bool has_default) -> Result<Value> {
        std::string key = lang + "_" + what, vkey = key + "_version";
        accessed->insert(key);
        accessed->insert(vkey);
        accessed->insert("CONDA_BUILD_SYSROOT");
        std::string name;
        if (auto it = vars->find(key); it != vars->end()) name = to_text(it->second);
        else if (has_default) name = lang == "c" ? "gcc" : lang == "cxx" ? "gxx" : lang == "fortran" ? "gfortran" : lang;
        else return fail("No " + what + " found for language: " + lang, "add `" + key + "` to your variant config file");
        if (str::starts_with(tp, "osx-") && has_default && (lang == "c" || lang == "cxx") && !vars->count(key))
            name = lang == "c" ? "clang" : "clangxx";
        if (str::starts_with(tp, "win-") && has_default && (lang == "c" || lang == "cxx") && !vars->count(key))
            name = "vs2022";
        auto vit = vars->find(vkey);
        if (vit == vars->end()) return Value(name + "_" + tp);
        std::string ver = to_text(vit->second);
        bool simple = std::all_of(ver.begin(), ver.end(), [](char c) { return std::isalnum((unsigned char)c) || c == '.'; });
        return Value(name + "_" + tp + (simple ? " =" : " ") + ver);
    };
    g["compiler"] = jinja::Function([tool](const jinja::List& a, const jinja::KwArgs&) -> Result<Value> {
        SF_TRY(lang, need_string(a, 0, "compiler"));
        return tool(lang.as_string(), "compiler", true);
    });
    g["stdlib"] = jinja::Function([tool](const jinja::List& a, const jinja::KwArgs&) -> Result<Value> {
        SF_TRY(lang, need_string(a, 0, "stdlib"));
        return tool(lang.as_string(), "stdlib", false);
    });
    std::string arch = target.arch();
    g["cdt"] = jinja::Function([accessed, vars, arch](const jinja::List& a, const jinja::KwArgs&) -> Result<Value> {
        SF_TRY(pkg, need_string(a, 0, "cdt"));
        auto pick = [&](const std::string& key, std::string dflt) {
            auto it = vars->find(key);
            if (it == vars->end()) return dflt;
            accessed->insert(key);
            return to_text(it->second);
        };
        std::string cdt_arch = pick("cdt_arch", arch == "x86" ? "i686" : arch);
        bool cos7 = arch == "aarch64" || arch == "ppc64le" || arch == "s390x" || arch == "ppc64";
        std::string cdt_name = pick("cdt_name", cos7 ? "cos7" : "cos6");
        const std::string& s = pkg.as_string();
        auto sp = s.find(' ');
        if (sp == std::string::npos) return Value(s + "-" + cdt_name + "-" + cdt_arch);
        return Value(s.substr(0, sp) + "-" + cdt_name + "-" + cdt_arch + s.substr(sp));
    });
}

// pin_subpackage(), pin_compatible(), match() and the is_<os>() tests.
void add_helpers(Globals& g) {
    g["pin_subpackage"] = pin_function("pin_subpackage");
    g["pin_compatible"] = pin_function("pin_compatible");
    g["match"] = jinja::Function([](const jinja::List& a, const jinja::KwArgs&) -> Result<Value> {
        if (a.size() != 2 || !a[1].is_string()) return fail("match() expects a value and a version spec");
        if (a[0].is_undefined() || a[0].is_none()) return Value(true);
        std::string v = to_text(a[0]);
        v = v.substr(0, v.find(' '));
        while (str::ends_with(v, ".*")) v.resize(v.size() - 2);
        while (str::ends_with(v, "*")) v.pop_back();
        auto ver = types::Version::parse(v);
        if (!ver) return fail("match(): '" + v + "' is not a version");
        auto spec = types::VersionSpec::parse(a[1].as_string());
        if (!spec) return fail("match(): bad version spec '" + a[1].as_string() + "'");
        return Value(spec->matches(*ver));
    });
    for (const char* fam : {"linux", "osx", "windows", "unix", "ios", "android"}) {
        std::string f = fam;
        g["is_" + f] = jinja::Function([f](const jinja::List& a, const jinja::KwArgs&) -> Result<Value> {
            SF_TRY(p, need_string(a, 0, ("is_" + f).c_str()));
            auto plat = types::Platform::parse(p.as_string());
            if (!plat) return fail("Invalid platform: " + p.as_string());
            std::string fam2 = platform_family(*plat);
            if (f == "unix") return Value(!plat->is_noarch() && fam2 != "win");
            if (f == "windows") return Value(fam2 == "win");
            return Value(fam2 == f);
        });
    }
}

// env.get() and env.exists(), over the selection's environment. In a script
// (`undefined` lenient) an unset name without a default renders as "":
// rattler-build keeps script text unevaluated until the build runs it.
void add_env(Globals& g, const Env::Environ& environ, const jinja::Undefinedness* undefined) {
    const Env::Environ* overlay = &environ;
    auto lookup = [overlay](const std::string& name) -> std::optional<std::string> {
        for (auto it = overlay->rbegin(); it != overlay->rend(); ++it)
            if (it->first == name) return it->second;
        if (const char* v = std::getenv(name.c_str())) return std::string(v);
        return std::nullopt;
    };
    auto env_get = [lookup, undefined](const jinja::List& a, const jinja::KwArgs& kw) -> Result<Value> {
        SF_TRY(name, need_string(a, 0, "env.get"));
        if (auto v = lookup(name.as_string())) return Value(*v);
        if (const Value* d = kwarg(kw, "default")) return *d;
        if (a.size() > 1) return a[1];
        if (*undefined == jinja::Undefinedness::lenient) return Value(jinja::Undefined{"env." + name.as_string()});
        return fail("environment variable '" + name.as_string() + "' is not set", "give env.get() a default=");
    };
    auto env_exists = [lookup](const jinja::List& a, const jinja::KwArgs&) -> Result<Value> {
        SF_TRY(name, need_string(a, 0, "env.exists"));
        return Value(lookup(name.as_string()).has_value());
    };
    g["env"] = Value(jinja::Dict{{"get", Value(jinja::Function(env_get))}, {"exists", Value(jinja::Function(env_exists))}});
}

// jinja's own limit on one string value.
constexpr size_t kMaxJoined = 16u << 20;

void add_filters(std::map<std::string, jinja::Function, std::less<>>& filters) {
    filters["version_to_buildstring"] = [](const jinja::List& a, const jinja::KwArgs&) -> Result<Value> {
        std::string s = to_text(a[0]);
        s = s.substr(0, s.find_first_of(" \t"));
        return Value(short_version(s, 2));
    };
    // minijinja's own `string` and `join`: items print as it displays them.
    filters["string"] = [](const jinja::List& a, const jinja::KwArgs&) -> Result<Value> {
        return a[0].is_string() ? a[0] : Value(jinja::minijinja::display(a[0]));
    };
    filters["join"] = [](const jinja::List& a, const jinja::KwArgs& kw) -> Result<Value> {
        const Value* sep = a.size() > 1 ? &a[1] : kwarg(kw, "d");
        std::string joiner = sep && !sep->is_none() ? to_text(*sep) : "";
        // What minijinja iterates: a list's items, a map's keys, a string's characters.
        std::string out;
        size_t count = 0;
        auto emit = [&](const std::string& item) {
            if (count++) out += joiner;
            out += item;
            return out.size() <= kMaxJoined;
        };
        bool ok = true;
        const Value& in = a[0];
        if (in.is_list())
            for (size_t i = 0; ok && i < in.as_list().size(); ++i) ok = emit(jinja::minijinja::display(in.as_list()[i]));
        else if (in.is_dict())
            for (size_t i = 0; ok && i < in.as_dict().size(); ++i) ok = emit(in.as_dict()[i].first);
        else if (in.is_string())
            for (size_t i = 0, n = 1; ok && i < in.as_string().size(); i += n) {
                auto lead = static_cast<unsigned char>(in.as_string()[i]);
                n = lead < 0x80 ? 1 : lead < 0xe0 ? 2 : lead < 0xf0 ? 3 : 4;
                ok = emit(in.as_string().substr(i, n));
            }
        else return fail("cannot join value of type " + std::string(in.type_name()));
        if (!ok) return fail("string result is too long");
        return jinja::Value(std::move(out));
    };
    filters["split"] = [](const jinja::List& a, const jinja::KwArgs& kw) -> Result<Value> {
        std::string s = to_text(a[0]);
        jinja::List out;
        const Value* sep = a.size() > 1 ? &a[1] : kwarg(kw, "split");
        for (auto& w : split_by(s, !sep || sep->is_none() ? std::string() : to_text(*sep))) out.emplace_back(w);
        return Value(std::move(out));
    };
}

}  // namespace

void Env::add_functions(const types::Platform& target, const types::Platform& build, const Environ& environ) {
    add_platform_names(base_.globals, target, build);
    add_tools(base_.globals, &accessed_, &vars_.globals, target);
    add_helpers(base_.globals);
    add_env(base_.globals, environ, &vars_.undefined);
    add_filters(filters_);
}

Result<Value> Env::eval_expr(std::string_view expr, const YamlNode& where, int offset) {
    // Keyed by place too: an error must name the node it came from.
    std::string key = std::to_string(where.line) + ":" + std::to_string(where.col + offset) + ":";
    key.append(expr);
    auto it = cache_.parsed.find(key);
    if (it == cache_.parsed.end()) {
        jinja::Origin o{r_.file, where.line + 1, where.col + 1 + offset};
        SF_TRY(e, jinja::Expression::parse(expr, o, jinja::Dialect::minijinja));
        it = cache_.parsed.emplace(std::move(key), std::move(e)).first;
    }
    auto v = it->second.evaluate(vars_);
    if (!v && str::ends_with(v.error().message, "is undefined"))
        v.error().hint = "define it under 'context:' or in a variant file (variants.yaml, -m)";
    return v;
}

namespace {

// The end of a `${{ ... }}` starting at `open` (the index after `${{`):
// the index of its `}}`, skipping quoted strings; npos when unclosed.
size_t expr_end(std::string_view s, size_t open) {
    char quote = 0;
    for (size_t i = open; i < s.size(); ++i) {
        char c = s[i];
        if (quote) {
            if (c == '\\') ++i;
            else if (c == quote) quote = 0;
        } else if (c == '\'' || c == '"') {
            quote = c;
        } else if (c == '}' && i + 1 < s.size() && s[i + 1] == '}') {
            return i;
        }
    }
    return std::string_view::npos;
}

// rattler-build's parse_scalar_to_variable: a plain scalar by marked_yaml's
// rule, and a null one (`~`, `null`) too, as its text.
Value plain_scalar(const YamlNode& n) {
    return n.plain ? marked_yaml_scalar(n.scalar) : Value(n.scalar);
}

// rattler-build's is_simple_expression: one `${{ ... }}` spanning the
// trimmed text.
bool is_single_expression(std::string_view s) {
    s = str::trim(s);
    return str::starts_with(s, "${{") && str::ends_with(s, "}}") &&
           s.substr(3, s.size() - 5).find("${{") == std::string_view::npos;
}

// rattler-build's parse_rendered_value: true/false in any case, an i64, or
// the text.
Value rendered_scalar(const std::string& s) {
    std::string t(str::trim(s)), low;
    for (char c : t) low += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    if (low == "true" || low == "false") return Value(low == "true");
    if (!t.empty()) {
        size_t digits = t[0] == '+' || t[0] == '-' ? 1 : 0;
        if (digits < t.size() && t.find_first_not_of("0123456789", digits) == std::string::npos) {
            errno = 0;
            long long v = std::strtoll(t.c_str(), nullptr, 10);
            if (errno != ERANGE) return Value(static_cast<std::int64_t>(v));
        }
    }
    return Value(s);
}

}  // namespace

Result<Value> Env::value(const YamlNode& n) {
    if (n.is_null()) return Value(jinja::None{});
    if (!n.is_scalar()) return fail(r_.at(n), "expected a value here, found a " + std::string(n.is_mapping() ? "mapping" : "list"));
    const std::string& s = n.scalar;
    size_t open = s.find("${{");
    if (open == std::string::npos) return plain_scalar(n);
    std::string out;
    size_t pos = 0;
    std::optional<Value> only;
    while (open != std::string::npos) {
        size_t end = expr_end(s, open + 3);
        if (end == std::string::npos)
            return fail(r_.at(n), "unclosed '${{' expression", "close it with '}}'");
        SF_TRY(v, eval_expr(std::string_view(s).substr(open + 3, end - open - 3), n, static_cast<int>(open + 3)));
        bool whole = open == 0 && end + 2 == s.size();
        if (whole) only = v;
        out += s.substr(pos, open - pos);
        out += jinja::minijinja::display(v);  // minijinja's template output
        pos = end + 2;
        open = s.find("${{", pos);
    }
    if (only) return *only;
    out += s.substr(pos);
    return Value(std::move(out));
}

// rattler-build's with_context: list items are taken as written (typed,
// not evaluated); a quoted or block scalar is a string whatever its
// expression gives; one `${{ }}` keeps its value's type; a text of several is
// read back as a boolean or an integer when it spells one.
Result<Value> Env::context_value(const YamlNode& v) {
    if (v.is_sequence()) {
        jinja::List l;
        for (const auto& item : v.items)
            l.push_back(item.is_scalar() || item.is_null() ? plain_scalar(item) : Value(jinja::None{}));
        return Value(std::move(l));
    }
    if (v.is_null() && !v.scalar.empty()) return plain_scalar(v);
    SF_TRY(x, value(v));
    if (!v.is_scalar() || v.scalar.find("${{") == std::string::npos) return x;
    if (!v.plain) return Value(to_text(x));
    if (!x.is_string() || is_single_expression(v.scalar)) return x;
    return rendered_scalar(x.as_string());
}

Result<void> Env::eval_context() {
    const YamlNode* c = r_.section("context");
    if (!c || !c->is_mapping()) return {};
    for (const auto& [k, v] : c->pairs) {
        accessed_.clear();
        SF_TRY(val, context_value(v));
        // By name, as rattler-build's accessed_during_context: a context
        // value reading an earlier context value that shadows a variant key
        // counts that key too (render keeps only the variant's keys).
        read_by_context_.insert(accessed_.begin(), accessed_.end());
        context_[k.scalar] = val;
        vars_.globals[k.scalar] = std::move(val);
    }
    accessed_.clear();
    return {};
}

Result<std::string> Env::text(const YamlNode& n) {
    SF_TRY(v, value(n));
    if (v.is_dict() && v.get(kPinKey)) return fail(r_.at(n), "a pin cannot be used as text here");
    return to_text(v);
}

Result<std::string> Env::render_text(const std::string& s, const YamlNode& where) {
    YamlNode n = where;
    n.scalar = s;
    n.plain = false;
    return text(n);
}

Result<bool> Env::condition(const YamlNode& cond) {
    if (!cond.is_scalar()) return fail(r_.at(cond), "the condition of 'if' must be an expression");
    if (cond.scalar.find("${{") != std::string::npos) {
        SF_TRY(v, value(cond));
        return v.truthy();
    }
    SF_TRY(v, eval_expr(cond.scalar, cond, 0));
    return v.truthy();
}

Result<bool> Env::skip_condition(const YamlNode& cond) {
    if (!cond.is_scalar() || cond.scalar.find("${{") == std::string::npos) return condition(cond);
    SF_TRY(s, text(cond));
    if (str::trim(s).empty()) return false;
    auto v = eval_expr(s, cond, 0);
    return v && v->truthy();  // rattler-build's is_skipped ignores a text it cannot evaluate
}

Result<std::vector<const YamlNode*>> Env::items(const YamlNode& n) {
    std::vector<const YamlNode*> out;
    auto add = [&](auto&& self, const YamlNode& x) -> Result<void> {
        if (x.is_null()) return {};
        if (x.is_sequence()) {
            for (const auto& i : x.items) SF_TRY_VOID(self(self, i));
            return {};
        }
        if (recipe::is_conditional(x)) {
            SF_TRY(yes, condition(*x.find("if")));
            const YamlNode* branch = yes ? x.find("then") : x.find("else");
            if (branch) SF_TRY_VOID(self(self, *branch));
            return {};
        }
        out.push_back(&x);
        return {};
    };
    SF_TRY_VOID(add(add, n));
    return out;
}

}  // namespace sf::render::v1
