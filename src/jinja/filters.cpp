// The filters, one function per filter (or family), in one table per dialect.
#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <optional>
#include <unordered_set>

#include "jinja/registry.hpp"

namespace sf::jinja::detail {
namespace {

// Sort/unique/min/max compare strings case-insensitively unless asked not to.
Value sort_key(const Value& v, bool case_sensitive, const Value* attribute) {
    const Value* x = &v;
    if (attribute && attribute->is_string() && v.is_dict()) {
        const Value* got = v.get(attribute->as_string());
        static const Value missing{Undefined{}};
        x = got ? got : &missing;
    }
    if (!case_sensitive && x->is_string()) {
        std::string s = x->as_string();
        for (char& c : s)
            if (c >= 'A' && c <= 'Z') c = char(c - 'A' + 'a');
        return Value(std::move(s));
    }
    return *x;
}

bool skip_ws(char*& end) {
    while (end && (*end == ' ' || *end == '\t' || *end == '\n' || *end == '\r')) ++end;
    return end && *end == 0;
}

// Python int(): an int, a bool, a float or a numeric string ('_' allowed);
// `used_default` when it is none of them.
std::int64_t to_int(const Value& v, bool& used_default) {
    used_default = false;
    if (v.is_int()) return v.as_int();
    if (v.is_bool()) return std::int64_t(v.as_bool());
    double d = 0;
    bool ok = false;
    if (v.is_float()) {
        d = v.as_float();
        ok = true;
    } else if (v.is_string()) {
        std::string s;
        for (char c : v.as_string())
            if (c != '_') s += c;
        const char* b = s.c_str();
        char* end = nullptr;
        errno = 0;
        long long ll = std::strtoll(b, &end, 10);
        bool at_end = skip_ws(end);  // skipped first, so a blank string reads as 0
        if (end != b && at_end && errno == 0) return static_cast<std::int64_t>(ll);
        d = std::strtod(b, &end);
        at_end = skip_ws(end);
        ok = end != b && at_end;
    }
    if (ok && std::isfinite(d) && std::fabs(d) < 9.2e18) return static_cast<std::int64_t>(d);
    used_default = true;
    return 0;
}

Result<Value> add_numbers(const Value& a, const Value& b) {
    if (a.is_float() || b.is_float()) return Value(to_double(a) + to_double(b));
    std::int64_t x = a.is_bool() ? a.as_bool() : a.as_int();
    std::int64_t y = b.is_bool() ? b.as_bool() : b.as_int();
    std::int64_t r;
    if (__builtin_add_overflow(x, y, &r)) return fail("integer overflow");
    return Value(r);
}

// A hashable identity for scalars that respects 1 == 1.0 == True; empty for
// lists and dicts, which are compared one by one.
std::string scalar_key(const Value& v) {
    if (v.is_string()) return "s" + v.as_string();
    if (v.is_none()) return "N";
    if (v.is_undefined()) return "U";
    if (is_number(v)) {
        double d = to_double(v);
        if (v.is_float() && (d != std::floor(d) || std::fabs(d) >= 9e18)) return "f" + format_float(d);
        return "n" + std::to_string(v.is_float() ? static_cast<std::int64_t>(d) : (v.is_bool() ? v.as_bool() : v.as_int()));
    }
    return {};
}

// Lenient mode: most filters of an undefined value stay undefined, the rest
// treat it as an empty string or sequence.
Value of_undefined(std::string_view name, const Value& input) {
    if (name == "length" || name == "count") return Value(std::int64_t(0));
    if (name == "list" || name == "sort" || name == "unique" || name == "reverse") return Value(List{});
    if (name == "string" || name == "join" || name == "trim" || name == "lower" || name == "upper")
        return Value(std::string());
    return input;
}

Result<Value> f_default(std::string_view, const Value& input, const Args& a) {
    SF_TRY_VOID(a.at_most(2));
    const Value* dflt = a.get(0, "default_value");
    const Value* boolean = a.get(1, "boolean");
    bool use = input.is_undefined() || (boolean && boolean->truthy() && !input.truthy());
    if (!use) return input;
    return dflt ? *dflt : Value(std::string());
}

Result<Value> f_string(std::string_view name, const Value& input, const Args& a) {
    SF_TRY_VOID(a.at_most(0));
    if (name == "safe") return input;
    std::string out;
    if (!str_into(input, out, kMaxString)) return fail("string result is too long");
    return Value(std::move(out));
}

// lower, upper, capitalize, title, trim and replace: the str methods.
Result<Value> f_str_method(std::string_view name, const Value& input, const Args& a) {
    std::string s = input.str();
    bool found = false;
    std::string_view method = name == "trim" ? "strip" : name;
    return call_str_method(s, method, a.pos, a.kw, found);
}

Result<Value> f_join(std::string_view, const Value& input, const Args& a) {
    SF_TRY_VOID(a.at_most(2));
    const Value* sep = a.get(0, "d");
    const Value* attr = a.get(1, "attribute");
    std::string sep_s = sep ? sep->str() : std::string();
    SF_TRY(items, iterate(input));
    std::string out;
    for (std::size_t i = 0; i < items.size(); ++i) {
        if (i) out += sep_s;
        const Value* item = &items[i];
        if (attr && attr->is_string() && item->is_dict()) {
            item = item->get(attr->as_string());
            if (!item) continue;
        }
        if (!str_into(*item, out, kMaxString)) return fail("string result is too long");
        if (out.size() > kMaxString) return fail("string result is too long");
    }
    return Value(std::move(out));
}

Result<Value> f_length(std::string_view, const Value& input, const Args& a) {
    SF_TRY_VOID(a.at_most(0));
    if (input.is_string()) return Value(static_cast<std::int64_t>(input.as_string().size()));
    if (input.is_list()) return Value(static_cast<std::int64_t>(input.as_list().size()));
    if (input.is_dict()) return Value(static_cast<std::int64_t>(input.as_dict().size()));
    return fail(std::string("object of type '") + input.type_name() + "' has no len()");
}

Result<Value> f_int(std::string_view, const Value& input, const Args& a) {
    SF_TRY_VOID(a.at_most(2));
    const Value* dflt = a.get(0, "default");
    bool used_default = false;
    std::int64_t i = to_int(input, used_default);
    if (used_default) return dflt ? *dflt : Value(0);
    return Value(i);
}

Result<Value> f_float(std::string_view, const Value& input, const Args& a) {
    SF_TRY_VOID(a.at_most(1));
    const Value* dflt = a.get(0, "default");
    if (is_number(input)) return Value(to_double(input));
    if (input.is_string()) {
        const char* b = input.as_string().c_str();
        char* end = nullptr;
        double d = std::strtod(b, &end);
        while (end && (*end == ' ' || *end == '\t' || *end == '\n')) ++end;
        if (end != b && end && *end == 0 && input.as_string().find('\0') == std::string::npos) return Value(d);
    }
    return dflt ? *dflt : Value(0.0);
}

Result<Value> f_first_last(std::string_view name, const Value& input, const Args& a) {
    SF_TRY_VOID(a.at_most(0));
    if (input.is_string()) {
        const std::string& s = input.as_string();
        if (s.empty()) return Value(Undefined{"first/last of an empty string"});
        return Value(std::string(1, name == "first" ? s.front() : s.back()));
    }
    SF_TRY(items, iterate(input));
    if (items.empty()) return Value(Undefined{"first/last of an empty sequence"});
    return name == "first" ? items.front() : items.back();
}

Result<Value> f_list(std::string_view, const Value& input, const Args& a) {
    SF_TRY_VOID(a.at_most(0));
    SF_TRY(items, iterate(input));
    return Value(std::move(items));
}

Result<Value> f_items(std::string_view, const Value& input, const Args& a) {
    SF_TRY_VOID(a.at_most(0));
    if (!input.is_dict()) return fail(std::string("items filter expects a dict, got ") + input.type_name());
    List out;
    for (const auto& [k, v] : input.as_dict()) out.emplace_back(List{Value(k), v});
    return Value(std::move(out));
}

Result<Value> f_reverse(std::string_view, const Value& input, const Args& a) {
    SF_TRY_VOID(a.at_most(0));
    if (input.is_string()) return Value(std::string(input.as_string().rbegin(), input.as_string().rend()));
    SF_TRY(items, iterate(input));
    std::reverse(items.begin(), items.end());
    return Value(std::move(items));
}

Result<Value> f_sort(std::string_view, const Value& input, const Args& a) {
    SF_TRY_VOID(a.at_most(3));
    const Value* rev = a.get(0, "reverse");
    const Value* cs = a.get(1, "case_sensitive");
    const Value* attr = a.get(2, "attribute");
    SF_TRY(items, iterate(input));
    std::vector<std::pair<Value, Value>> keyed;
    keyed.reserve(items.size());
    for (auto& it : items) keyed.emplace_back(sort_key(it, cs && cs->truthy(), attr), std::move(it));
    bool reverse = rev && rev->truthy();
    std::optional<Error> err;
    Budget budget;
    std::stable_sort(keyed.begin(), keyed.end(), [&](const auto& x, const auto& y) {
        if (err) return false;
        auto c = compare(x.first, y.first, "<", budget.left);
        if (!c) {
            err = c.error();
            return false;
        }
        return reverse ? *c > 0 : *c < 0;
    });
    if (err) return Unexpected<Error>{*err};
    List out;
    out.reserve(keyed.size());
    for (auto& kv : keyed) out.push_back(std::move(kv.second));
    return Value(std::move(out));
}

Result<Value> f_unique(std::string_view, const Value& input, const Args& a) {
    SF_TRY_VOID(a.at_most(2));
    const Value* cs = a.get(0, "case_sensitive");
    const Value* attr = a.get(1, "attribute");
    SF_TRY(items, iterate(input));
    List out, keys;  // keys: the non-scalar ones, compared one by one
    std::unordered_set<std::string> scalars;
    Budget budget;
    for (auto& it : items) {
        Value k = sort_key(it, cs && cs->truthy(), attr);
        std::string sk = scalar_key(k);
        if (!sk.empty()) {
            if (!scalars.insert(std::move(sk)).second) continue;
        } else {
            bool seen = false;
            for (const auto& other : keys) {
                seen = equals_within(other, k, budget.left);
                if (budget.left == 0) return too_expensive();
                if (seen) break;
            }
            if (seen) continue;
            keys.push_back(std::move(k));
        }
        out.push_back(it);
    }
    return Value(std::move(out));
}

Result<Value> f_min_max(std::string_view name, const Value& input, const Args& a) {
    SF_TRY_VOID(a.at_most(2));
    const bool want_max = name == "max";
    Budget budget;
    SF_TRY(items, iterate(input));
    const Value* cs = a.get(0, "case_sensitive");
    const Value* attr = a.get(1, "attribute");
    bool case_sensitive = cs && cs->truthy();
    if (items.empty()) return Value(Undefined{"min/max of an empty sequence"});
    std::size_t best = 0;
    Value best_key = sort_key(items[0], case_sensitive, attr);
    for (std::size_t i = 1; i < items.size(); ++i) {
        Value k = sort_key(items[i], case_sensitive, attr);
        SF_TRY(c, compare(k, best_key, want_max ? ">" : "<", budget.left));
        if (want_max ? c > 0 : c < 0) {
            best = i;
            best_key = std::move(k);
        }
    }
    return items[best];
}

Result<Value> f_abs(std::string_view, const Value& input, const Args& a) {
    SF_TRY_VOID(a.at_most(0));
    if (input.is_float()) return Value(std::fabs(input.as_float()));
    if (input.is_bool()) return Value(std::int64_t(input.as_bool()));
    if (input.is_int()) {
        if (input.as_int() == std::numeric_limits<std::int64_t>::min()) return fail("integer overflow");
        return Value(input.as_int() < 0 ? -input.as_int() : input.as_int());
    }
    return fail(std::string("bad operand type for abs(): '") + input.type_name() + "'");
}

Result<Value> f_round(std::string_view, const Value& input, const Args& a) {
    SF_TRY_VOID(a.at_most(2));
    SF_TRY(prec, a.integer(0, "precision", 0));
    const Value* method = a.get(1, "method");
    if (!is_number(input)) return fail(std::string("round filter expects a number, got ") + input.type_name());
    if (prec < -300 || prec > 300) return fail("round() precision out of range");
    double scale = std::pow(10.0, static_cast<double>(prec));
    double x = to_double(input) * scale;
    std::string m = method && method->is_string() ? method->as_string() : "common";
    if (m == "common") x = std::round(x);
    else if (m == "ceil") x = std::ceil(x);
    else if (m == "floor") x = std::floor(x);
    else return fail("round() method must be 'common', 'ceil' or 'floor'");
    return Value(x / scale);
}

Result<Value> f_sum(std::string_view, const Value& input, const Args& a) {
    SF_TRY_VOID(a.at_most(2));
    const Value* attr = a.get(0, "attribute");
    const Value* start = a.get(1, "start");
    SF_TRY(items, iterate(input));
    Value total = start ? *start : Value(0);
    for (const auto& it : items) {
        const Value* x = &it;
        if (attr && attr->is_string() && it.is_dict()) {
            x = it.get(attr->as_string());
            if (!x) continue;
        }
        if (!is_number(*x) || !is_number(total))
            return fail(std::string("unsupported operand type(s) for +: '") + total.type_name() + "' and '" +
                        x->type_name() + "'");
        SF_TRY(t, add_numbers(total, *x));
        total = std::move(t);
    }
    return total;
}

Result<Value> f_format(std::string_view, const Value& input, const Args& a) {
    Value fmt_args = a.kw.empty() ? Value(a.pos) : Value(Dict(a.kw));
    SF_TRY(out, percent_format(input.str(), fmt_args));
    return Value(std::move(out));
}

using F = Named<FilterFn>;

// Jinja2's filters that conda-build's recipes use (meta.yaml).
constexpr std::array kJinja2{
    F{"abs", f_abs},           F{"capitalize", f_str_method}, F{"count", f_length},
    F{"d", f_default},         F{"default", f_default},       F{"first", f_first_last},
    F{"float", f_float},       F{"format", f_format},         F{"int", f_int},
    F{"items", f_items},       F{"join", f_join},             F{"last", f_first_last},
    F{"length", f_length},     F{"list", f_list},             F{"lower", f_str_method},
    F{"max", f_min_max},       F{"min", f_min_max},           F{"replace", f_str_method},
    F{"reverse", f_reverse},   F{"round", f_round},           F{"safe", f_string},
    F{"sort", f_sort},         F{"string", f_string},         F{"sum", f_sum},
    F{"title", f_str_method},  F{"trim", f_str_method},       F{"unique", f_unique},
    F{"upper", f_str_method}};
// minijinja's (recipe.yaml) adds two that rattler-build's caller supplies.
constexpr std::array kMiniJinjaOwn{F{"split", nullptr}, F{"version_to_buildstring", nullptr}};
constexpr auto kMiniJinja = merged(kJinja2, kMiniJinjaOwn);
static_assert(sorted_by_name(kJinja2) && sorted_by_name(kMiniJinja), "filters: keep the tables in name order");

}  // namespace

const Registry<FilterFn>& filters(Dialect d) {
    static constexpr Registry<FilterFn> jinja2{kJinja2}, minijinja{kMiniJinja};
    return d == Dialect::minijinja ? minijinja : jinja2;
}

Result<Value> apply_filter(std::string_view name, FilterFn fn, const Value& input, const List& args,
                           const KwArgs& kwargs) {
    std::string fname(name);
    Args a{args, kwargs, fname.c_str()};
    if (fn == f_default) return f_default(name, input, a);
    if (input.is_undefined()) return of_undefined(name, input);
    if (!fn) return fail("unknown filter '" + fname + "'");
    return fn(name, input, a);
}

}  // namespace sf::jinja::detail
