#include "types/platform.hpp"

#include <algorithm>

#include "util/strings.hpp"

namespace sf::types {

namespace {

struct Row {
    const char* name;
    const char* os;
    const char* arch;
    const char* triplet;
};

// conda's subdirs (conda/base/constants.py KNOWN_SUBDIRS) with the
// index.json platform/arch conda writes for each, and conda-forge's
// compiler triplets.
constexpr Row kTable[] = {
    {"linux-64", "linux", "x86_64", "x86_64-conda-linux-gnu"},
    {"linux-32", "linux", "x86", ""},
    {"linux-aarch64", "linux", "aarch64", "aarch64-conda-linux-gnu"},
    {"linux-armv6l", "linux", "armv6l", ""},
    {"linux-armv7l", "linux", "armv7l", ""},
    {"linux-ppc64", "linux", "ppc64", ""},
    {"linux-ppc64le", "linux", "ppc64le", "powerpc64le-conda-linux-gnu"},
    {"linux-riscv64", "linux", "riscv64", ""},
    {"linux-s390x", "linux", "s390x", ""},
    {"osx-64", "osx", "x86_64", "x86_64-apple-darwin13.4.0"},
    {"osx-arm64", "osx", "arm64", "arm64-apple-darwin20.0.0"},
    {"win-32", "win", "x86", ""},
    {"win-64", "win", "x86_64", ""},
    {"win-arm64", "win", "arm64", ""},
    {"emscripten-wasm32", "emscripten", "wasm32", ""},
    {"wasi-wasm32", "wasi", "wasm32", ""},
    {"freebsd-64", "freebsd", "x86_64", ""},
    {"zos-z", "zos", "z", ""},
    {"noarch", "", "", ""},
};

const Row& row(const std::string& name) {
    for (const auto& r : kTable)
        if (name == r.name) return r;
    return kTable[std::size(kTable) - 1];  // unreachable: names are parsed
}

}  // namespace

const std::vector<std::string>& Platform::known() {
    static const std::vector<std::string> names = [] {
        std::vector<std::string> v;
        for (const auto& r : kTable) v.emplace_back(r.name);
        return v;
    }();
    return names;
}

Result<Platform> Platform::parse(std::string_view name) {
    const auto& k = known();
    if (std::find(k.begin(), k.end(), name) == k.end())
        return fail("unknown platform '" + std::string(name) + "'", "expected one of " + str::join(k, ", "));
    return Platform(std::string(name));
}

Platform Platform::current() {
#if defined(__APPLE__) && (defined(__aarch64__) || defined(__arm64__))
    return Platform("osx-arm64");
#elif defined(__APPLE__)
    return Platform("osx-64");
#elif defined(_WIN32)
    return Platform("win-64");
#elif defined(__aarch64__)
    return Platform("linux-aarch64");
#elif defined(__powerpc64__)
    return Platform("linux-ppc64le");
#else
    return Platform("linux-64");
#endif
}

Platform Platform::noarch() { return Platform("noarch"); }

std::string Platform::os() const { return row(name_).os; }
std::string Platform::arch() const { return row(name_).arch; }
std::string Platform::toolchain_triplet() const { return row(name_).triplet; }

}  // namespace sf::types
