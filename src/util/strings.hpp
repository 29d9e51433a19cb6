#pragma once
// Small string helpers. Nothing conda-specific lives in util/.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace sf::str {

std::vector<std::string> split(std::string_view s, char sep);
std::vector<std::string> split_lines(std::string_view s);  // handles \n and \r\n
std::vector<std::string_view> split_line_views(std::string_view s);  // the same lines, into `s`
std::string join(const std::vector<std::string>& parts, std::string_view sep);
std::string_view trim(std::string_view s);
std::string replace_all(std::string s, std::string_view from, std::string_view to);
bool starts_with(std::string_view s, std::string_view p);
bool ends_with(std::string_view s, std::string_view p);
std::string lower(std::string s);
// Python's int(s) on a stripped string: an optional sign, then digits; no
// exceptions (a render converts every variant value this way).
std::optional<std::int64_t> parse_int(std::string_view t);
std::string upper(std::string s);
bool is_valid_utf8(std::string_view s, size_t* bad_offset = nullptr);
// Printable ASCII and tabs only: the lines where Python's and Boost's `\s`
// and `.` agree, so hand-written matchers may stand in for a regex.
bool is_plain_ascii(std::string_view s);
// No byte of `s` is >= 0x80.
bool is_ascii(std::string_view s);
// Python's `\s` (str.isspace) on an ASCII character: " \t\n\v\f\r" and
// \x1c-\x1f, which C's isspace leaves out.
inline bool is_py_space(char c) { return c == ' ' || (c >= '\t' && c <= '\r') || (c >= '\x1c' && c <= '\x1f'); }

// Levenshtein distance, and the candidate nearest to `name` when it is close
// enough to be a likely typo (for "did you mean"), else "".
size_t edit_distance(std::string_view a, std::string_view b);
std::string closest(std::string_view name, const std::vector<std::string>& candidates);

}  // namespace sf::str
