#pragma once
// Warnings for what conda-build accepts but a maintainer should hear about
// (an unknown selector name, a repeated key). Each is reported once per key;
// under --strict() the caller reports its own error instead of warning.
#include <set>
#include <string>
#include <vector>

#include "core/error.hpp"

namespace sf {

class Diagnostics {
public:
    explicit Diagnostics(bool strict = false) : strict_(strict) {}

    // Records `w` unless `once_key` was seen before.
    void warn(Error w, const std::string& once_key);

    bool strict() const { return strict_; }
    const std::vector<Error>& warnings() const { return warnings_; }

private:
    bool strict_ = false;
    std::vector<Error> warnings_;
    std::set<std::string> seen_;
};

}  // namespace sf
