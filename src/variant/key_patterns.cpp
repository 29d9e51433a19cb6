#include "variant/key_patterns.hpp"

namespace sf::variant::key_patterns {
namespace {

constexpr auto npos = std::string_view::npos;

// On a plain line, \s is a space or a tab.
bool space(char c) { return c == ' ' || c == '\t'; }
bool word(char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
}
size_t skip_space(std::string_view s, size_t i) {
    while (i < s.size() && space(s[i])) ++i;
    return i;
}
bool at(std::string_view s, size_t i, std::string_view lit) { return i <= s.size() && s.substr(i, lit.size()) == lit; }

// (?:[^%]*?)?%\} after position i: the first '%' from i starts "%}".
bool closes_tag(std::string_view s, size_t i) {
    size_t pct = s.find('%', i);
    return pct != npos && pct + 1 < s.size() && s[pct + 1] == '}';
}

// Each `{%` that is at the line start or not after a `{`, then \s* and
// `word`: calls f(position after the word) until f says yes.
template <typename F>
bool each_tag(std::string_view s, std::string_view word_, F f) {
    for (size_t p = s.find("{%"); p != npos; p = s.find("{%", p + 1)) {
        if (p > 0 && s[p - 1] == '{') continue;
        size_t q = skip_space(s, p + 2);
        if (at(s, q, word_) && f(q + word_.size())) return true;
    }
    return false;
}

}  // namespace

bool jinja_ref(std::string_view s, std::string_view key, bool rules_26_7) {
    auto tail = [&](size_t end) {  // after KEY
        if (rules_26_7 && at(s, end, "}}")) return true;
        return end < s.size() && !word(s[end]) && s.find("}}", end + 1) != npos;
    };
    for (size_t p = s.find('{'); p != npos; p = s.find('{', p + 1)) {
        size_t q = skip_space(s, p + 1);
        if (at(s, q, key) && tail(q + key.size())) return true;
        if (!at(s, q, "pin_")) continue;
        size_t r = q + 4, letters = r;
        while (r < s.size() && s[r] >= 'a' && s[r] <= 'z') ++r;
        if (r == letters || !at(s, r, "(")) continue;
        r = skip_space(s, r + 1);
        if (r >= s.size() || (s[r] != '\'' && s[r] != '"')) continue;
        if (at(s, r + 1, key) && tail(r + 1 + key.size())) return true;
    }
    return false;
}

bool requirement(std::string_view s, std::string_view key) {
    size_t i = skip_space(s, 0);
    if (i == 0 || !at(s, i, "-")) return false;
    size_t j = skip_space(s, i + 1);
    if (j == i + 1 || s.size() - j < key.size()) return false;
    for (size_t k = 0; k < key.size(); ++k) {
        char c = s[j + k];
        if (key[k] == '_' ? (c != '_' && c != '-') : c != key[k]) return false;
    }
    size_t end = j + key.size();
    size_t rest = skip_space(s, end);
    if (rest == s.size()) return true;                        // \s*$
    return rest > end && (s[rest] == '[' || s[rest] == '#');  // \s*\s[\[#]
}

bool if_tag(std::string_view s, std::string_view key) {
    auto from = [&](size_t r) {
        for (size_t k = s.find(key, r); k != npos; k = s.find(key, k + 1))
            if (closes_tag(s, k + key.size())) return true;
        return false;
    };
    for (size_t p = s.find("{%"); p != npos; p = s.find("{%", p + 1)) {
        if (p > 0 && s[p - 1] == '{') continue;
        size_t q = skip_space(s, p + 2);
        if (at(s, q, "elif") ? from(q + 4) : at(s, q, "if") && from(q + 2)) return true;
    }
    return false;
}

bool for_tag(std::string_view s, std::string_view key) {
    return each_tag(s, "for", [&](size_t r) {
        for (size_t i = s.find("in", r); i != npos; i = s.find("in", i + 1)) {
            size_t k = skip_space(s, i + 2);
            size_t end = k + key.size();
            if (at(s, k, key) && (end == s.size() || !word(s[end])) && closes_tag(s, end)) return true;
        }
        return false;
    });
}

bool set_tag(std::string_view s, std::string_view key, bool rules_26_7) {
    return each_tag(s, "set", [&](size_t r) {
        size_t eq = s.find('=', r);
        if (eq == npos) return false;
        for (size_t k = s.find(key, eq + 1); k != npos; k = s.find(key, k + 1)) {
            size_t end = k + key.size();
            if (rules_26_7 && word(s[k - 1])) continue;
            if ((end == s.size() || !word(s[end])) && closes_tag(s, end)) return true;
        }
        return false;
    });
}

bool selector(std::string_view s, std::string_view key) {
    size_t f = 0;  // the first '#' or '[' (find_first_of calls memchr per character)
    while (f < s.size() && s[f] != '#' && s[f] != '[') ++f;
    if (f == s.size()) return false;
    size_t b = npos;  // the '[' the pattern opens at
    if (s[f] == '[' && f > 0 && space(s[f - 1])) b = f;
    else if (s[f] == '#' && f + 2 < s.size() && space(s[f + 1]) && s[f + 2] == '[') b = f + 2;
    if (b == npos) return false;
    size_t close = s.find(']', b + 1);
    for (size_t k = s.find(key, b + 1); k != npos && k < close; k = s.find(key, k + 1)) {
        size_t end = k + key.size();
        if (word(s[k - 1]) || end >= s.size()) continue;
        char c = s[end];
        if (c == '=' || space(c) || c == '<' || c == '>' || c == '!' || c == ']') return true;
    }
    return false;
}

bool compiler_call(std::string_view s, std::string_view kind, std::string_view lang) {
    for (size_t p = s.find('{'); p != npos; p = s.find('{', p + 1)) {
        size_t q = skip_space(s, p + 1);
        if (!at(s, q, kind) || !at(s, q + kind.size(), "(")) continue;
        size_t r = q + kind.size() + 1;
        if (r >= s.size() || (s[r] != '\'' && s[r] != '"') || !at(s, r + 1, lang)) continue;
        size_t e = r + 1 + lang.size();
        if (e >= s.size() || (s[e] != '\'' && s[e] != '"')) continue;
        size_t brace = s.find_first_of("{}", e + 1);
        if (brace != npos && s[brace] == '}') return true;
    }
    return false;
}

bool cdt_call(std::string_view s) {
    for (size_t p = s.find('{'); p != npos; p = s.find('{', p + 1))
        if (at(s, skip_space(s, p + 1), "cdt(")) return true;
    return false;
}

}  // namespace sf::variant::key_patterns
