#pragma once
// Python package versions (PEP 440) and their order, as pip and packaging
// compare them: epoch, release (trailing zeros ignored), pre-release, post,
// dev, local. types::Version is conda's order, which differs (a local part,
// `1.0.post1.dev0`, `1.0rc1` against `1.0c1`), so a pip index sorts with this.
#include <compare>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/error.hpp"

namespace sf::types {

class Pep440Version {
public:
    // Accepts every spelling PEP 440 normalises ("v1.0", "1.0-rc.1", "1.0_post2",
    // "1.0-1"); the error names the text.
    static Result<Pep440Version> parse(std::string_view text);

    // The normalised form: "1.0rc1", "1.0.post2", "0.3.0.dev20261202+cpu".
    std::string str() const;
    // The same without its local part: what a release of the project is.
    std::string public_str() const;
    bool is_dev() const { return dev_.has_value(); }
    bool is_prerelease() const { return dev_.has_value() || pre_.has_value(); }

    int compare(const Pep440Version& o) const;
    friend bool operator==(const Pep440Version& a, const Pep440Version& b) { return a.compare(b) == 0; }
    friend std::strong_ordering operator<=>(const Pep440Version& a, const Pep440Version& b) {
        int c = a.compare(b);
        return c < 0 ? std::strong_ordering::less : c > 0 ? std::strong_ordering::greater : std::strong_ordering::equal;
    }

private:
    struct Pre {
        std::string tag;  // "a", "b", "rc"
        unsigned long long n = 0;
    };
    unsigned long long epoch_ = 0;
    std::vector<unsigned long long> release_;
    std::optional<Pre> pre_;
    std::optional<unsigned long long> post_, dev_;
    std::vector<std::string> local_;  // lower case, split at . - _
};

// PEP 503's normalised project name: lower case, runs of -, _ and . as one -.
std::string pep503_name(std::string_view name);

}  // namespace sf::types
