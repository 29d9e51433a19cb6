#include "util/strings.hpp"

#include <algorithm>
#include <charconv>
#include <cctype>
#include <cstdint>
#include <cstring>

namespace sf::str {

std::vector<std::string> split(std::string_view s, char sep) {
    std::vector<std::string> out;
    size_t start = 0;
    while (true) {
        size_t pos = s.find(sep, start);
        if (pos == std::string_view::npos) {
            out.emplace_back(s.substr(start));
            return out;
        }
        out.emplace_back(s.substr(start, pos - start));
        start = pos + 1;
    }
}

std::vector<std::string_view> split_line_views(std::string_view s) {
    std::vector<std::string_view> out;
    size_t start = 0;
    while (start < s.size()) {
        size_t pos = s.find('\n', start);
        if (pos == std::string_view::npos) pos = s.size();
        size_t end = pos;
        if (end > start && s[end - 1] == '\r') --end;
        out.push_back(s.substr(start, end - start));
        start = pos + 1;
    }
    return out;
}

std::vector<std::string> split_lines(std::string_view s) {
    auto views = split_line_views(s);
    return {views.begin(), views.end()};
}

bool is_ascii(std::string_view s) {
    return std::all_of(s.begin(), s.end(), [](char c) { return static_cast<unsigned char>(c) < 0x80; });
}

bool is_plain_ascii(std::string_view s) {
    auto plain = [](char c) { return (c >= 0x20 && c <= 0x7e) || c == '\t'; };
    // Eight bytes at a time: a word with no byte >= 0x80, below 0x20 or equal
    // to 0x7f is plain; any other word is judged byte by byte.
    constexpr std::uint64_t ones = 0x0101010101010101ull, highs = 0x8080808080808080ull;
    size_t i = 0;
    for (; i + 8 <= s.size(); i += 8) {
        std::uint64_t w;
        std::memcpy(&w, s.data() + i, 8);
        std::uint64_t del = w ^ (ones * 0x7f);
        if (((w & highs) | ((w - ones * 0x20) & ~w & highs) | ((del - ones) & ~del & highs)) == 0) continue;
        for (size_t j = i; j < i + 8; ++j)
            if (!plain(s[j])) return false;
    }
    for (; i < s.size(); ++i)
        if (!plain(s[i])) return false;
    return true;
}

std::string join(const std::vector<std::string>& parts, std::string_view sep) {
    std::string out;
    for (size_t i = 0; i < parts.size(); ++i) {
        if (i) out += sep;
        out += parts[i];
    }
    return out;
}

std::string_view trim(std::string_view s) {
    size_t b = 0, e = s.size();
    while (b < e && std::isspace(static_cast<unsigned char>(s[b]))) ++b;
    while (e > b && std::isspace(static_cast<unsigned char>(s[e - 1]))) --e;
    return s.substr(b, e - b);
}

// One pass into a fresh string: replacing in place moves the tail at every
// hit, quadratic when the lengths differ (320k hits in 80 MB took minutes).
std::string replace_all(std::string s, std::string_view from, std::string_view to) {
    if (from.empty()) return s;
    size_t hit = s.find(from);
    if (hit == std::string::npos) return s;
    std::string out;
    out.reserve(to.size() > from.size() ? s.size() + (to.size() - from.size()) * 16 : s.size());
    size_t pos = 0;
    for (; hit != std::string::npos; hit = s.find(from, pos)) {
        out.append(s, pos, hit - pos);
        out.append(to);
        pos = hit + from.size();
    }
    out.append(s, pos, std::string::npos);
    return out;
}

bool starts_with(std::string_view s, std::string_view p) { return s.substr(0, p.size()) == p; }
bool ends_with(std::string_view s, std::string_view p) {
    return s.size() >= p.size() && s.substr(s.size() - p.size()) == p;
}

std::optional<std::int64_t> parse_int(std::string_view t) {
    if (!t.empty() && t[0] == '+') t.remove_prefix(1);
    if (t.empty() || !(std::isdigit(static_cast<unsigned char>(t[0])) || t[0] == '-')) return std::nullopt;
    std::int64_t n = 0;
    auto [end, ec] = std::from_chars(t.data(), t.data() + t.size(), n);
    if (ec != std::errc() || end != t.data() + t.size()) return std::nullopt;
    return n;
}

std::string lower(std::string s) {
    std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return std::tolower(c); });
    return s;
}
std::string upper(std::string s) {
    std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return std::toupper(c); });
    return s;
}

bool is_valid_utf8(std::string_view s, size_t* bad_offset) {
    size_t i = 0;
    while (i < s.size()) {
        unsigned char c = s[i];
        size_t n = c < 0x80 ? 1 : (c >> 5) == 0x6 ? 2 : (c >> 4) == 0xE ? 3 : (c >> 3) == 0x1E ? 4 : 0;
        bool ok = n != 0 && i + n <= s.size();
        for (size_t k = 1; ok && k < n; ++k) ok = (static_cast<unsigned char>(s[i + k]) >> 6) == 0x2;
        if (ok && n > 1) {
            // RFC 3629: no overlong forms, no UTF-16 surrogates, nothing past U+10FFFF.
            static constexpr unsigned min_cp[] = {0, 0, 0x80, 0x800, 0x10000};
            unsigned cp = c & (0x7Fu >> n);
            for (size_t k = 1; k < n; ++k) cp = (cp << 6) | (static_cast<unsigned char>(s[i + k]) & 0x3Fu);
            ok = cp >= min_cp[n] && cp <= 0x10FFFF && !(cp >= 0xD800 && cp <= 0xDFFF);
        }
        if (!ok) {
            if (bad_offset) *bad_offset = i;
            return false;
        }
        i += n;
    }
    return true;
}

size_t edit_distance(std::string_view a, std::string_view b) {
    std::vector<size_t> prev(b.size() + 1), cur(b.size() + 1);
    for (size_t j = 0; j <= b.size(); ++j) prev[j] = j;
    for (size_t i = 1; i <= a.size(); ++i) {
        cur[0] = i;
        for (size_t j = 1; j <= b.size(); ++j)
            cur[j] = std::min({prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1)});
        std::swap(prev, cur);
    }
    return prev[b.size()];
}

std::string closest(std::string_view name, const std::vector<std::string>& candidates) {
    std::string best;
    size_t best_d = std::string::npos;
    for (const auto& c : candidates) {
        size_t d = edit_distance(name, c);
        if (d < best_d) best_d = d, best = c;
    }
    return best_d <= std::max<size_t>(2, name.size() / 3) ? best : std::string();
}

}  // namespace sf::str
