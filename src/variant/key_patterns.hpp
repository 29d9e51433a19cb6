#pragma once
// conda-build's used-variable regexes (variants.py, metadata.py), one
// hand-written matcher per alternative. Each answers exactly what its regex
// (as PyRegex runs it) answers for a str::is_plain_ascii line;
// used_vars.cpp runs the regex itself for any other line. The regexes are
// written above each function; tests/unit/variant/test_key_patterns.cpp
// compares every matcher with its regex on every line of the recipe corpus.
#include <string_view>

namespace sf::variant::key_patterns {

// \{\s*(?:pin_[a-z]+\(\s*?['"])?KEY[^_0-9a-zA-Z].*?\}\}        (24.11)
// \{\s*(?:pin_[a-z]+\(\s*?['"])?KEY(?:[^_0-9a-zA-Z].*?)?\}\}   (26.7)
bool jinja_ref(std::string_view line, std::string_view key, bool rules_26_7);
// ^\s+\-\s+KEY\s*(?:\s[\[#]|$)   with each '_' of KEY read as [-_]
bool requirement(std::string_view line, std::string_view key);
// (?:^|[^\{])\{%\s*(?:el)?if\s*.*KEY\s*(?:[^%]*?)?%\}
bool if_tag(std::string_view line, std::string_view key);
// (?:^|[^\{])\{%\s*for\s*.*\s*in\s*KEY(?![a-zA-Z_0-9])(?:[^%]*?)?%\}
bool for_tag(std::string_view line, std::string_view key);
// (?:^|[^\{])\{%\s*set\s*.*\s*=\s*.*KEY(?![a-zA-Z_0-9])(?:[^%]*?)?%\}   (24.11)
// 26.7 adds (?<![a-zA-Z_0-9]) before KEY.
bool set_tag(std::string_view line, std::string_view key, bool rules_26_7);
// ^[^#\[]*?\#?\s\[[^\]]*?(?<![_\w\d])KEY[=\s<>!\]]
bool selector(std::string_view line, std::string_view key);
// \{\s*KIND\([\'\"]LANG[\"\'][^\{]*?\}     (KIND: compiler or stdlib)
bool compiler_call(std::string_view line, std::string_view kind, std::string_view lang);
// \{\s*cdt\(
bool cdt_call(std::string_view line);

}  // namespace sf::variant::key_patterns
