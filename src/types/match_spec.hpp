#pragma once
// Conda match specs (conda.models.match_spec.MatchSpec), the forms that show
// up in depends, on command lines and in recipes:
//   name                      any version
//   name 1.2.*  / name=1.2    version starts with 1.2
//   name >=1.2,<2             version expression (see VersionSpec)
//   name 1.2 build*           exact version 1.2, build glob
//   name=1.2=h123_0           exact version and build
//   name==1.2                 exact version
//   channel::name ...         channel (kept, not matched against local dirs)
//   name[version='>=1.2',build=*cpu*,build_number=3]   bracket form
// Build strings match as globs ('*'), or as regexes when written ^...$.
#include <optional>
#include <string>
#include <string_view>

#include "core/error.hpp"
#include "types/package_record.hpp"
#include "types/version_spec.hpp"

namespace sf::types {

// The one split of a spec's text, as conda's MatchSpec does it: brackets
// off the end, the channel before the last "::", then the name up to the
// first of " =<>!~" (kNameEnd). parse() and name_of() both use it.
inline constexpr std::string_view kNameEnd = " =<>!~";
struct SpecParts {
    std::string_view trimmed;   // the whole spec, trimmed
    std::string_view channel;   // "" or "conda-forge", "conda-forge/linux-64"
    std::string_view name;      // as written (case kept)
    std::string_view rest;      // version and build, untrimmed
    std::string_view brackets;  // inside [...], without the brackets
    bool has_brackets = false;
};
SpecParts split_spec(std::string_view spec);

class MatchSpec {
public:
    static Result<MatchSpec> parse(std::string_view text);
    // The package name as written (conda's MatchSpec.name), without parsing
    // the rest: "cmake >=3.20" -> "cmake"; "conda-forge::numpy[version='>=1']"
    // -> "numpy"; "a~=1" -> "a". name() is the same name, lower-cased.
    static std::string name_of(std::string_view spec);

    bool matches(const PackageRecord& rec) const;

    const std::string& name() const { return name_; }  // lower case; "*" for any
    const VersionSpec& version() const { return version_; }
    const std::string& build() const { return build_; }  // "" or "*": any
    const std::string& channel() const { return channel_; }
    const std::string& str() const { return text_; }  // the text as given, trimmed

private:
    std::string text_;
    std::string name_;
    std::string channel_;
    std::string subdir_;
    VersionSpec version_ = VersionSpec::any();
    std::string build_;
    std::optional<VersionSpec> build_number_;  // compared as a version ("3", ">=2")
    std::string md5_, sha256_;
};

// Glob match over a whole string ('*' = any run), or a regex when the
// pattern is ^...$. Exposed for tests and for build-string filters.
bool glob_match(std::string_view pattern, std::string_view text);

}  // namespace sf::types
