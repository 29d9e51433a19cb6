// The two scalar rules of v1_scalar.hpp, written from marked_yaml 0.8's
// MarkedScalarNode::as_bool/as_i64 (Rust's FromStr) and serde_yaml 0.9's
// de.rs (parse_null, parse_bool, parse_unsigned_int, parse_negative_int,
// digits_but_not_number, parse_f64).
#include "render/v1_scalar.hpp"

#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <optional>
#include <string>

namespace sf::render::v1 {
namespace {

using jinja::Value;

std::optional<bool> yaml_bool(std::string_view s) {
    if (s == "true" || s == "True" || s == "TRUE") return true;
    if (s == "false" || s == "False" || s == "FALSE") return false;
    return std::nullopt;
}

bool is_digit(char c, int radix) {
    if (radix == 16) return std::isxdigit(static_cast<unsigned char>(c)) != 0;
    return c >= '0' && c < static_cast<char>('0' + radix);
}

// Rust's iN::from_str_radix: one optional sign ('-' only where `negative`
// is allowed), then at least one digit of the radix, nothing else; the
// value must fit an i64 (what a jinja integer holds).
std::optional<std::int64_t> from_str_radix(std::string_view s, int radix) {
    bool neg = false;
    if (!s.empty() && (s[0] == '+' || s[0] == '-')) {
        neg = s[0] == '-';
        s.remove_prefix(1);
    }
    if (s.empty()) return std::nullopt;
    for (char c : s)
        if (!is_digit(c, radix)) return std::nullopt;
    std::string text = (neg ? "-" : "") + std::string(s);
    errno = 0;
    long long v = std::strtoll(text.c_str(), nullptr, radix);
    if (errno == ERANGE) return std::nullopt;
    return static_cast<std::int64_t>(v);
}

// YAML 1.2: a leading zero followed by digits is a string ("007").
bool digits_but_not_number(std::string_view s) {
    if (!s.empty() && (s[0] == '+' || s[0] == '-')) s.remove_prefix(1);
    if (s.size() < 2 || s[0] != '0') return false;
    return s.substr(1).find_first_not_of("0123456789") == std::string_view::npos;
}

std::optional<std::int64_t> serde_int(std::string_view s) {
    std::string_view u = !s.empty() && s[0] == '+' ? s.substr(1) : s;
    struct Prefix {
        std::string_view p;
        int radix;
    } prefixes[] = {{"0x", 16}, {"0o", 8}, {"0b", 2}};
    for (const auto& [p, radix] : prefixes) {
        if (u.substr(0, 2) == p) {
            std::string_view rest = u.substr(2);
            if (!rest.empty() && (rest[0] == '+' || rest[0] == '-')) return std::nullopt;
            return from_str_radix(rest, radix);
        }
        if (s.size() > 3 && s[0] == '-' && s.substr(1, 2) == p) {
            auto v = from_str_radix(s.substr(3), radix);
            return v ? std::optional<std::int64_t>(-*v) : std::nullopt;
        }
    }
    if (digits_but_not_number(s)) return std::nullopt;
    if (u.size() != s.size() && !u.empty() && (u[0] == '+' || u[0] == '-')) return std::nullopt;
    return from_str_radix(s, 10);
}

// Rust's f64::from_str for finite numbers: [sign] digits [. digits] [e [sign] digits],
// with digits on at least one side of the point.
std::optional<double> rust_finite_float(std::string_view s) {
    std::string_view t = s;
    if (!t.empty() && (t[0] == '+' || t[0] == '-')) t.remove_prefix(1);
    size_t i = 0, digits = 0;
    auto run = [&] {
        size_t n = 0;
        while (i < t.size() && t[i] >= '0' && t[i] <= '9') ++i, ++n;
        return n;
    };
    digits += run();
    if (i < t.size() && t[i] == '.') {
        ++i;
        digits += run();
    }
    if (digits == 0) return std::nullopt;
    if (i < t.size() && (t[i] == 'e' || t[i] == 'E')) {
        ++i;
        if (i < t.size() && (t[i] == '+' || t[i] == '-')) ++i;
        if (run() == 0) return std::nullopt;
    }
    if (i != t.size()) return std::nullopt;
    double d = std::strtod(std::string(s).c_str(), nullptr);
    if (!std::isfinite(d)) return std::nullopt;  // serde_yaml keeps only finite ones
    return d;
}

std::optional<double> serde_float(std::string_view s) {
    std::string_view u = s;
    if (!u.empty() && u[0] == '+') {
        u.remove_prefix(1);
        if (!u.empty() && (u[0] == '+' || u[0] == '-')) return std::nullopt;
    }
    if (u == ".inf" || u == ".Inf" || u == ".INF") return HUGE_VAL;
    if (s == "-.inf" || s == "-.Inf" || s == "-.INF") return -HUGE_VAL;
    if (s == ".nan" || s == ".NaN" || s == ".NAN") return std::nan("");
    return rust_finite_float(u);
}

}  // namespace

Value marked_yaml_scalar(std::string_view s) {
    if (auto b = yaml_bool(s)) return Value(*b);
    if (auto i = from_str_radix(s, 10)) return Value(*i);
    return Value(std::string(s));
}

Value serde_yaml_scalar(std::string_view s) {
    if (s.empty() || s == "~" || s == "null" || s == "Null" || s == "NULL") return Value(jinja::None{});
    if (auto b = yaml_bool(s)) return Value(*b);
    if (auto i = serde_int(s)) return Value(*i);
    // Past i64, serde_yaml still reads an integer (u64, i128, u128); a jinja
    // integer here is an i64, so it stays its text rather than a float.
    std::string_view digits = !s.empty() && (s[0] == '+' || s[0] == '-') ? s.substr(1) : s;
    if (!digits.empty() && digits.find_first_not_of("0123456789") == std::string_view::npos)
        return Value(std::string(s));
    if (!digits_but_not_number(s))
        if (auto f = serde_float(s)) return Value(*f);
    return Value(std::string(s));
}

}  // namespace sf::render::v1
