// Tests (one table per dialect), list/dict methods and the default globals
// (range, dict). The filters are in filters.cpp, str methods in str_methods.cpp.
#include <algorithm>
#include <cstdint>

#include "jinja/registry.hpp"

namespace sf::jinja::detail {
namespace {

Result<Value> one_arg(std::string_view name, const List& args) {
    if (args.size() != 1) return fail("test '" + std::string(name) + "' takes exactly one argument");
    return args[0];
}

Result<bool> t_defined(std::string_view, const Value& v, const List&) { return !v.is_undefined(); }
Result<bool> t_undefined(std::string_view, const Value& v, const List&) { return v.is_undefined(); }
Result<bool> t_none(std::string_view, const Value& v, const List&) { return v.is_none(); }
Result<bool> t_string(std::string_view, const Value& v, const List&) { return v.is_string(); }
Result<bool> t_number(std::string_view, const Value& v, const List&) { return is_number(v) && !v.is_bool(); }
Result<bool> t_integer(std::string_view, const Value& v, const List&) { return v.is_int(); }
Result<bool> t_float(std::string_view, const Value& v, const List&) { return v.is_float(); }
Result<bool> t_boolean(std::string_view, const Value& v, const List&) { return v.is_bool(); }
Result<bool> t_true(std::string_view, const Value& v, const List&) { return v.is_bool() && v.as_bool(); }
Result<bool> t_false(std::string_view, const Value& v, const List&) { return v.is_bool() && !v.as_bool(); }
Result<bool> t_mapping(std::string_view, const Value& v, const List&) { return v.is_dict(); }
// sequence and iterable: Jinja2 counts a dict as both.
Result<bool> t_sequence(std::string_view, const Value& v, const List&) {
    return v.is_list() || v.is_string() || v.is_dict();
}
Result<bool> t_callable(std::string_view, const Value& v, const List&) { return v.is_callable(); }

Result<bool> t_case(std::string_view name, const Value& v, const List&) {
    if (!v.is_string()) return false;
    for (char c : v.as_string())
        if (name == "lower" ? (c >= 'A' && c <= 'Z') : (c >= 'a' && c <= 'z')) return false;
    return true;
}

// even, odd and divisibleby.
Result<bool> t_parity(std::string_view name, const Value& v, const List& args) {
    if (!v.is_int() && !v.is_bool()) return fail(std::string("test '") + std::string(name) + "' expects an int");
    std::int64_t x = v.is_bool() ? v.as_bool() : v.as_int();
    if (name == "even") return x % 2 == 0;
    if (name == "odd") return x % 2 != 0;
    SF_TRY(n, one_arg("divisibleby", args));
    if (!n.is_int() || n.as_int() == 0) return fail("divisibleby needs a non-zero int");
    if (n.as_int() == -1) return true;
    return x % n.as_int() == 0;
}

// minijinja's startingwith and endingwith.
Result<bool> t_affix(std::string_view name, const Value& v, const List& args) {
    SF_TRY(other, one_arg(name, args));
    if (!v.is_string() || !other.is_string())
        return fail(std::string("test '") + std::string(name) + "' compares strings");
    return name == "startingwith" ? v.as_string().starts_with(other.as_string())
                                  : v.as_string().ends_with(other.as_string());
}

// eq, equalto, sameas and ne.
Result<bool> t_equal(std::string_view name, const Value& v, const List& args) {
    SF_TRY(other, one_arg(name, args));
    Budget budget;
    bool eq = equals_within(v, other, budget.left);
    if (budget.left == 0) return too_expensive();
    return eq == (name != "ne");
}

Result<bool> t_in(std::string_view name, const Value& v, const List& args) {
    SF_TRY(other, one_arg(name, args));
    Budget budget;
    return contains(other, v, budget.left);
}

// lt, le, gt and ge.
Result<bool> t_order(std::string_view name, const Value& v, const List& args) {
    SF_TRY(other, one_arg(name, args));
    Budget budget;
    SF_TRY(c, compare(v, other, name == "lt" ? "<" : name == "le" ? "<=" : name == "gt" ? ">" : ">=", budget.left));
    if (name == "lt") return c < 0;
    if (name == "le") return c <= 0;
    if (name == "gt") return c > 0;
    return c >= 0;
}

using T = Named<TestFn>;

// Jinja2's tests (meta.yaml).
constexpr std::array kJinja2{
    T{"boolean", t_boolean},   T{"callable", t_callable}, T{"defined", t_defined}, T{"divisibleby", t_parity},
    T{"eq", t_equal},          T{"equalto", t_equal},     T{"even", t_parity},     T{"false", t_false},
    T{"float", t_float},       T{"ge", t_order},          T{"gt", t_order},        T{"in", t_in},
    T{"integer", t_integer},   T{"iterable", t_sequence}, T{"le", t_order},        T{"lower", t_case},
    T{"lt", t_order},          T{"mapping", t_mapping},   T{"ne", t_equal},        T{"none", t_none},
    T{"number", t_number},     T{"odd", t_parity},        T{"sameas", t_equal},    T{"sequence", t_sequence},
    T{"string", t_string},     T{"true", t_true},         T{"undefined", t_undefined}, T{"upper", t_case}};
// minijinja's (recipe.yaml) adds two.
constexpr std::array kMiniJinjaOwn{T{"endingwith", t_affix}, T{"startingwith", t_affix}};
constexpr auto kMiniJinja = merged(kJinja2, kMiniJinjaOwn);
static_assert(sorted_by_name(kJinja2) && sorted_by_name(kMiniJinja), "tests: keep the tables in name order");

}  // namespace

const Registry<TestFn>& tests(Dialect d) {
    static constexpr Registry<TestFn> jinja2{kJinja2}, minijinja{kMiniJinja};
    return d == Dialect::minijinja ? minijinja : jinja2;
}

Result<bool> apply_test(std::string_view name, TestFn fn, const Value& v, const List& args) {
    return fn(name, v, args);
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
