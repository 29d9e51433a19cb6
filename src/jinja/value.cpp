// Python-like behaviour of jinja::Value: truthiness, str/repr, equality,
// ordering, membership and iteration.
#include "jinja/value.hpp"

#include <charconv>
#include <cmath>
#include <cstdlib>

#include <fmt/format.h>

#include "jinja/internal.hpp"

namespace sf::jinja {
namespace detail {

namespace {

constexpr int kMaxValueDepth = 200;

void repr_string(const std::string& s, std::string& out) {
    bool has_single = s.find('\'') != std::string::npos;
    bool has_double = s.find('"') != std::string::npos;
    char q = (has_single && !has_double) ? '"' : '\'';
    out += q;
    for (unsigned char c : s) {
        switch (c) {
        case '\\': out += "\\\\"; break;
        case '\n': out += "\\n"; break;
        case '\r': out += "\\r"; break;
        case '\t': out += "\\t"; break;
        default:
            if (c == static_cast<unsigned char>(q)) {
                out += '\\';
                out += static_cast<char>(c);
            } else if (c < 0x20 || c == 0x7f) {
                out += fmt::format("\\x{:02x}", unsigned{c});
            } else {
                out += static_cast<char>(c);
            }
        }
    }
    out += q;
}

bool write(const Value& v, std::string& out, std::size_t limit, bool as_repr, int depth) {
    if (out.size() > limit) return false;
    const auto& s = v.storage();
    switch (s.index()) {
    case 0: out += as_repr ? "Undefined" : ""; return true;
    case 1: out += "None"; return true;
    case 2: out += v.as_bool() ? "True" : "False"; return true;
    case 3: out += std::to_string(v.as_int()); return true;
    case 4: out += format_float(v.as_float()); return true;
    case 5:
        if (as_repr) repr_string(v.as_string(), out);
        else out += v.as_string();
        return out.size() <= limit;
    case 6: {
        if (depth > kMaxValueDepth) { out += "[...]"; return true; }
        out += '[';
        bool first = true;
        for (const auto& item : v.as_list()) {
            if (!first) out += ", ";
            first = false;
            if (!write(item, out, limit, true, depth + 1)) return false;
        }
        out += ']';
        return true;
    }
    case 7: {
        if (depth > kMaxValueDepth) { out += "{...}"; return true; }
        out += '{';
        bool first = true;
        for (const auto& [k, item] : v.as_dict()) {
            if (!first) out += ", ";
            first = false;
            repr_string(k, out);
            out += ": ";
            if (!write(item, out, limit, true, depth + 1)) return false;
        }
        out += '}';
        return true;
    }
    default: out += "<function>"; return true;
    }
}

// Equality with a step budget, so that values sharing sub-lists (which can
// describe exponentially large trees) cannot make a comparison run forever.
bool equals_impl(const Value& a, const Value& b, std::size_t& budget, int depth) {
    if (budget == 0 || depth > kMaxValueDepth) return false;
    --budget;
    if (is_number(a) && is_number(b)) {
        if (a.is_float() || b.is_float()) return to_double(a) == to_double(b);
        auto ai = a.is_bool() ? std::int64_t(a.as_bool()) : a.as_int();
        auto bi = b.is_bool() ? std::int64_t(b.as_bool()) : b.as_int();
        return ai == bi;
    }
    if (a.storage().index() != b.storage().index()) return false;
    if (a.is_undefined() || a.is_none()) return true;
    if (a.is_string()) return a.as_string() == b.as_string();
    if (a.is_list()) {
        const List& x = a.as_list();
        const List& y = b.as_list();
        if (&x == &y) return true;
        if (x.size() != y.size()) return false;
        for (std::size_t i = 0; i < x.size(); ++i)
            if (!equals_impl(x[i], y[i], budget, depth + 1)) return false;
        return true;
    }
    if (a.is_dict()) {
        const Dict& x = a.as_dict();
        const Dict& y = b.as_dict();
        if (&x == &y) return true;
        if (x.size() != y.size()) return false;
        for (const auto& [k, item] : x) {
            const Value* other = b.get(k);
            if (!other || !equals_impl(item, *other, budget, depth + 1)) return false;
        }
        return true;
    }
    return &a.as_callable() == &b.as_callable();
}

Result<int> compare_impl(const Value& a, const Value& b, const char* op, std::size_t& budget,
                         int depth) {
    if (budget == 0) return too_expensive();
    if (depth > kMaxValueDepth) return fail(std::string("comparison with '") + op + "' is nested too deeply");
    --budget;
    if (is_number(a) && is_number(b)) {
        if (a.is_float() || b.is_float()) {
            double x = to_double(a), y = to_double(b);
            return x < y ? -1 : (x > y ? 1 : 0);
        }
        auto x = a.is_bool() ? std::int64_t(a.as_bool()) : a.as_int();
        auto y = b.is_bool() ? std::int64_t(b.as_bool()) : b.as_int();
        return x < y ? -1 : (x > y ? 1 : 0);
    }
    if (a.is_string() && b.is_string()) {
        int c = a.as_string().compare(b.as_string());
        return c < 0 ? -1 : (c > 0 ? 1 : 0);
    }
    if (a.is_list() && b.is_list()) {
        const List& x = a.as_list();
        const List& y = b.as_list();
        for (std::size_t i = 0; i < x.size() && i < y.size(); ++i) {
            if (equals_impl(x[i], y[i], budget, depth + 1)) continue;
            return compare_impl(x[i], y[i], op, budget, depth + 1);
        }
        return x.size() < y.size() ? -1 : (x.size() > y.size() ? 1 : 0);
    }
    return fail(std::string("'") + op + "' not supported between instances of '" + a.type_name() +
                "' and '" + b.type_name() + "'");
}

}  // namespace

std::string format_float(double d) {
    if (std::isnan(d)) return "nan";
    if (std::isinf(d)) return d < 0 ? "-inf" : "inf";
    char buf[64];
    auto res = std::to_chars(buf, buf + sizeof buf, d, std::chars_format::scientific);
    std::string sci(buf, res.ptr);
    // sci looks like "-1.2345e+02": split sign, digits and exponent.
    std::string sign;
    std::size_t i = 0;
    if (sci[0] == '-') { sign = "-"; i = 1; }
    std::size_t epos = sci.find('e');
    std::string digits;
    for (std::size_t j = i; j < epos; ++j)
        if (sci[j] != '.') digits += sci[j];
    int exp = std::atoi(sci.c_str() + epos + 1);
    while (digits.size() > 1 && digits.back() == '0') digits.pop_back();
    std::string out = sign;
    if (exp >= 16 || exp < -4) {
        out += digits[0];
        if (digits.size() > 1) { out += '.'; out += digits.substr(1); }
        out += fmt::format("e{}{:02d}", exp < 0 ? '-' : '+', std::abs(exp));
    } else if (exp < 0) {
        out += "0.";
        out += std::string(static_cast<std::size_t>(-exp - 1), '0');
        out += digits;
    } else {
        auto int_len = static_cast<std::size_t>(exp) + 1;
        if (digits.size() <= int_len) {
            out += digits + std::string(int_len - digits.size(), '0') + ".0";
        } else {
            out += digits.substr(0, int_len) + "." + digits.substr(int_len);
        }
    }
    return out;
}

bool str_into(const Value& v, std::string& out, std::size_t limit) {
    return write(v, out, limit, false, 0) && out.size() <= limit;
}
bool repr_into(const Value& v, std::string& out, std::size_t limit) {
    return write(v, out, limit, true, 0) && out.size() <= limit;
}

std::size_t shallow_size(const Value& v) {
    if (v.is_string()) return v.as_string().size() / 64;
    if (v.is_list()) return v.as_list().size();
    if (v.is_dict()) return v.as_dict().size();
    return 0;
}

bool is_number(const Value& v) { return v.is_bool() || v.is_int() || v.is_float(); }

double to_double(const Value& v) {
    if (v.is_bool()) return v.as_bool() ? 1.0 : 0.0;
    if (v.is_int()) return static_cast<double>(v.as_int());
    return v.as_float();
}

Unexpected<Error> too_expensive() {
    return fail("operation is too expensive", "values this large or deeply shared are not supported");
}

bool equals_within(const Value& a, const Value& b, std::size_t& budget) {
    return equals_impl(a, b, budget, 0);
}

Result<int> compare(const Value& a, const Value& b, const char* op, std::size_t& budget) {
    return compare_impl(a, b, op, budget, 0);
}

Result<bool> contains(const Value& container, const Value& item, std::size_t& budget) {
    if (container.is_string()) {
        if (!item.is_string())
            return fail(std::string("'in <string>' requires string as left operand, not ") +
                        item.type_name());
        return find_sub(container.as_string(), item.as_string()) != std::string::npos;
    }
    if (container.is_list()) {
        for (const auto& x : container.as_list()) {
            if (equals_impl(x, item, budget, 0)) return true;
            if (budget == 0) return too_expensive();
        }
        return false;
    }
    if (container.is_dict()) return item.is_string() && container.get(item.as_string()) != nullptr;
    if (container.is_undefined()) return false;
    return fail(std::string("argument of type '") + container.type_name() + "' is not iterable");
}

Result<List> iterate(const Value& v) {
    if (v.is_list()) return v.as_list();
    if (v.is_dict()) {
        List keys;
        keys.reserve(v.as_dict().size());
        for (const auto& kv : v.as_dict()) keys.emplace_back(kv.first);
        return keys;
    }
    if (v.is_string()) {
        List chars;
        chars.reserve(v.as_string().size());
        for (char c : v.as_string()) chars.emplace_back(std::string(1, c));
        return chars;
    }
    if (v.is_undefined()) return List{};
    return fail(std::string("'") + v.type_name() + "' object is not iterable");
}

}  // namespace detail

bool Value::truthy() const {
    switch (v_.index()) {
    case 0: case 1: return false;
    case 2: return as_bool();
    case 3: return as_int() != 0;
    case 4: return as_float() != 0.0;
    case 5: return !as_string().empty();
    case 6: return !as_list().empty();
    case 7: return !as_dict().empty();
    default: return true;
    }
}

std::string Value::str() const {
    std::string out;
    detail::str_into(*this, out, detail::kMaxString);
    return out;
}

std::string Value::repr() const {
    std::string out;
    detail::repr_into(*this, out, detail::kMaxString);
    return out;
}

bool Value::equals(const Value& other) const {
    std::size_t budget = 1u << 20;
    return detail::equals_impl(*this, other, budget, 0);
}

const Value* Value::get(const std::string& key) const {
    if (!is_dict()) return nullptr;
    for (const auto& kv : as_dict())
        if (kv.first == key) return &kv.second;
    return nullptr;
}

const char* Value::type_name() const {
    switch (v_.index()) {
    case 0: return "Undefined";
    case 1: return "NoneType";
    case 2: return "bool";
    case 3: return "int";
    case 4: return "float";
    case 5: return "str";
    case 6: return "list";
    case 7: return "dict";
    default: return "function";
    }
}

}  // namespace sf::jinja
