#pragma once
// conda subdirs ("platforms"): the one table of their names, operating
// systems and index.json arch values.
#include <string>
#include <string_view>
#include <vector>

#include "core/error.hpp"

namespace sf::types {

class Platform {
public:
    // The machine we run on. Every platform default in the pipeline is this.
    Platform() : Platform(current()) {}
    static Result<Platform> parse(std::string_view name);
    static Platform current();
    static Platform noarch();
    static const std::vector<std::string>& known();  // every subdir, noarch last

    const std::string& name() const { return name_; }
    bool is_noarch() const { return name_ == "noarch"; }
    std::string os() const;    // index.json "platform": linux, osx, win, emscripten, ...; "" for noarch
    std::string arch() const;  // index.json "arch": x86_64, aarch64, arm64, ppc64le, x86, ...; "" for noarch
    // conda-forge's compiler triplet, the prefix of its cc/c++
    // ("x86_64-conda-linux-gnu"), or "" where conda-forge has none.
    std::string toolchain_triplet() const;

    friend bool operator==(const Platform&, const Platform&) = default;

private:
    explicit Platform(std::string name) : name_(std::move(name)) {}
    std::string name_;
};

}  // namespace sf::types
