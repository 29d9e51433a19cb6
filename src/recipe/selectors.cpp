#include "recipe/selectors.hpp"

#include <set>
#include <unordered_map>

#include "types/platform.hpp"
#include "util/pyregex.hpp"
#include "util/strings.hpp"

namespace sf::recipe {

std::vector<SelectorLine> split_selectors(std::string_view text) {
    // conda-build's sel_pat: a selector at the end of the line, optionally
    // inside a comment; trailing characters are allowed only after a comment.
    static const PyRegex sel_pat(R"((.+?)\s*(#.*)?\[([^\[\]]+)\](?(2)[^\(\)]*)$)");
    std::vector<SelectorLine> out;
    for (std::string line : str::split_lines(text)) {
        while (!line.empty() && std::isspace(static_cast<unsigned char>(line.back()))) line.pop_back();
        SelectorLine sl;
        std::string_view stripped = str::trim(line);
        if (stripped.empty() || stripped.front() == '#') {
            out.push_back(std::move(sl));
            continue;
        }
        std::string trailing_quote;
        if (line.back() == '\'' || line.back() == '"') trailing_quote = line.back();
        if (line.find('[') != std::string::npos && line.find(']') != std::string::npos) {
            if (auto m = sel_pat.match(line); m && m->group(3) && !m->group(3)->empty()) {
                sl.selector = *m->group(3);
                sl.selector_col = static_cast<int>(line.rfind('[' + *sl.selector + ']')) + 2;
                std::string kept = m->str(1) + trailing_quote;
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

Result<Selected> apply_selectors(const std::vector<SelectorLine>& lines, const jinja::Context& ns,
                                 const std::string& file, SelectorCache* cache,
                                 std::map<std::string, bool>* outcomes) {
    Selected out;
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
                jinja::Origin origin{file, static_cast<int>(i) + 1, l.selector_col};
                Result<jinja::Value> v = jinja::Value();
                auto parsed = cache ? cache->parsed.find(*l.selector) : decltype(cache->parsed)::iterator{};
                if (cache && parsed == cache->parsed.end()) {
                    auto e = jinja::Expression::parse(*l.selector, origin);
                    if (e) parsed = cache->parsed.emplace(*l.selector, std::move(*e)).first;
                    else v = unexpected(e.error());
                }
                if (v && cache && parsed != cache->parsed.end()) v = parsed->second.evaluate(ns);
                else if (v) v = jinja::evaluate(*l.selector, origin, ns);
                if (!v) {
                    Error e = v.error();
                    if (e.loc.line != static_cast<int>(i) + 1) e.loc = SourceLoc{file, static_cast<int>(i) + 1, l.selector_col};
                    if (str::ends_with(e.message, "is undefined")) {
                        e.message = "unknown name " + e.message.substr(0, e.message.size() - 13) +
                                    " in selector [" + *l.selector + "]";
                        e.hint = "use a platform flag (linux, osx, win, x86_64, ...) or a variant key";
                    } else {
                        e.message = "invalid selector [" + *l.selector + "]: " + e.message;
                        e.hint = l.selector->find(',') != std::string::npos
                                     ? "a line ending in [...] is read as a selector; write the list in block style"
                                     : "selectors are Python expressions over platform flags and variant keys";
                    }
                    return unexpected(std::move(e));
                }
                keep = v->truthy();
                seen.emplace(*l.selector, keep);
            }
        }
        if (keep) {
            out.text += l.text;
            out.text += '\n';
            out.source_line.push_back(static_cast<int>(i) + 1);
            out.blanked += l.text;
        }
        out.blanked += '\n';
    }
    return out;
}

jinja::Context selector_namespace(const std::string& subdir, const std::string& build_subdir,
                                  const VariantValues& variant) {
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

    auto get = [&](const std::string& k, const std::string& def) {
        auto it = variant.find(k);
        return it == variant.end() ? def : it->second;
    };
    // "3.12.* *_cpython" -> 312
    std::string py = get("python", "3.12");
    std::string py_ver = py.substr(0, py.find(' '));
    auto parts = str::split(py_ver, '.');
    std::int64_t py_int = 0;
    try {
        py_int = std::stoll(parts.at(0) + (parts.size() > 1 ? parts[1] : ""));
    } catch (...) {
    }
    d["py"] = py_int;
    d["py3k"] = parts.at(0) == "3";
    d["py2k"] = parts.at(0) == "2";
    for (int v : {26, 27, 33, 34, 35, 36}) d["py" + std::to_string(v)] = py_int == v;
    std::string np = get("numpy", "1.26");
    auto np_parts = str::split(np, '.');
    try {
        d["np"] = static_cast<std::int64_t>(std::stoll(np_parts.at(0) + (np_parts.size() > 1 ? np_parts[1] : "")));
    } catch (...) {
        d["np"] = np;
    }
    d["pl"] = get("perl", "5.26.2");
    std::string lua = get("lua", "5");
    d["lua"] = lua;
    d["luajit"] = !lua.empty() && lua[0] == '2';

    // Variant keys, converted as conda-build does; they never shadow the flags.
    for (const auto& [k, v] : variant) {
        if (d.count(k)) continue;
        std::int64_t n = 0;
        size_t used = 0;
        bool is_int = false;
        try {
            n = std::stoll(std::string(str::trim(v)), &used);
            is_int = used == str::trim(v).size() && !str::trim(v).empty();
        } catch (...) {
        }
        if (is_int)
            d[k] = n;
        else if (str::lower(v) == "true" || str::lower(v) == "false")
            d[k] = str::lower(v) == "true";
        else
            d[k] = v;
    }
    return ctx;
}

}  // namespace sf::recipe
