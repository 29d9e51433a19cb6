#pragma once
// Conda version strings and their order (conda.models.version.VersionOrder):
// "[epoch!]version[+local]", components split at '.' and '_', each split into
// runs of digits and non-digits. Integers compare numerically; strings compare
// lexically and below integers; "dev" is below every other string, "post" is
// above everything; a missing atom counts as 0, so 1.1 == 1.1.0.
#include <compare>
#include <string>
#include <string_view>
#include <vector>

#include "core/error.hpp"

namespace sf::types {

class Version {
public:
    static Result<Version> parse(std::string_view text);

    // The normalized text (trimmed, lower case, '-' turned into '_' where
    // conda does so). Two equal versions may print differently ("1.0", "1.0.0").
    const std::string& str() const { return text_; }

    // -1, 0 or 1.
    int compare(const Version& other) const;
    // conda's VersionOrder.startswith: does this version begin with `prefix`
    // (component-wise, the last atom of `prefix` being a string prefix)?
    bool starts_with(const Version& prefix) const;
    // The first `n` release components (no epoch, no local part), e.g. for ~=.
    Version truncated(size_t n) const;
    size_t release_size() const { return version_.empty() ? 0 : version_.size() - 1; }

    friend bool operator==(const Version& a, const Version& b) { return a.compare(b) == 0; }
    friend std::strong_ordering operator<=>(const Version& a, const Version& b) {
        int c = a.compare(b);
        return c < 0 ? std::strong_ordering::less
                     : c > 0 ? std::strong_ordering::greater : std::strong_ordering::equal;
    }

    // One run of a component: a number (digits, leading zeros stripped, so any
    // length compares correctly), a lower-case string, "dev" or "post".
    struct Atom {
        enum class Kind { string, number, post };
        Kind kind = Kind::number;
        std::string text;  // digits for numbers; "DEV" marks dev (sorts first)
    };
    using Component = std::vector<Atom>;

private:
    std::string text_;
    std::vector<Component> version_;  // [epoch] + release components
    std::vector<Component> local_;
};

// The major.minor of a version value: "3.9.* *_cpython", "3.9", "3.9.18"
// -> "3.9"; "" when it does not start with one.
std::string minor_version(std::string_view value);

}  // namespace sf::types
