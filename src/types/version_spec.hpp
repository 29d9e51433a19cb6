#pragma once
// Conda version specs (conda.models.version.VersionSpec): an expression of
// `,` (and, binds tighter) and `|` (or) over leaves, with parentheses. Leaves:
//   *                 anything
//   1.2  / ==1.2      exactly (by version order: 1.2 == 1.2.0)
//   1.2.* / 1.2* / =1.2   starts with 1.2 (component-wise)
//   >=1.2 >1.2 <=1.2 <1.2 !=1.2   ordered comparisons; >=1.2.* is >=1.2
//   !=1.2.*           does not start with 1.2
//   ~=1.2.3           >=1.2.3 and starts with 1.2
//   1.*.3             glob over the version text
//   ^1\.2.*$          regex over the version text
// Note: a bare version is exact, as in conda and rattler ("foo 1.2" does not
// match 1.2.3). conda-build turns recipe requirements like "foo 1.2" into
// "foo 1.2.*" before they ever reach a MatchSpec; that belongs to rendering.
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "core/error.hpp"
#include "types/version.hpp"

namespace sf::types {

class VersionSpec {
public:
    static Result<VersionSpec> parse(std::string_view text);
    static VersionSpec any();

    bool matches(const Version& v) const;
    const std::string& str() const { return text_; }
    bool is_any() const;
    // The exact version when the spec is "==X" or a bare "X"; empty otherwise.
    std::string exact_version() const;

    enum class Op { any, eq, ne, lt, le, gt, ge, starts, not_starts, compatible, glob, regex, and_, or_ };
    struct Node {
        Op op = Op::any;
        Version version;           // for comparisons
        Version prefix;            // for ~= (the truncated version)
        std::string pattern;       // glob / regex text
        std::vector<Node> kids;    // for and_ / or_
    };

private:
    std::string text_;
    std::shared_ptr<const Node> root_;
};

}  // namespace sf::types
