#pragma once
// Python `re` semantics on top of Boost.Regex (Perl syntax, which has the
// look-behind and conditionals that the standard library's ECMAScript regexes lack). conda-build decides
// much of its behaviour with regexes; to match it we run the same patterns.
//   - `\Z` means end of text (Python), so it is rewritten to Boost's `\z`;
//   - without Flags::multiline, ^ and $ anchor at the ends of the text only;
//   - without Flags::dotall, `.` does not match a newline.
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <boost/regex.hpp>

namespace sf {

class PyRegex {
public:
    enum Flags : unsigned { none = 0, multiline = 1, dotall = 2 };
    explicit PyRegex(std::string_view pattern, unsigned flags = none);

    struct Match {
        std::vector<std::optional<std::string>> groups;  // [0] is the whole match
        size_t position = 0;
        size_t length = 0;
        const std::optional<std::string>& group(size_t i) const { return groups.at(i); }
        std::string str(size_t i = 0) const { return groups.at(i).value_or(""); }
    };

    std::optional<Match> search(std::string_view text) const;  // re.search
    std::optional<Match> match(std::string_view text) const;   // re.match (anchored at start)
    bool matches_anywhere(std::string_view text) const;        // bool(re.search)
    // re.findall: group 0 when the pattern has no groups, else group 1.
    std::vector<std::string> findall(std::string_view text) const;

private:
    boost::regex re_;
    boost::match_flag_type mflags_;
};

}  // namespace sf
