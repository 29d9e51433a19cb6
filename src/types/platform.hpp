#pragma once
// conda subdirs ("platforms"): linux-64, linux-aarch64, linux-ppc64le,
// osx-64, osx-arm64, win-64, win-arm64 and noarch.
#include <string>
#include <string_view>
#include <vector>

#include "core/error.hpp"

namespace sf::types {

class Platform {
public:
    static Result<Platform> parse(std::string_view name);
    static Platform current();   // the machine we run on (compile-time)
    static Platform noarch();
    static const std::vector<std::string>& known();

    const std::string& name() const { return name_; }
    bool is_noarch() const { return name_ == "noarch"; }
    std::string os() const;    // "linux", "osx", "win", "" for noarch
    std::string arch() const;  // index.json "arch": x86_64, aarch64, arm64, ppc64le, ""

    friend bool operator==(const Platform&, const Platform&) = default;

private:
    std::string name_;
};

}  // namespace sf::types
