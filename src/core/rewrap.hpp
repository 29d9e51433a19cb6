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

// A new error worded afresh (often folding in the cause's own text) that
// keeps the kind of the error that caused it: a bad sha256 met during a build
// stays the user's input (exit 2), a script that failed the job's (exit 1).
inline Unexpected<Error> fail_from(const Error& cause, SourceLoc loc, std::string message, std::string hint = {}) {
    return {Error{std::move(loc), std::move(message), std::move(hint), cause.kind}};
}

}  // namespace sf
