#include "util/pyregex.hpp"

namespace sf {
namespace {

// Python's \s on ASCII (str::is_py_space's set): boost's \s lacks \x1c-\x1f.
constexpr const char* kSpace = " \\t\\n\\r\\f\\v\\x1c-\\x1f";

// Python's syntax in boost's: \Z is boost's \z, \s is kSpace; without
// MULTILINE, `$` also matches before a final newline, as boost's `$` under
// match_single_line does not.
std::string translate(std::string_view p, bool multiline) {
    std::string out;
    out.reserve(p.size());
    bool in_class = false;
    for (size_t i = 0; i < p.size(); ++i) {
        if (p[i] == '\\' && i + 1 < p.size()) {
            char c = p[++i];
            if (c == 's') out += in_class ? kSpace : "[" + std::string(kSpace) + "]";
            else if (c == 'S' && !in_class) out += "[^" + std::string(kSpace) + "]";
            else out += '\\', out += c == 'Z' ? 'z' : c;
            continue;
        }
        if (in_class) {
            in_class = p[i] != ']';
        } else if (p[i] == '[') {
            in_class = true;
            // A ']' first in the class (after an optional '^') is literal.
            if (i + 1 < p.size() && p[i + 1] == '^') out += p[i++];
            if (i + 1 < p.size() && p[i + 1] == ']') out += p[i++];
        } else if (p[i] == '$' && !multiline) {
            out += "(?=\\n?\\z)";
            continue;
        }
        out += p[i];
    }
    return out;
}

PyRegex::Match to_match(const boost::match_results<std::string_view::const_iterator>& m,
                        std::string_view::const_iterator begin) {
    PyRegex::Match out;
    out.position = static_cast<size_t>(m[0].first - begin);
    out.length = static_cast<size_t>(m[0].length());
    for (size_t i = 0; i < m.size(); ++i) {
        if (m[i].matched)
            out.groups.emplace_back(std::string(m[i].first, m[i].second));
        else
            out.groups.emplace_back(std::nullopt);
    }
    return out;
}

}  // namespace

PyRegex::PyRegex(std::string_view pattern, unsigned flags)
    : re_(translate(pattern, flags & multiline),
          boost::regex::perl | ((flags & dotall) ? boost::regex::mod_s : boost::regex::no_mod_s)),
      mflags_((flags & multiline) ? boost::match_default : boost::match_single_line) {}

std::optional<PyRegex::Match> PyRegex::search(std::string_view text) const {
    boost::match_results<std::string_view::const_iterator> m;
    if (!boost::regex_search(text.begin(), text.end(), m, re_, mflags_)) return std::nullopt;
    return to_match(m, text.begin());
}

std::optional<PyRegex::Match> PyRegex::match(std::string_view text) const {
    boost::match_results<std::string_view::const_iterator> m;
    if (!boost::regex_search(text.begin(), text.end(), m, re_, mflags_ | boost::match_continuous))
        return std::nullopt;
    return to_match(m, text.begin());
}

bool PyRegex::matches_anywhere(std::string_view text) const {
    return boost::regex_search(text.begin(), text.end(), re_, mflags_);
}

std::vector<std::string> PyRegex::findall(std::string_view text) const {
    std::vector<std::string> out;
    boost::regex_iterator<std::string_view::const_iterator> it(text.begin(), text.end(), re_, mflags_), end;
    for (; it != end; ++it) {
        const auto& m = *it;
        size_t g = m.size() > 1 ? 1 : 0;
        out.emplace_back(m[g].matched ? std::string(m[g].first, m[g].second) : std::string());
    }
    return out;
}

}  // namespace sf
