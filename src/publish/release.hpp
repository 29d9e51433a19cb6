#pragma once
// What a build publishes as: a release tag's version and the channel label
// each kind of build goes to, as PyTorch's release tooling decides them.
#include <string>
#include <string_view>

#include "core/error.hpp"

namespace sf::publish {

struct Release {
    std::string tag;      // as given: v2.6.0-rc3
    std::string version;  // 2.6.0: no leading v, nothing from the first '-' on
    std::string suffix;   // rc3, or "" for a final tag
};

// A tag such as v2.6.0, v2.6.0-rc3 or 2.6.0; what is left after the `v` and
// the `-suffix` must be a release number (digits and dots).
Result<Release> parse_release_tag(std::string_view tag);

// The label a conda channel files the packages under: "nightly" for a
// nightly build, "test" for any tagged build (PyTorch uploads tags, rc or
// final, to its test channel and promotes them later), else "main".
enum class BuildKind { plain, nightly, release };
std::string channel_label(BuildKind kind);

}  // namespace sf::publish
