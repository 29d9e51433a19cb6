#pragma once
// Context in front of another error on its way up, keeping what decides the
// exit code. A new Error built from e.message would turn a failed write
// (runtime, exit 1) into an input error (exit 2).
#include <string_view>

#include "core/error.hpp"

namespace sf {

// The error with `context` in front of its message; its location, hint and
// kind kept.
inline Unexpected<Error> rewrap(Error e, std::string_view context) {
    e.message.insert(0, context);
    return {std::move(e)};
}

// The same at a new location (the error's own one is dropped): e.g. the
// patch file a failed `patch` run was applying.
inline Unexpected<Error> rewrap(Error e, SourceLoc at, std::string_view context = {}) {
    e.loc = std::move(at);
    e.message.insert(0, context);
    return {std::move(e)};
}

}  // namespace sf
