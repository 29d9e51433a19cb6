// minijinja's Display and Debug for values; see minijinja_display.hpp.
#include "jinja/minijinja_display.hpp"

#include <charconv>
#include <cmath>
#include <cstdio>

#include "jinja/internal.hpp"

namespace sf::jinja::minijinja {
namespace {

constexpr int kMaxNesting = 200;
using detail::kMaxString;

// The shortest digits that read back as `x` (x finite, not zero) and the
// power of ten of the first one: 1234.5 -> {"12345", 3}.
std::pair<std::string, int> shortest_digits(double x) {
    char buf[64];
    auto res = std::to_chars(buf, buf + sizeof buf, std::fabs(x), std::chars_format::scientific);
    std::string s(buf, res.ptr);
    auto e = s.find('e');
    std::string digits;
    for (char c : s.substr(0, e))
        if (c != '.') digits += c;
    while (digits.size() > 1 && digits.back() == '0') digits.pop_back();
    return {digits, std::stoi(s.substr(e + 1))};
}

// Rust's `{}` for f64: positional, never an exponent ("1e20" is
// "100000000000000000000", "1e-7" is "0.0000001").
std::string rust_fixed(double x) {
    if (x == 0) return std::signbit(x) ? "-0" : "0";
    auto [d, e] = shortest_digits(x);
    std::string out = x < 0 ? "-" : "";
    if (e < 0) return out + "0." + std::string(static_cast<size_t>(-e - 1), '0') + d;
    auto int_len = static_cast<size_t>(e) + 1;
    if (d.size() <= int_len) return out + d + std::string(int_len - d.size(), '0');
    return out + d.substr(0, int_len) + "." + d.substr(int_len);
}

// Rust's `{:?}` for f64: positional with at least one decimal between 1e-4
// and 1e16, else `<digits>e<exp>` ("1e16", "1.5e-5").
std::string rust_debug_float(double x) {
    if (std::isnan(x)) return "NaN";
    if (std::isinf(x)) return x < 0 ? "-inf" : "inf";
    double a = std::fabs(x);
    if (a != 0 && (a < 1e-4 || a >= 1e16)) {
        auto [d, e] = shortest_digits(x);
        std::string m = d.size() > 1 ? d.substr(0, 1) + "." + d.substr(1) : d;
        return (x < 0 ? "-" : "") + m + "e" + std::to_string(e);
    }
    std::string s = rust_fixed(x);
    return s.find('.') == std::string::npos ? s + ".0" : s;
}

std::string display_float(double x) {
    if (std::isnan(x)) return "NaN";
    if (std::isinf(x)) return x < 0 ? "-inf" : "inf";
    std::string s = rust_fixed(x);
    return s.find('.') == std::string::npos ? s + ".0" : s;
}

// Rust's `{:?}` for str. Bytes from 0x80 up pass as they are: Rust escapes
// only the non-printable code points among them, which recipes do not hold.
void debug_string(const std::string& s, std::string& out) {
    out += '"';
    for (unsigned char c : s) {
        switch (c) {
        case '"': out += "\\\""; break;
        case '\\': out += "\\\\"; break;
        case '\n': out += "\\n"; break;
        case '\r': out += "\\r"; break;
        case '\t': out += "\\t"; break;
        case '\0': out += "\\0"; break;
        default:
            if (c < 0x20 || c == 0x7f) {
                char buf[16];
                std::snprintf(buf, sizeof buf, "\\u{%x}", unsigned{c});
                out += buf;
            } else {
                out += static_cast<char>(c);
            }
        }
    }
    out += '"';
}

void write(const Value& v, std::string& out, bool as_debug, int depth) {
    if (out.size() > kMaxString) return;
    if (v.is_undefined()) out += as_debug ? "undefined" : "";
    else if (v.is_none()) out += "None";
    else if (v.is_bool()) out += v.as_bool() ? "True" : "False";
    else if (v.is_int()) out += std::to_string(v.as_int());
    else if (v.is_float()) out += as_debug ? rust_debug_float(v.as_float()) : display_float(v.as_float());
    else if (v.is_string()) as_debug ? debug_string(v.as_string(), out) : void(out += v.as_string());
    else if (v.is_list()) {
        out += '[';
        if (depth > kMaxNesting) out += "...";
        else
            for (size_t i = 0; i < v.as_list().size() && out.size() <= kMaxString; ++i) {
                if (i) out += ", ";
                write(v.as_list()[i], out, true, depth + 1);
            }
        out += ']';
    } else if (v.is_dict()) {
        out += '{';
        if (depth > kMaxNesting) out += "...";
        else
            for (size_t i = 0; i < v.as_dict().size() && out.size() <= kMaxString; ++i) {
                if (i) out += ", ";
                debug_string(v.as_dict()[i].first, out);
                out += ": ";
                write(v.as_dict()[i].second, out, true, depth + 1);
            }
        out += '}';
    } else {
        out += "<function>";
    }
}

}  // namespace

std::string display(const Value& v) {
    std::string out;
    write(v, out, false, 0);
    return out;
}

std::string debug(const Value& v) {
    std::string out;
    write(v, out, true, 0);
    return out;
}

}  // namespace sf::jinja::minijinja
