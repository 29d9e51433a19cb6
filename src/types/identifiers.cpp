#include "types/identifiers.hpp"

#include <string>

#include "util/strings.hpp"

namespace sf::types {
namespace {

bool lower_alnum(char c) { return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9'); }
bool alnum(char c) { return lower_alnum(c) || (c >= 'A' && c <= 'Z'); }
bool separator(char c) { return c == '.' || c == '_' || c == '-'; }

Unexpected<Error> bad(std::string_view what, std::string_view value, std::string hint) {
    return fail("invalid " + std::string(what) + " '" + printable(value) + "'", std::move(hint));
}

// Only `allowed` characters, none of them "..", at most `max` long.
bool chars_only(std::string_view s, std::string_view extra, std::size_t max) {
    if (s.empty() || s.size() > max || s.find("..") != std::string_view::npos) return false;
    for (char c : s)
        if (!alnum(c) && extra.find(c) == std::string_view::npos) return false;
    return true;
}

}  // namespace

std::string printable(std::string_view s) {
    static const char* hex = "0123456789abcdef";
    std::string out;
    for (unsigned char ch : s) {
        if (ch < 0x20 || ch == 0x7f) out += std::string("\\x") + hex[ch >> 4] + hex[ch & 15];
        else out += static_cast<char>(ch);
    }
    return out;
}

bool valid_package_name(std::string_view s) {
    if (s.empty() || s.size() > kMaxNameLength) return false;
    if (!lower_alnum(s[0]) && !(s[0] == '_' && s.size() > 1 && !separator(s[1]))) return false;
    for (std::size_t i = 0; i < s.size(); ++i) {
        if (!lower_alnum(s[i]) && !separator(s[i])) return false;
        if (i > 0 && separator(s[i]) && separator(s[i - 1])) return false;
    }
    return true;
}

bool valid_version(std::string_view s) { return chars_only(s, "._+!", kMaxVersionLength); }
bool valid_build_string(std::string_view s) { return chars_only(s, "._+", kMaxBuildLength); }

Result<void> check_package_name(std::string_view s) {
    if (valid_package_name(s)) return {};
    return bad("package name", s,
               "use at most 64 lower-case letters, digits, '.', '_' and '-', starting with a letter, a digit or "
               "one '_', no two of '._-' in a row");
}

Result<void> check_version(std::string_view s) {
    if (valid_version(s)) return {};
    return bad("version", s, "use at most 64 letters, digits, '.', '_', '+' and '!', and no '..'");
}

Result<void> check_build_string(std::string_view s) {
    if (valid_build_string(s)) return {};
    return bad("build string", s, "use at most 64 letters, digits, '.', '_' and '+', and no '..'");
}

Result<int> parse_build_number(std::string_view text) {
    long long n = 0;
    bool ok = !text.empty() && text.size() <= 10;
    for (char c : text) {
        if (c < '0' || c > '9') ok = false;
        else n = n * 10 + (c - '0');
    }
    if (ok && n < kBuildNumberLimit) return static_cast<int>(n);
    return fail("must be a non-negative integer below 2^31, not '" + printable(text) + "'", "write e.g. 'number: 0'");
}

Result<void> check_env_name(std::string_view s) {
    auto word = [](char c) { return alnum(c) || c == '_'; };
    bool ok = !s.empty() && !(s[0] >= '0' && s[0] <= '9');
    for (char c : s) ok = ok && word(c);
    if (ok) return {};
    return bad("script env name", s, "use letters, digits and '_', not starting with a digit (a shell variable name)");
}

Result<void> check_subdir(std::string_view s) {
    auto dash = s.find('-');
    bool ok = s == "noarch";
    if (!ok && s.size() <= kMaxSubdirLength && dash != std::string_view::npos && dash > 0 && dash + 1 < s.size()) {
        ok = true;
        for (std::size_t i = 0; i < s.size(); ++i)
            if (i != dash && !lower_alnum(s[i])) ok = false;
    }
    if (ok) return {};
    return bad("subdir", s, "use 'noarch' or <os>-<arch> such as linux-64");
}

Result<void> check_prefix(std::string_view s) {
    if (s.empty()) return fail("the prefix is empty", "give the prefix directory");
    for (unsigned char ch : s)
        if (ch < 0x20 || ch == 0x7f)
            return fail("prefix '" + printable(s) + "' contains a control character",
                        "choose a prefix path without newlines, tabs or other control characters");
    return {};
}

Result<NoArch> parse_recipe_noarch(std::string_view text) {
    std::string l = str::lower(std::string(text));
    if (l.empty() || l == "false" || l == "no" || l == "n" || l == "off") return NoArch::none;
    if (l == "true" || l == "yes" || l == "y" || l == "on" || l == "1") return NoArch::generic;  // legacy `noarch: True`
    if (text == "python") return NoArch::python;
    if (text == "generic") return NoArch::generic;
    return fail("invalid noarch '" + printable(text) + "'", "use 'python' or 'generic'");
}

}  // namespace sf::types
