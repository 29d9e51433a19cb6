#include "net/url.hpp"

#include <cctype>

namespace sf::net {
namespace {

// One URL starting at `s`'s beginning (up to the first whitespace, quote or
// bracket the caller already cut off): userinfo and /t/<token>/ masked.
std::string mask_one(std::string_view s) {
    std::string out;
    std::size_t pos = 0;
    if (auto sep = s.find("://"); sep != std::string_view::npos) {
        std::size_t auth = sep + 3;
        std::size_t end = s.find_first_of("/?#", auth);
        if (end == std::string_view::npos) end = s.size();
        std::size_t at = s.rfind('@', end == 0 ? 0 : end - 1);
        out.append(s.substr(0, auth));
        if (at != std::string_view::npos && at >= auth && at < end) {
            out += "<USER>:<PASSWORD>@";
            pos = at + 1;
        } else {
            pos = auth;
        }
    }
    // /t/<token>/ anywhere in the path (a token channel may sit below a prefix).
    while (pos < s.size()) {
        std::size_t t = s.find("/t/", pos);
        if (t == std::string_view::npos) break;
        std::size_t tok = t + 3, end = s.find('/', tok);
        if (end == std::string_view::npos) end = s.size();
        out.append(s.substr(pos, tok - pos));
        if (end > tok) out += "<TOKEN>";
        pos = end;
    }
    out.append(s.substr(pos));
    return out;
}

bool url_char(char c) {
    return !std::isspace(static_cast<unsigned char>(c)) && c != '\'' && c != '"' && c != '`' && c != '<' &&
           c != '>' && c != '(' && c != ')';
}

}  // namespace

std::string mask(std::string_view url) { return mask_one(url); }

std::string mask_text(std::string_view text) {
    std::string out;
    std::size_t pos = 0;
    while (pos < text.size()) {
        std::size_t sep = text.find("://", pos);
        if (sep == std::string_view::npos) break;
        std::size_t start = sep;
        while (start > pos && std::isalnum(static_cast<unsigned char>(text[start - 1]))) --start;
        std::size_t end = sep + 3;
        while (end < text.size() && url_char(text[end])) ++end;
        out.append(text.substr(pos, start - pos));
        out += mask_one(text.substr(start, end - start));
        pos = end;
    }
    out.append(text.substr(pos));
    return out;
}

bool has_secret(std::string_view url) { return mask_one(url) != url; }

std::string scheme_of(std::string_view url) {
    auto sep = url.find("://");
    if (sep == std::string_view::npos || sep == 0) return {};
    std::string s;
    for (char c : url.substr(0, sep)) {
        if (!std::isalnum(static_cast<unsigned char>(c)) && c != '+' && c != '-' && c != '.') return {};
        s += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    }
    return s;
}

}  // namespace sf::net
