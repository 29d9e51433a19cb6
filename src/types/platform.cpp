#include "types/platform.hpp"

#include <algorithm>

#include "util/strings.hpp"

namespace sf::types {

const std::vector<std::string>& Platform::known() {
    static const std::vector<std::string> names = {"linux-64",  "linux-aarch64", "linux-ppc64le",
                                                   "osx-64",    "osx-arm64",     "win-64",
                                                   "win-arm64", "noarch"};
    return names;
}

Result<Platform> Platform::parse(std::string_view name) {
    const auto& k = known();
    if (std::find(k.begin(), k.end(), name) == k.end())
        return fail("unknown platform '" + std::string(name) + "'",
                    "expected one of " + str::join(k, ", "));
    Platform p;
    p.name_ = std::string(name);
    return p;
}

Platform Platform::current() {
    Platform p;
#if defined(__APPLE__)
#if defined(__aarch64__) || defined(__arm64__)
    p.name_ = "osx-arm64";
#else
    p.name_ = "osx-64";
#endif
#elif defined(_WIN32)
    p.name_ = "win-64";
#elif defined(__aarch64__)
    p.name_ = "linux-aarch64";
#elif defined(__powerpc64__)
    p.name_ = "linux-ppc64le";
#else
    p.name_ = "linux-64";
#endif
    return p;
}

Platform Platform::noarch() {
    Platform p;
    p.name_ = "noarch";
    return p;
}

std::string Platform::os() const {
    if (is_noarch()) return {};
    return name_.substr(0, name_.find('-'));
}

std::string Platform::arch() const {
    if (is_noarch()) return {};
    std::string a = name_.substr(name_.find('-') + 1);
    if (a == "64") return "x86_64";
    return a;  // aarch64, arm64, ppc64le
}

}  // namespace sf::types
