#pragma once
// Errors: a location-carrying Error value for expected-style results, and the
// Failure exception that carries one Error up to main(), which prints it as
// one line and exits non-zero. Library code never calls exit().
#include <stdexcept>
#include <string>

#include "core/expected.hpp"

namespace sf {

// Where something is: file:line:col. line/col are 1-based; 0 means unknown.
struct SourceLoc {
    std::string file;
    int line = 0;
    int col = 0;
    std::string str() const;  // "file:line:col", "file:line" or "file"
};

struct Error {
    SourceLoc loc;        // may be empty (e.g. a CLI usage problem)
    std::string message;  // what went wrong
    std::string hint;     // what to do about it; optional
    std::string str() const;  // "loc: message (hint)" on one line
};

template <class T>
using Result = Expected<T, Error>;

inline Unexpected<Error> fail(SourceLoc loc, std::string message, std::string hint = {}) {
    return {Error{std::move(loc), std::move(message), std::move(hint)}};
}
inline Unexpected<Error> fail(std::string message, std::string hint = {}) {
    return {Error{{}, std::move(message), std::move(hint)}};
}

// The exception form, for code paths where unwinding is simpler than threading
// results through. main() catches it; nothing else should.
class Failure : public std::runtime_error {
public:
    explicit Failure(Error e) : std::runtime_error(e.str()), error_(std::move(e)) {}
    const Error& error() const { return error_; }

private:
    Error error_;
};

// Unwrap a Result or throw its error as a Failure, adding context in front.
template <class T>
T value_or_throw(Result<T> r, const std::string& context = {}) {
    if (!r) {
        Error e = r.error();
        if (!context.empty()) e.message = context + ": " + e.message;
        throw Failure(std::move(e));
    }
    return std::move(r).value();
}

}  // namespace sf
