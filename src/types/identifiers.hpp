#pragma once
// The rules for what identifies a package: names, versions, build strings,
// subdirs and noarch values (CEP 26 and conda's MatchSpec), and the prefix
// path an installer or packager bakes into files. One set of rules for
// every place such a value enters: CLI options, --meta files, rendered
// recipes, info/index.json, repodata records and conda-meta records. A name,
// version or build becomes a path component (<name>-<version>-<build>.conda,
// conda-meta/<dist>.json), so what passes here is also safe as one.
//
// Each check returns an Error without a location, whose message names the
// value and whose hint says what is allowed; callers put the file and field
// in front.
#include <string_view>

#include "core/error.hpp"
#include "types/recipe_values.hpp"

namespace sf::types {

// CEP 26 sizes.
inline constexpr std::size_t kMaxNameLength = 64, kMaxVersionLength = 64, kMaxBuildLength = 64,
                             kMaxSubdirLength = 32;

// Lower-case ASCII letters, digits, '.', '_' and '-'; starts with a letter,
// a digit or a single '_'; no two separators in a row; at most 64.
Result<void> check_package_name(std::string_view s);
// ASCII letters, digits, '.', '_', '+' and '!' (conda compares versions
// case-insensitively, so upper case is accepted); no ".."; at most 64.
Result<void> check_version(std::string_view s);
// ASCII letters, digits, '.', '_' and '+'; no ".."; at most 64.
Result<void> check_build_string(std::string_view s);
// A build number as written: ASCII digits only (no sign, space, '.' or
// exponent), below 2^31, so it fits every reader (conda's int, an index.json
// integer) and "<hash>_<number>" stays a valid build string.
inline constexpr long long kBuildNumberLimit = 1LL << 31;
Result<int> parse_build_number(std::string_view text);
// A variable a recipe sets for its build script: a shell name,
// [A-Za-z_][A-Za-z0-9_]* (no '=', which would split it, and not empty).
Result<void> check_env_name(std::string_view s);
// "noarch" or <os>-<arch>, both lower-case letters and digits; at most 32.
Result<void> check_subdir(std::string_view s);
// A prefix written into files and scripts: absolute or relative, but no
// control character (a newline would end a line in a script, a NUL a C string).
Result<void> check_prefix(std::string_view s);

bool valid_package_name(std::string_view s);
bool valid_version(std::string_view s);
bool valid_build_string(std::string_view s);

// A recipe's `build: noarch:` as rendered text: a false value is none,
// "python" and "generic" are themselves, a true value is conda-build's
// legacy boolean (generic). Anything else is an error.
Result<NoArch> parse_recipe_noarch(std::string_view text);

// `s` with control characters shown as \xNN, for error messages.
std::string printable(std::string_view s);

}  // namespace sf::types
