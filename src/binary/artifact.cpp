#include "binary/artifact.hpp"

#include <cctype>
#include <vector>

#include "util/strings.hpp"

namespace sf::binary {

std::string_view kind_name(ArtifactKind k) {
    switch (k) {
        case ArtifactKind::conda: return "conda";
        case ArtifactKind::tar_bz2: return "tar.bz2";
        case ArtifactKind::wheel: return "wheel";
        case ArtifactKind::libtorch_zip: return "libtorch";
    }
    return "?";
}

std::optional<ArtifactKind> artifact_kind(std::string_view name) {
    if (str::ends_with(name, ".conda")) return ArtifactKind::conda;
    if (str::ends_with(name, ".tar.bz2")) return ArtifactKind::tar_bz2;
    if (str::ends_with(name, ".whl")) return ArtifactKind::wheel;
    if (str::ends_with(name, ".zip")) return ArtifactKind::libtorch_zip;
    return std::nullopt;
}

std::string WheelName::str() const {
    std::string s = distribution + '-' + version;
    if (!build.empty()) s += '-' + build;
    return s + '-' + python_tag + '-' + abi_tag + '-' + platform_tag + ".whl";
}

Result<WheelName> parse_wheel_name(std::string_view file_name) {
    auto bad = [&](const std::string& why) {
        return fail(SourceLoc{std::string(file_name)},
                    "not a wheel file name (" + why + "); expected name-version[-build]-python-abi-platform.whl");
    };
    if (!str::ends_with(file_name, ".whl")) return bad("no .whl suffix");
    std::vector<std::string> parts = str::split(file_name.substr(0, file_name.size() - 4), '-');
    if (parts.size() != 5 && parts.size() != 6) return bad(std::to_string(parts.size()) + " dash-separated parts");
    for (const auto& p : parts)
        if (p.empty()) return bad("an empty part");
    WheelName w;
    w.distribution = parts[0];
    w.version = parts[1];
    std::size_t i = 2;
    if (parts.size() == 6) {
        w.build = parts[i++];
        if (!std::isdigit(static_cast<unsigned char>(w.build[0]))) return bad("build tag must start with a digit");
    }
    w.python_tag = parts[i];
    w.abi_tag = parts[i + 1];
    w.platform_tag = parts[i + 2];
    return w;
}

std::string wheel_escape(std::string_view component) {
    std::string out;
    bool in_run = false;
    for (char c : component) {
        if (std::isalnum(static_cast<unsigned char>(c)) || c == '.') {
            out += c;
            in_run = false;
        } else if (!in_run) {
            out += '_';
            in_run = true;
        }
    }
    return out;
}

}  // namespace sf::binary
