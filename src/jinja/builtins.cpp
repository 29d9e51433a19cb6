// Filters, tests, list/dict methods and the default globals (range, dict).
#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cerrno>
#include <limits>
#include <optional>
#include <unordered_set>

#include "jinja/internal.hpp"

namespace sf::jinja::detail {
namespace {

constexpr std::string_view kFilters[] = {
    "abs", "capitalize", "count", "d", "default", "first", "float", "format", "int", "items",
    "join", "last", "length", "list", "lower", "max", "min", "replace", "reverse", "round",
    "safe", "sort", "string", "sum", "title", "trim", "unique", "upper"};

constexpr std::string_view kTests[] = {
    "boolean", "callable", "defined", "divisibleby", "eq", "equalto", "even", "false", "float",
    "ge", "gt", "in", "integer", "iterable", "le", "lower", "lt", "mapping", "ne", "none",
    "number", "odd", "sameas", "sequence", "string", "true", "undefined", "upper"};

template <std::size_t N>
bool contains_name(const std::string_view (&names)[N], std::string_view n) {
    return std::find(std::begin(names), std::end(names), n) != std::end(names);
}

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

Result<std::int64_t> to_int(const Value& v, const Value& dflt_on_fail, bool& used_default) {
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
        while (end && (*end == ' ' || *end == '\t' || *end == '\n' || *end == '\r')) ++end;
        if (end != b && end && *end == 0 && errno == 0) return static_cast<std::int64_t>(ll);
        d = std::strtod(b, &end);
        while (end && (*end == ' ' || *end == '\t' || *end == '\n' || *end == '\r')) ++end;
        ok = end != b && end && *end == 0;
    }
    if (ok && std::isfinite(d) && std::fabs(d) < 9.2e18) return static_cast<std::int64_t>(d);
    used_default = true;
    (void)dflt_on_fail;
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

// One budget per builtin call for all the comparisons it makes.
struct Budget {
    std::size_t left = kMaxWork;
};

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

Result<Value> pick_extreme(const Value& input, Args& a, bool want_max) {
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

}  // namespace

bool is_known_filter(std::string_view name) { return contains_name(kFilters, name); }
bool is_known_test(std::string_view name) { return contains_name(kTests, name); }

Result<Value> apply_filter(std::string_view name, const Value& input, const List& args,
                           const KwArgs& kwargs) {
    std::string fname(name);
    Args a{args, kwargs, fname.c_str()};
    if (name == "default" || name == "d") {
        SF_TRY_VOID(a.at_most(2));
        const Value* dflt = a.get(0, "default_value");
        const Value* boolean = a.get(1, "boolean");
        bool use = input.is_undefined() || (boolean && boolean->truthy() && !input.truthy());
        if (!use) return input;
        return dflt ? *dflt : Value(std::string());
    }
    if (input.is_undefined()) {
        // Lenient mode: most filters of an undefined value stay undefined,
        // the rest treat it as an empty string/sequence.
        if (name == "length" || name == "count") return Value(std::int64_t(0));
        if (name == "list" || name == "sort" || name == "unique" || name == "reverse") return Value(List{});
        if (name == "string" || name == "join" || name == "trim" || name == "lower" || name == "upper")
            return Value(std::string());
        return input;
    }
    if (name == "string" || name == "safe") {
        SF_TRY_VOID(a.at_most(0));
        if (name == "safe") return input;
        std::string out;
        if (!str_into(input, out, kMaxString)) return fail("string result is too long");
        return Value(std::move(out));
    }
    if (name == "lower" || name == "upper" || name == "capitalize" || name == "title" || name == "trim" ||
        name == "replace") {
        std::string s = input.str();
        bool found = false;
        std::string_view method = name == "trim" ? "strip" : name;
        return call_str_method(s, method, args, kwargs, found);
    }
    if (name == "join") {
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
    if (name == "length" || name == "count") {
        SF_TRY_VOID(a.at_most(0));
        if (input.is_string()) return Value(static_cast<std::int64_t>(input.as_string().size()));
        if (input.is_list()) return Value(static_cast<std::int64_t>(input.as_list().size()));
        if (input.is_dict()) return Value(static_cast<std::int64_t>(input.as_dict().size()));
        return fail(std::string("object of type '") + input.type_name() + "' has no len()");
    }
    if (name == "int") {
        SF_TRY_VOID(a.at_most(2));
        const Value* dflt = a.get(0, "default");
        bool used_default = false;
        SF_TRY(i, to_int(input, dflt ? *dflt : Value(0), used_default));
        if (used_default) return dflt ? *dflt : Value(0);
        return Value(i);
    }
    if (name == "float") {
        SF_TRY_VOID(a.at_most(1));
        const Value* dflt = a.get(0, "default");
        if (is_number(input)) return Value(to_double(input));
        if (input.is_string()) {
            const char* b = input.as_string().c_str();
            char* end = nullptr;
            double d = std::strtod(b, &end);
            while (end && (*end == ' ' || *end == '\t' || *end == '\n')) ++end;
            if (end != b && end && *end == 0 && input.as_string().find('\0') == std::string::npos)
                return Value(d);
        }
        return dflt ? *dflt : Value(0.0);
    }
    if (name == "first" || name == "last") {
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
    if (name == "list") {
        SF_TRY_VOID(a.at_most(0));
        SF_TRY(items, iterate(input));
        return Value(std::move(items));
    }
    if (name == "items") {
        SF_TRY_VOID(a.at_most(0));
        if (!input.is_dict()) return fail(std::string("items filter expects a dict, got ") + input.type_name());
        List out;
        for (const auto& [k, v] : input.as_dict()) out.emplace_back(List{Value(k), v});
        return Value(std::move(out));
    }
    if (name == "reverse") {
        SF_TRY_VOID(a.at_most(0));
        if (input.is_string()) return Value(std::string(input.as_string().rbegin(), input.as_string().rend()));
        SF_TRY(items, iterate(input));
        std::reverse(items.begin(), items.end());
        return Value(std::move(items));
    }
    if (name == "sort") {
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
            if (!c) { err = c.error(); return false; }
            return reverse ? *c > 0 : *c < 0;
        });
        if (err) return Unexpected<Error>{*err};
        List out;
        out.reserve(keyed.size());
        for (auto& kv : keyed) out.push_back(std::move(kv.second));
        return Value(std::move(out));
    }
    if (name == "unique") {
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
    if (name == "min" || name == "max") {
        SF_TRY_VOID(a.at_most(2));
        return pick_extreme(input, a, name == "max");
    }
    if (name == "abs") {
        SF_TRY_VOID(a.at_most(0));
        if (input.is_float()) return Value(std::fabs(input.as_float()));
        if (input.is_bool()) return Value(std::int64_t(input.as_bool()));
        if (input.is_int()) {
            if (input.as_int() == std::numeric_limits<std::int64_t>::min()) return fail("integer overflow");
            return Value(input.as_int() < 0 ? -input.as_int() : input.as_int());
        }
        return fail(std::string("bad operand type for abs(): '") + input.type_name() + "'");
    }
    if (name == "round") {
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
    if (name == "sum") {
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
                return fail(std::string("unsupported operand type(s) for +: '") + total.type_name() +
                            "' and '" + x->type_name() + "'");
            SF_TRY(t, add_numbers(total, *x));
            total = std::move(t);
        }
        return total;
    }
    if (name == "format") {
        Value fmt_args = kwargs.empty() ? Value(args) : Value(Dict(kwargs));
        SF_TRY(out, percent_format(input.str(), fmt_args));
        return Value(std::move(out));
    }
    return fail("unknown filter '" + fname + "'");
}

Result<bool> apply_test(std::string_view name, const Value& v, const List& args) {
    auto arg = [&](const char* what) -> Result<Value> {
        if (args.size() != 1) return fail(std::string("test '") + what + "' takes exactly one argument");
        return args[0];
    };
    if (name == "defined") return !v.is_undefined();
    if (name == "undefined") return v.is_undefined();
    if (name == "none") return v.is_none();
    if (name == "string") return v.is_string();
    if (name == "number") return is_number(v) && !v.is_bool();
    if (name == "integer") return v.is_int();
    if (name == "float") return v.is_float();
    if (name == "boolean") return v.is_bool();
    if (name == "true") return v.is_bool() && v.as_bool();
    if (name == "false") return v.is_bool() && !v.as_bool();
    if (name == "mapping") return v.is_dict();
    if (name == "sequence") return v.is_list() || v.is_string() || v.is_dict();
    if (name == "iterable") return v.is_list() || v.is_string() || v.is_dict();
    if (name == "callable") return v.is_callable();
    if (name == "lower" || name == "upper") {
        if (!v.is_string()) return false;
        for (char c : v.as_string())
            if (name == "lower" ? (c >= 'A' && c <= 'Z') : (c >= 'a' && c <= 'z')) return false;
        return true;
    }
    if (name == "even" || name == "odd" || name == "divisibleby") {
        if (!v.is_int() && !v.is_bool()) return fail(std::string("test '") + std::string(name) + "' expects an int");
        std::int64_t x = v.is_bool() ? v.as_bool() : v.as_int();
        if (name == "even") return x % 2 == 0;
        if (name == "odd") return x % 2 != 0;
        SF_TRY(n, arg("divisibleby"));
        if (!n.is_int() || n.as_int() == 0) return fail("divisibleby needs a non-zero int");
        if (n.as_int() == -1) return true;
        return x % n.as_int() == 0;
    }
    SF_TRY(other, arg(std::string(name).c_str()));
    if (name == "startingwith" || name == "endingwith") {  // minijinja's, parsed only in its dialect
        if (!v.is_string() || !other.is_string())
            return fail(std::string("test '") + std::string(name) + "' compares strings");
        return name == "startingwith" ? v.as_string().starts_with(other.as_string())
                                      : v.as_string().ends_with(other.as_string());
    }
    Budget budget;
    if (name == "eq" || name == "equalto" || name == "sameas" || name == "ne") {
        bool eq = equals_within(v, other, budget.left);
        if (budget.left == 0) return too_expensive();
        return eq == (name != "ne");
    }
    if (name == "in") return contains(other, v, budget.left);
    SF_TRY(c, compare(v, other, name == "lt" ? "<" : name == "le" ? "<=" : name == "gt" ? ">" : ">=",
                      budget.left));
    if (name == "lt") return c < 0;
    if (name == "le") return c <= 0;
    if (name == "gt") return c > 0;
    return c >= 0;
}

bool has_method(const Value& self, std::string_view name) {
    if (self.is_string()) return is_str_method(name);
    if (self.is_list()) return name == "index" || name == "count";
    if (self.is_dict()) return name == "get" || name == "keys" || name == "values" || name == "items";
    return false;
}

Result<Value> call_method(const Value& self, std::string_view name, const List& args,
                          const KwArgs& kwargs, bool& found) {
    found = false;
    if (self.is_string()) return call_str_method(self.as_string(), name, args, kwargs, found);
    std::string fname = std::string(self.type_name()) + "." + std::string(name);
    Args a{args, kwargs, fname.c_str()};
    if (self.is_list()) {
        const List& l = self.as_list();
        if (name == "index" || name == "count") {
            found = true;
            SF_TRY_VOID(a.at_most(1));
            const Value* x = a.get(0, "value");
            if (!x) return fail(fname + "() takes exactly one argument (0 given)");
            std::int64_t n = 0;
            Budget budget;
            for (std::size_t i = 0; i < l.size(); ++i) {
                bool eq = equals_within(l[i], *x, budget.left);
                if (budget.left == 0) return too_expensive();
                if (!eq) continue;
                if (name == "index") return Value(static_cast<std::int64_t>(i));
                ++n;
            }
            if (name == "index") return fail(x->repr() + " is not in list");
            return Value(n);
        }
        return Value();
    }
    if (self.is_dict()) {
        const Dict& d = self.as_dict();
        if (name == "get") {
            found = true;
            SF_TRY_VOID(a.at_most(2));
            const Value* key = a.get(0, "key");
            if (!key) return fail("dict.get() takes at least 1 argument (0 given)");
            const Value* dflt = a.get(1, "default");
            const Value* hit = key->is_string() ? self.get(key->as_string()) : nullptr;
            if (hit) return *hit;
            return dflt ? *dflt : Value(None{});
        }
        if (name == "keys" || name == "values" || name == "items") {
            found = true;
            SF_TRY_VOID(a.at_most(0));
            List out;
            out.reserve(d.size());
            for (const auto& [k, v] : d) {
                if (name == "keys") out.emplace_back(k);
                else if (name == "values") out.push_back(v);
                else out.emplace_back(List{Value(k), v});
            }
            return Value(std::move(out));
        }
    }
    return Value();
}

const Value* builtin_global(std::string_view name) {
    static const Value range_fn{Function([](const List& args, const KwArgs& kwargs) -> Result<Value> {
        if (!kwargs.empty()) return fail("range() takes no keyword arguments");
        if (args.empty() || args.size() > 3)
            return fail("range expected 1 to 3 arguments, got " + std::to_string(args.size()));
        std::int64_t v[3] = {0, 0, 1};
        for (std::size_t i = 0; i < args.size(); ++i) {
            if (!args[i].is_int() && !args[i].is_bool())
                return fail(std::string("'") + args[i].type_name() + "' object cannot be interpreted as an integer");
            std::int64_t x = args[i].is_bool() ? args[i].as_bool() : args[i].as_int();
            if (args.size() == 1) v[1] = x;
            else v[i] = x;
        }
        if (v[2] == 0) return fail("range() arg 3 must not be zero");
        __int128 span = static_cast<__int128>(v[1]) - v[0];
        __int128 n = 0;
        if (v[2] > 0 && span > 0) n = (span + v[2] - 1) / v[2];
        if (v[2] < 0 && span < 0) n = (-span + (-static_cast<__int128>(v[2])) - 1) / -static_cast<__int128>(v[2]);
        if (n > static_cast<__int128>(kMaxList)) return fail("range() result is too large");
        List out;
        out.reserve(static_cast<std::size_t>(n));
        for (__int128 i = 0; i < n; ++i) out.emplace_back(static_cast<std::int64_t>(v[0] + i * v[2]));
        return Value(std::move(out));
    })};
    static const Value dict_fn{Function([](const List& args, const KwArgs& kwargs) -> Result<Value> {
        if (args.size() > 1) return fail("dict expected at most 1 argument, got " + std::to_string(args.size()));
        Dict out;
        if (args.size() == 1) {
            if (!args[0].is_dict()) return fail(std::string("dict() argument must be a dict, not ") + args[0].type_name());
            out = args[0].as_dict();
        }
        for (const auto& arg : kwargs) {
            auto it = std::find_if(out.begin(), out.end(), [&](const auto& kv) { return kv.first == arg.first; });
            if (it != out.end()) it->second = arg.second;
            else out.emplace_back(arg.first, arg.second);
        }
        return Value(std::move(out));
    })};
    if (name == "range") return &range_fn;
    if (name == "dict") return &dict_fn;
    return nullptr;
}

}  // namespace sf::jinja::detail
