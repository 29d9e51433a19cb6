#pragma once
// The kinds of binaries one megabuild ships, as PyTorch's release tooling
// ships them: conda packages, pip wheels and libtorch archives. What kind a
// file is comes from its name, as conda, pip and the libtorch downloads name
// them.
#include <optional>
#include <string>
#include <string_view>

#include "core/error.hpp"

namespace sf::binary {

enum class ArtifactKind { conda, tar_bz2, wheel, libtorch_zip };

std::string_view kind_name(ArtifactKind k);

// From the file name; nullopt: none of the four.
std::optional<ArtifactKind> artifact_kind(std::string_view file_name);

// A wheel's file name (PEP 427): name-version[-build]-python-abi-platform.whl.
// Each tag may be a compressed set ("cp312.cp313"); kept as written.
struct WheelName {
    std::string distribution, version, build, python_tag, abi_tag, platform_tag;
    std::string str() const;  // the file name again
};

Result<WheelName> parse_wheel_name(std::string_view file_name);

// PEP 427's escaping of a distribution name or version inside the file name:
// runs of characters other than letters, digits and '.' become '_'
// (versions are written normalized, so '-' never appears in them).
std::string wheel_escape(std::string_view component);

}  // namespace sf::binary
