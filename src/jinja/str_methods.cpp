// The str methods, one function per method (or family), in one table.
#include <algorithm>
#include <array>

#include "jinja/registry.hpp"

namespace sf::jinja::detail {
namespace {

bool is_ws(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v'; }


std::vector<std::string> split_ws(const std::string& s, std::int64_t maxsplit, bool from_right) {
    std::vector<std::string> parts;
    if (!from_right) {
        std::size_t i = 0;
        while (true) {
            while (i < s.size() && is_ws(s[i])) ++i;
            if (i >= s.size()) break;
            if (maxsplit >= 0 && static_cast<std::int64_t>(parts.size()) == maxsplit) {
                parts.push_back(s.substr(i));
                break;
            }
            std::size_t j = i;
            while (j < s.size() && !is_ws(s[j])) ++j;
            parts.push_back(s.substr(i, j - i));
            i = j;
        }
        return parts;
    }
    std::size_t i = s.size();
    while (true) {
        while (i > 0 && is_ws(s[i - 1])) --i;
        if (i == 0) break;
        if (maxsplit >= 0 && static_cast<std::int64_t>(parts.size()) == maxsplit) {
            parts.push_back(s.substr(0, i));
            break;
        }
        std::size_t j = i;
        while (j > 0 && !is_ws(s[j - 1])) --j;
        parts.push_back(s.substr(j, i - j));
        i = j;
    }
    std::reverse(parts.begin(), parts.end());
    return parts;
}

std::vector<std::string> split_sep(const std::string& s, const std::string& sep, std::int64_t maxsplit,
                                   bool from_right) {
    std::vector<std::string> parts;
    if (!from_right) {
        std::size_t start = 0;
        while (maxsplit < 0 || static_cast<std::int64_t>(parts.size()) < maxsplit) {
            std::size_t at = find_sub(s, sep, start);
            if (at == std::string::npos) break;
            parts.push_back(s.substr(start, at - start));
            start = at + sep.size();
        }
        parts.push_back(s.substr(start));
        return parts;
    }
    std::size_t end = s.size();
    while (maxsplit < 0 || static_cast<std::int64_t>(parts.size()) < maxsplit) {
        if (end < sep.size()) break;
        std::size_t at = rfind_sub(std::string_view(s).substr(0, end), sep);
        if (at == std::string::npos) break;
        parts.push_back(s.substr(at + sep.size(), end - at - sep.size()));
        end = at;
    }
    parts.push_back(s.substr(0, end));
    std::reverse(parts.begin(), parts.end());
    return parts;
}

Value to_list(std::vector<std::string> parts) {
    List l;
    l.reserve(parts.size());
    for (auto& p : parts) l.emplace_back(std::move(p));
    return Value(std::move(l));
}

std::string strip_chars(const std::string& s, const Value* chars, bool left, bool right) {
    auto in_set = [&](char c) {
        if (!chars || chars->is_none()) return is_ws(c);
        return chars->as_string().find(c) != std::string::npos;
    };
    std::size_t b = 0, e = s.size();
    if (left) while (b < e && in_set(s[b])) ++b;
    if (right) while (e > b && in_set(s[e - 1])) --e;
    return s.substr(b, e - b);
}

char lower_c(char c) { return (c >= 'A' && c <= 'Z') ? char(c - 'A' + 'a') : c; }
char upper_c(char c) { return (c >= 'a' && c <= 'z') ? char(c - 'a' + 'A') : c; }

Result<bool> affix_match(const std::string& s, const Value& arg, bool prefix, const char* fname) {
    auto one = [&](const Value& v) -> Result<bool> {
        if (!v.is_string())
            return fail(std::string(fname) + " first arg must be str or a tuple of str, not " + v.type_name());
        const std::string& p = v.as_string();
        if (p.size() > s.size()) return false;
        return prefix ? s.compare(0, p.size(), p) == 0 : s.compare(s.size() - p.size(), p.size(), p) == 0;
    };
    if (arg.is_list()) {
        for (const auto& v : arg.as_list()) {
            SF_TRY(m, one(v));
            if (m) return true;
        }
        return false;
    }
    return one(arg);
}

Result<Value> s_replace(std::string_view, const std::string& s, const Args& a) {
    SF_TRY_VOID(a.at_most(3));
    SF_TRY(from, a.str(0, "old"));
    SF_TRY(to, a.str(1, "new"));
    SF_TRY(count, a.integer(2, "count", -1));
    std::string out;
    std::size_t start = 0;
    std::int64_t done = 0;
    if (from.empty()) {
        for (std::size_t i = 0; i <= s.size(); ++i) {
            if (count < 0 || done < count) {
                out += to;
                ++done;
            }
            if (i < s.size()) out += s[i];
            if (out.size() > kMaxString) break;
        }
        return check_string(std::move(out));
    }
    while (count < 0 || done < count) {
        std::size_t at = find_sub(s, from, start);
        if (at == std::string::npos) break;
        out.append(s, start, at - start);
        out += to;
        start = at + from.size();
        ++done;
        if (out.size() > kMaxString) break;
    }
    out.append(s, start, std::string::npos);
    return check_string(std::move(out));
}

// split and rsplit.
Result<Value> s_split(std::string_view name, const std::string& s, const Args& a) {
    SF_TRY_VOID(a.at_most(2));
    SF_TRY(maxsplit, a.integer(1, "maxsplit", -1));
    const Value* sep = a.get(0, "sep");
    if (!sep || sep->is_none()) return to_list(split_ws(s, maxsplit, name == "rsplit"));
    if (!sep->is_string())
        return fail(std::string(a.fname) + "() argument 'sep' must be str or None, not " + sep->type_name());
    if (sep->as_string().empty()) return fail("empty separator");
    return to_list(split_sep(s, sep->as_string(), maxsplit, name == "rsplit"));
}

Result<Value> s_splitlines(std::string_view, const std::string& s, const Args& a) {
    SF_TRY_VOID(a.at_most(0));
    std::vector<std::string> lines;
    std::size_t start = 0;
    for (std::size_t i = 0; i < s.size(); ++i) {
        if (s[i] == '\n' || s[i] == '\r') {
            lines.push_back(s.substr(start, i - start));
            if (s[i] == '\r' && i + 1 < s.size() && s[i + 1] == '\n') ++i;
            start = i + 1;
        }
    }
    if (start < s.size()) lines.push_back(s.substr(start));
    return to_list(std::move(lines));
}

Result<Value> s_join(std::string_view, const std::string& s, const Args& a) {
    SF_TRY_VOID(a.at_most(1));
    const Value* items = a.get(0, "iterable");
    if (!items) return fail("str.join() takes exactly one argument (0 given)");
    SF_TRY(list, iterate(*items));
    std::string out;
    for (std::size_t i = 0; i < list.size(); ++i) {
        if (!list[i].is_string())
            return fail("sequence item " + std::to_string(i) + ": expected str instance, " + list[i].type_name() +
                        " found");
        if (i) out += s;
        out += list[i].as_string();
        if (out.size() > kMaxString) break;
    }
    return check_string(std::move(out));
}

// startswith and endswith.
Result<Value> s_affix(std::string_view name, const std::string& s, const Args& a) {
    SF_TRY_VOID(a.at_most(1));
    const Value* arg = a.get(0, "prefix");
    if (!arg) return fail(std::string(a.fname) + "() takes at least 1 argument (0 given)");
    SF_TRY(m, affix_match(s, *arg, name == "startswith", a.fname));
    return Value(m);
}

// lower, upper, title and capitalize.
Result<Value> s_case(std::string_view name, const std::string& s, const Args& a) {
    SF_TRY_VOID(a.at_most(0));
    std::string out = s;
    bool word_start = true;
    for (std::size_t i = 0; i < out.size(); ++i) {
        char& c = out[i];
        if (name == "lower") c = lower_c(c);
        else if (name == "upper") c = upper_c(c);
        else if (name == "capitalize") c = i == 0 ? upper_c(c) : lower_c(c);
        else {
            bool alpha = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
            c = word_start ? upper_c(c) : lower_c(c);
            word_start = !alpha;
        }
    }
    return Value(std::move(out));
}

// strip, lstrip and rstrip.
Result<Value> s_strip(std::string_view name, const std::string& s, const Args& a) {
    SF_TRY_VOID(a.at_most(1));
    const Value* chars = a.get(0, "chars");
    if (chars && !chars->is_none() && !chars->is_string()) return fail(std::string(a.fname) + " arg must be None or str");
    return Value(strip_chars(s, chars, name != "rstrip", name != "lstrip"));
}

Result<Value> s_format(std::string_view, const std::string& s, const Args& a) {
    SF_TRY(out, str_format(s, a.pos, a.kw));
    return Value(std::move(out));
}

// count, find, rfind and index.
Result<Value> s_find(std::string_view name, const std::string& s, const Args& a) {
    SF_TRY_VOID(a.at_most(1));
    SF_TRY(sub, a.str(0, "sub"));
    if (name == "count") {
        if (sub.empty()) return Value(static_cast<std::int64_t>(s.size() + 1));
        std::int64_t n = 0;
        for (std::size_t at = find_sub(s, sub); at != std::string::npos; at = find_sub(s, sub, at + sub.size())) ++n;
        return Value(n);
    }
    std::size_t at = name == "rfind" ? rfind_sub(s, sub) : find_sub(s, sub);
    if (at == std::string::npos) {
        if (name == "index") return fail("substring not found");
        return Value(std::int64_t(-1));
    }
    return Value(static_cast<std::int64_t>(at));
}

Result<Value> s_zfill(std::string_view, const std::string& s, const Args& a) {
    SF_TRY_VOID(a.at_most(1));
    SF_TRY(width, a.integer(0, "width", 0));
    if (width > static_cast<std::int64_t>(kMaxString)) return fail("zfill() width is too large");
    if (width <= static_cast<std::int64_t>(s.size())) return Value(s);
    std::size_t pad = static_cast<std::size_t>(width) - s.size();
    if (!s.empty() && (s[0] == '-' || s[0] == '+')) return Value(s.substr(0, 1) + std::string(pad, '0') + s.substr(1));
    return Value(std::string(pad, '0') + s);
}

// isdigit, isalpha, isalnum, isspace, islower and isupper (ASCII).
Result<Value> s_is(std::string_view name, const std::string& s, const Args& a) {
    SF_TRY_VOID(a.at_most(0));
    if (s.empty()) return Value(false);
    bool ok = true, any_cased = false;
    for (char c : s) {
        bool dig = c >= '0' && c <= '9';
        bool lo = c >= 'a' && c <= 'z', up = c >= 'A' && c <= 'Z';
        any_cased = any_cased || lo || up;
        if (name == "isdigit") ok = ok && dig;
        else if (name == "isalpha") ok = ok && (lo || up);
        else if (name == "isalnum") ok = ok && (lo || up || dig);
        else if (name == "isspace") ok = ok && is_ws(c);
        else if (name == "islower") ok = ok && !up;
        else if (name == "isupper") ok = ok && !lo;
    }
    if (name == "islower" || name == "isupper") ok = ok && any_cased;
    return Value(ok);
}

// removeprefix and removesuffix.
Result<Value> s_remove(std::string_view name, const std::string& s, const Args& a) {
    SF_TRY_VOID(a.at_most(1));
    SF_TRY(affix, a.str(0, name == "removeprefix" ? "prefix" : "suffix"));
    if (affix.size() > s.size()) return Value(s);
    if (name == "removeprefix") return Value(s.compare(0, affix.size(), affix) == 0 ? s.substr(affix.size()) : s);
    return Value(s.compare(s.size() - affix.size(), affix.size(), affix) == 0 ? s.substr(0, s.size() - affix.size())
                                                                                : s);
}

using M = Named<StrMethodFn>;

constexpr std::array kStrMethods{
    M{"capitalize", s_case},  M{"count", s_find},       M{"endswith", s_affix},    M{"find", s_find},
    M{"format", s_format},    M{"index", s_find},       M{"isalnum", s_is},        M{"isalpha", s_is},
    M{"isdigit", s_is},       M{"islower", s_is},       M{"isspace", s_is},        M{"isupper", s_is},
    M{"join", s_join},        M{"lower", s_case},       M{"lstrip", s_strip},      M{"removeprefix", s_remove},
    M{"removesuffix", s_remove}, M{"replace", s_replace}, M{"rfind", s_find},      M{"rsplit", s_split},
    M{"rstrip", s_strip},     M{"split", s_split},      M{"splitlines", s_splitlines}, M{"startswith", s_affix},
    M{"strip", s_strip},      M{"title", s_case},       M{"upper", s_case},        M{"zfill", s_zfill}};
static_assert(sorted_by_name(kStrMethods), "str methods: keep the table in name order");

}  // namespace

const Registry<StrMethodFn>& str_methods() {
    static constexpr Registry<StrMethodFn> table{kStrMethods};
    return table;
}

bool is_str_method(std::string_view name) { return str_methods().find(name) != nullptr; }

Result<Value> call_str_method(const std::string& s, std::string_view name, const List& args, const KwArgs& kwargs,
                              bool& found) {
    const auto* m = str_methods().find(name);
    found = m != nullptr;
    if (!m) return Value();
    std::string fname = "str." + std::string(name);
    Args a{args, kwargs, fname.c_str()};
    return m->fn(name, s, a);
}

}  // namespace sf::jinja::detail
