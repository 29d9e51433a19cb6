#include "recipe/selectors.hpp"

#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <optional>
#include <set>
#include <unordered_map>

#include "types/platform.hpp"
#include "util/pyregex.hpp"
#include "util/strings.hpp"

extern char** environ;

namespace sf::recipe {

std::optional<SelectorMatch> match_selector_by_regex(std::string_view line) {
    // conda-build's sel_pat: a selector at the end of the line, optionally
    // inside a comment; trailing characters are allowed only after a comment.
    // Group 4 (added here) is the tail after the ']', which places group 3.
    static const PyRegex sel_pat(R"((.+?)\s*(#.*)?\[([^\[\]]+)\]((?(2)[^\(\)]*))$)");
    auto m = sel_pat.match(line);
    if (!m || !m->group(3)) return std::nullopt;
    size_t close = m->length - m->str(4).size() - 1;
    return SelectorMatch{m->str(1).size(), close - m->group(3)->size(), close};
}

std::optional<SelectorMatch> match_selector(std::string_view s) {
    // Printable ASCII and tabs only (\s and `.` differ between Python and
    // Boost elsewhere): any other line goes to the regex.
    if (!str::is_plain_ascii(s)) return match_selector_by_regex(s);
    size_t n = s.size();
    auto space = [&](size_t i) { return s[i] == ' ' || s[i] == '\t'; };
    // Case "#...[X]tail": the greedy `.*` takes the rightmost '[' whose next
    // bracket is a ']' (X non-empty) with no parenthesis after it.
    size_t hash_b = std::string_view::npos, hash_c = 0;
    for (size_t b = s.rfind('['); b != std::string_view::npos; b = b ? s.rfind('[', b - 1) : std::string_view::npos) {
        size_t c = s.find_first_of("[]", b + 1);
        if (c != std::string_view::npos && s[c] == ']' && c > b + 1 &&
            s.find_first_of("()", c + 1) == std::string_view::npos) {
            hash_b = b;
            hash_c = c;
            break;
        }
    }
    // Case "[X]" at the very end, nothing after it.
    bool ends_closed = n >= 3 && s[n - 1] == ']';
    // (.+?): the shortest group 1, then \s* to the '#' or the '['. Every
    // length up to the next non-space p reaches the same p, so the lengths
    // go from one such p to the next (linear, however deep the indent).
    for (size_t len = 1; len < n;) {
        size_t p = len;
        while (p < n && space(p)) ++p;
        if (p >= n) break;
        if (s[p] == '#' && hash_b != std::string_view::npos && p < hash_b) return SelectorMatch{len, hash_b + 1, hash_c};
        if (s[p] == '[' && ends_closed && p + 2 < n && s.find_first_of("[]", p + 1) == n - 1)
            return SelectorMatch{len, p + 1, n - 1};
        len = p + 1;
    }
    return std::nullopt;
}

std::vector<SelectorLine> split_selectors(std::string_view text) {
    std::vector<SelectorLine> out;
    auto views = str::split_line_views(text);
    out.reserve(views.size());
    for (std::string_view view : views) {
        while (!view.empty() && std::isspace(static_cast<unsigned char>(view.back()))) view.remove_suffix(1);
        std::string line(view);
        SelectorLine sl;
        std::string_view stripped = str::trim(line);
        if (stripped.empty() || stripped.front() == '#') {
            out.push_back(std::move(sl));
            continue;
        }
        std::string trailing_quote;
        if (line.back() == '\'' || line.back() == '"') trailing_quote = line.back();
        if (line.find('[') != std::string::npos && line.find(']') != std::string::npos) {
            if (auto m = match_selector(line); m && m->selector_end > m->selector_begin) {
                sl.selector = line.substr(m->selector_begin, m->selector_end - m->selector_begin);
                sl.selector_col = static_cast<int>(line.rfind('[' + *sl.selector + ']')) + 2;
                std::string kept = line.substr(0, m->text_end) + trailing_quote;
                while (!kept.empty() && std::isspace(static_cast<unsigned char>(kept.back()))) kept.pop_back();
                sl.text = std::move(kept);
                out.push_back(std::move(sl));
                continue;
            }
        }
        sl.text = std::move(line);
        out.push_back(std::move(sl));
    }
    return out;
}

namespace {

// A quoted string or a number: no selector anyone means, but a one-item
// flow list that the selector pattern took.
bool is_literal(std::string_view e) {
    e = str::trim(e);
    if (e.size() >= 2 && (e.front() == '\'' || e.front() == '"') && e.back() == e.front()) return true;
    return !e.empty() && e.find_first_not_of("0123456789.+-") == std::string_view::npos;
}

}  // namespace

namespace {

// The name in an "'x' is undefined" error, or "".
std::string undefined_name(const Error& e) {
    const std::string suffix = "' is undefined";
    if (e.message.size() < suffix.size() + 2 || e.message.front() != '\'' || !str::ends_with(e.message, suffix))
        return {};
    return e.message.substr(1, e.message.size() - suffix.size() - 1);
}

Result<jinja::Value> evaluate_once(const std::string& expr, const jinja::Origin& origin, const jinja::Context& ns,
                                   SelectorCache* cache) {
    if (!cache) return jinja::evaluate(expr, origin, ns);
    auto parsed = cache->parsed.find(expr);
    if (parsed == cache->parsed.end()) {
        auto e = jinja::Expression::parse(expr, origin);
        if (!e) return unexpected(e.error());
        parsed = cache->parsed.emplace(expr, std::move(*e)).first;
    }
    return parsed->second.evaluate(ns);
}

// conda-build's eval_selector: on a NameError, every occurrence of the name
// in the selector text (a plain substring replace) becomes False, and the
// selector is evaluated again.
Result<bool> evaluate_selector(const std::string& selector, const SourceLoc& at, const jinja::Context& ns,
                               SelectorCache* cache, Diagnostics* diag) {
    std::string expr = selector;
    std::optional<Error> first;  // what the selector as written gave
    for (int round = 0;; ++round) {
        auto v = evaluate_once(expr, {at.file, at.line, at.col}, ns, cache);
        if (v && round == 0 && is_literal(selector)) {
            // `key: ['1']`: conda-build reads the one-item flow list as a
            // selector holding a literal, and the list is gone.
            Error w{at, "[" + selector + "] at the end of a line is read as a selector (a literal, so " +
                            (v->truthy() ? "true" : "false") + "), as in conda-build: the line keeps only the text before it",
                    "write the list in block style, or add a comment after it; --strict makes this an error"};
            if (diag && diag->strict()) return unexpected(std::move(w));
            if (diag) diag->warn(std::move(w), at.str());
        }
        if (v) return v->truthy();
        Error e = v.error();
        if (e.loc.file != at.file || e.loc.line != at.line) e.loc = at;
        std::string name = undefined_name(e);
        if (name.empty() && first) e = *first;  // the tuple retry failed too: say what the selector gave
        if (name.empty() && expr.find(',') != std::string::npos && expr.front() != '(' && diag && !diag->strict()) {
            // Python reads `a, b` as a tuple, so a flow list at the end of a
            // line is a selector that holds, and the list is gone.
            Error w{at, "[" + selector + "] at the end of a line is read as a selector (a tuple, so true), as in "
                        "conda-build: the line keeps only the text before it",
                    "write the list in block style, or add a comment after it; --strict makes this an error"};
            diag->warn(std::move(w), at.str());
            first = e;
            expr = "(" + expr + ")";
            continue;
        }
        if (name.empty()) {
            e.message = "invalid selector [" + selector + "]: " + e.message;
            e.hint = selector.find(',') != std::string::npos
                         ? "a line ending in [...] is read as a selector; write the list in block style"
                         : "selectors are Python expressions over platform flags and variant keys";
            return unexpected(std::move(e));
        }
        e.message = "unknown name '" + name + "' in selector [" + selector + "]";
        if (!diag || diag->strict() || round > 64) {
            e.hint = "use a platform flag (linux, osx, win, x86_64, ...) or a variant key";
            return unexpected(std::move(e));
        }
        e.message += " reads as False, as in conda-build";
        e.hint = "--strict makes this an error";
        // A name the replacement itself made ("lin" turns "linux" into
        // "Falseux") is replaced too, without a warning of its own.
        if (selector.find(name) != std::string::npos) diag->warn(e, at.file + '\x1f' + name);
        expr = str::replace_all(std::move(expr), name, "False");
    }
}

}  // namespace

Result<Selected> apply_selectors(const std::vector<SelectorLine>& lines, const jinja::Context& ns,
                                 const std::string& file, SelectorCache* cache,
                                 std::map<std::string, bool>* outcomes, Diagnostics* diag) {
    Selected out;
    size_t size = 0;
    for (const auto& l : lines) size += l.text.size() + 1;
    out.text.reserve(size);
    out.source_line.reserve(lines.size());
    std::map<std::string, bool> local;
    std::map<std::string, bool>& seen = outcomes ? *outcomes : local;
    for (size_t i = 0; i < lines.size(); ++i) {
        const SelectorLine& l = lines[i];
        bool keep = true;
        if (l.selector) {
            auto it = seen.find(*l.selector);
            if (it != seen.end()) {
                keep = it->second;
            } else {
                auto v = evaluate_selector(*l.selector, SourceLoc{file, static_cast<int>(i) + 1, l.selector_col},
                                           ns, cache, diag);
                if (!v) return unexpected(v.error());
                keep = *v;
                seen.emplace(*l.selector, keep);
            }
        }
        if (keep) {
            out.text += l.text;
            out.text += '\n';
            out.source_line.push_back(static_cast<int>(i) + 1);
        }
    }
    return out;
}

namespace {

using jinja::KwArgs;
using jinja::List;
using jinja::Value;

Result<Value> one_arg(const List& args, const char* fn) {
    if (args.size() != 1) return fail(std::string(fn) + "() takes exactly one argument");
    return args[0];
}

Result<Value> py_int(const Value& v) {
    if (v.is_int()) return v;
    if (v.is_bool()) return Value(static_cast<std::int64_t>(v.as_bool()));
    if (v.is_float()) return Value(static_cast<std::int64_t>(v.as_float()));
    if (v.is_string()) {
        if (auto n = str::parse_int(str::trim(v.as_string()))) return Value(*n);
        return fail("invalid literal for int(): '" + v.as_string() + "'");
    }
    return fail(std::string("int() argument must be a string or a number, not '") + v.type_name() + "'");
}

// The Python builtins that selectors use (they are eval()ed in conda-build).
const std::vector<std::pair<std::string, Value>>& python_builtins() {
    static const std::vector<std::pair<std::string, Value>> fns = [] {
        std::vector<std::pair<std::string, Value>> b;
        auto add = [&](const char* name, jinja::Function f) { b.emplace_back(name, Value(std::move(f))); };
        add("str", [](const List& a, const KwArgs&) -> Result<Value> {
            if (a.empty()) return Value("");
            auto v = one_arg(a, "str");
            if (!v) return v;
            return Value(v->str());
        });
        add("int", [](const List& a, const KwArgs&) -> Result<Value> {
            if (a.empty()) return Value(0);
            auto v = one_arg(a, "int");
            if (!v) return v;
            return py_int(*v);
        });
        add("float", [](const List& a, const KwArgs&) -> Result<Value> {
            if (a.empty()) return Value(0.0);
            auto v = one_arg(a, "float");
            if (!v) return v;
            if (v->is_float()) return *v;
            if (v->is_int()) return Value(static_cast<double>(v->as_int()));
            if (v->is_bool()) return Value(v->as_bool() ? 1.0 : 0.0);
            if (v->is_string()) {
                std::string t(str::trim(v->as_string()));
                char* end = nullptr;
                errno = 0;
                double d = std::strtod(t.c_str(), &end);  // Python's float() also reads inf, nan and 1e400
                // strtod also reads hex and nan(...), which Python's float() refuses.
                bool python_form = t.find_first_of("xX(") == std::string::npos;
                if (!t.empty() && python_form && end == t.c_str() + t.size() && (errno == 0 || errno == ERANGE))
                    return Value(d);
                return fail("could not convert string to float: '" + v->as_string() + "'");
            }
            return fail(std::string("float() argument must be a string or a number, not '") + v->type_name() + "'");
        });
        add("bool", [](const List& a, const KwArgs&) -> Result<Value> {
            return Value(!a.empty() && a[0].truthy());
        });
        add("len", [](const List& a, const KwArgs&) -> Result<Value> {
            auto v = one_arg(a, "len");
            if (!v) return v;
            if (v->is_string()) return Value(static_cast<std::int64_t>(v->as_string().size()));
            if (v->is_list()) return Value(static_cast<std::int64_t>(v->as_list().size()));
            if (v->is_dict()) return Value(static_cast<std::int64_t>(v->as_dict().size()));
            return fail(std::string("object of type '") + v->type_name() + "' has no len()");
        });
        auto seq = [](const char* fn) {
            return [fn](const List& a, const KwArgs&) -> Result<Value> {
                if (a.empty()) return Value(List{});
                auto v = one_arg(a, fn);
                if (!v) return v;
                if (v->is_list()) return *v;
                List out;
                if (v->is_string())
                    for (char c : v->as_string()) out.emplace_back(std::string(1, c));
                else if (v->is_dict())
                    for (const auto& kv : v->as_dict()) out.emplace_back(kv.first);
                else
                    return fail(std::string("'") + v->type_name() + "' object is not iterable");
                return Value(std::move(out));
            };
        };
        add("list", seq("list"));
        add("tuple", seq("tuple"));
        add("any", [](const List& a, const KwArgs&) -> Result<Value> {
            if (a.size() != 1 || !a[0].is_list()) return fail("any() takes one list");
            for (const auto& x : a[0].as_list())
                if (x.truthy()) return Value(true);
            return Value(false);
        });
        add("all", [](const List& a, const KwArgs&) -> Result<Value> {
            if (a.size() != 1 || !a[0].is_list()) return fail("all() takes one list");
            for (const auto& x : a[0].as_list())
                if (!x.truthy()) return Value(false);
            return Value(true);
        });
        return b;
    }();
    return fns;
}

}  // namespace

jinja::Value environment_dict(const EnvOverlay& overlay) {
    jinja::Dict d;
    for (char** e = environ; e && *e; ++e) {
        std::string_view kv = *e;
        auto eq = kv.find('=');
        if (eq == std::string_view::npos || eq == 0) continue;
        d.emplace_back(std::string(kv.substr(0, eq)), std::string(kv.substr(eq + 1)));
    }
    for (const auto& [k, v] : overlay) {
        auto it = std::find_if(d.begin(), d.end(), [&](const auto& kv) { return kv.first == k; });
        if (it != d.end())
            it->second = v;
        else
            d.emplace_back(k, v);
    }
    return d;
}

jinja::Value os_module(const jinja::Value& env) {
    using jinja::List;
    using jinja::KwArgs;
    jinja::Function join([](const List& args, const KwArgs&) -> Result<jinja::Value> {
        std::string out;
        for (const auto& a : args) {
            if (!a.is_string()) return fail("os.path.join() takes strings");
            const std::string& part = a.as_string();
            if (!part.empty() && part.front() == '/') out = part;
            else if (out.empty() || out.back() == '/') out += part;
            else out += "/" + part;
        }
        return jinja::Value(out);
    });
    jinja::Dict path{{"join", join}, {"sep", "/"}};
    return jinja::Dict{{"environ", env}, {"sep", "/"}, {"name", "posix"}, {"path", path}};
}

jinja::Context selector_base(const std::string& subdir, const std::string& build_subdir,
                             const EnvOverlay& overlay) {
    jinja::Context ctx;
    auto& d = ctx.globals;
    auto starts = [&](std::string_view p) { return str::starts_with(subdir, p); };
    d["linux32"] = subdir == "linux-32";
    d["linux64"] = subdir == "linux-64";
    d["arm"] = starts("linux-arm");
    d["unix"] = starts("linux-") || starts("osx-") || starts("emscripten-");
    d["win32"] = subdir == "win-32";
    d["win64"] = subdir == "win-64";
    std::set<std::string> oses, archs;
    for (const auto& s : types::Platform::known()) {
        if (s == "noarch") continue;
        auto dash = s.find('-');
        oses.insert(s.substr(0, dash));
        archs.insert(s.substr(dash + 1));
    }
    auto dash = subdir.find('-');
    if (dash != std::string::npos) {
        oses.insert(subdir.substr(0, dash));
        archs.insert(subdir.substr(dash + 1));
    }
    for (const auto& os : oses) d[os] = starts(os + "-");
    for (const auto& arch : archs) {
        std::string full = arch == "32" ? "x86" : arch == "64" ? "x86_64" : arch;
        d[full] = str::ends_with(subdir, "-" + arch);
        if (arch == "32") d["x86"] = str::ends_with(subdir, "-32") || str::ends_with(subdir, "-64");
    }
    d["build_platform"] = build_subdir;

    // Python's eval() sees os, os.environ and the builtins; conda-build also
    // makes each environment variable a name (after the flags here).
    jinja::Value env = environment_dict(overlay);
    d["environ"] = env;
    d["os"] = os_module(env);
    for (const auto& [name, fn] : python_builtins()) d[name] = fn;
    for (const auto& [k, v] : env.as_dict()) d.try_emplace(k, v);

    return ctx;
}

namespace {

// conda-build's int("".join(v.split(".")[:2])) for `py` and `np`: "3.12" ->
// 312. Text that is no integer is the error int() raises there.
Result<std::int64_t> two_places(const std::string& key, const std::string& value, const std::string& version) {
    auto parts = str::split(version, '.');
    std::string digits = parts.at(0) + (parts.size() > 1 ? parts[1] : "");
    if (auto n = str::parse_int(digits)) return *n;
    return fail("variant " + key + " '" + value + "' is no version: conda-build reads int('" + digits + "') for '" +
                    (key == "python" ? "py" : "np") + "' and fails",
                "give " + key + " as a version such as 3.12");
}

}  // namespace

Result<jinja::Context> selector_layer(const jinja::Context& base, const VariantValues& variant) {
    jinja::Context ctx;
    ctx.base = &base;
    auto& d = ctx.globals;
    auto get = [&](const std::string& k, const std::string& def) {
        auto it = variant.find(k);
        return it == variant.end() ? def : it->second;
    };
    // "3.12.* *_cpython" -> 312
    std::string py = get("python", "3.12");
    std::string py_ver = py.substr(0, py.find(' '));
    auto py_int = two_places("python", py, py_ver);
    if (!py_int) return unexpected(py_int.error());
    auto parts = str::split(py_ver, '.');
    d["py"] = *py_int;
    d["py3k"] = parts.at(0) == "3";
    d["py2k"] = parts.at(0) == "2";
    for (int v : {26, 27, 33, 34, 35, 36}) d["py" + std::to_string(v)] = *py_int == v;
    std::string np = get("numpy", "1.26");
    if (np.empty()) np = "1.26";  // conda-build: `if not np: np = defaults["numpy"]`
    auto np_int = two_places("numpy", np, np);
    if (!np_int) return unexpected(np_int.error());
    d["np"] = *np_int;
    d["pl"] = get("perl", "5.26.2");
    std::string lua = get("lua", "5");
    d["lua"] = lua;
    d["luajit"] = !lua.empty() && lua[0] == '2';

    // Variant keys, converted as conda-build does; they never shadow the flags.
    for (const auto& [k, v] : variant) {
        if (ctx.find(k)) continue;
        if (auto n = str::parse_int(str::trim(v)))
            d[k] = *n;
        else if (str::lower(v) == "true" || str::lower(v) == "false")
            d[k] = str::lower(v) == "true";
        else
            d[k] = v;
    }
    return ctx;
}

Result<jinja::Context> selector_namespace(const std::string& subdir, const std::string& build_subdir,
                                          const VariantValues& variant, const EnvOverlay& overlay) {
    jinja::Context ns = selector_base(subdir, build_subdir, overlay);
    auto layer = selector_layer(ns, variant);
    if (!layer) return unexpected(layer.error());
    for (auto& [k, v] : layer->globals) ns.globals[k] = std::move(v);
    return ns;
}

}  // namespace sf::recipe
