#pragma once
// Errors: a location-carrying Error value for expected-style results, and the
// two exceptions that carry one Error up to the CLI, which prints it as one
// line and exits non-zero: Failure (the input is wrong: exit 2) and
// RuntimeError (the job ran and failed: exit 1). Library code never calls
// exit().
#include <stdexcept>
#include <string>
#include <type_traits>

#include "core/expected.hpp"

namespace sf {

// Where something is: file:line:col. line/col are 1-based; 0 means unknown.
struct SourceLoc {
    std::string file;
    int line = 0;
    int col = 0;
    std::string str() const;  // "file:line:col", "file:line" or "file"
    friend bool operator==(const SourceLoc&, const SourceLoc&) = default;
};

// Whose problem an error is, and so the exit code (README.md, "Exit codes"):
// `input`, what the user gave (2); `runtime`, the job ran and failed: a
// write, a lock, a child process that could not be run (1).
enum class ErrorKind { input, runtime };

struct Error {
    SourceLoc loc;        // may be empty (e.g. a CLI usage problem)
    std::string message;  // what went wrong
    std::string hint;     // what to do about it; optional
    ErrorKind kind = ErrorKind::input;
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
// A failure of the job itself (I/O, locks, processes), not of its input.
inline Unexpected<Error> fail_runtime(SourceLoc loc, std::string message, std::string hint = {}) {
    return {Error{std::move(loc), std::move(message), std::move(hint), ErrorKind::runtime}};
}

// The exception forms, for code paths where unwinding is simpler than
// threading results through (constructors, RAII). Which one says whose
// problem it is, and so the exit code (README.md, "Exit codes"):
//   Failure       a usage or input error: a bad option, a missing file, a
//                 recipe or variant file that does not parse (exit 2);
//   RuntimeError  the job ran and failed: I/O, a lock, a temp dir, a child
//                 process (exit 1).
// The CLI (cli/app.cpp) catches them; jinja's evaluator catches ErrorException
// only to put the location of the call on an error thrown inside a function.
class ErrorException : public std::runtime_error {
public:
    const Error& error() const { return error_; }

protected:
    explicit ErrorException(Error e) : std::runtime_error(e.str()), error_(std::move(e)) {}

private:
    Error error_;
};

class Failure : public ErrorException {
public:
    explicit Failure(Error e) : ErrorException(std::move(e)) {}
};

class RuntimeError : public ErrorException {
public:
    explicit RuntimeError(Error e) : ErrorException(as_runtime(std::move(e))) {}

private:
    static Error as_runtime(Error e) {
        e.kind = ErrorKind::runtime;
        return e;
    }
};

// Unwrap a Result or throw its error, adding context in front: a Failure
// (exit 2) for an input error, a RuntimeError (exit 1) for a runtime one.
template <class T>
T value_or_throw(Result<T> r, const std::string& context = {}) {
    if (!r) {
        Error e = r.error();
        if (!context.empty()) e.message = context + ": " + e.message;
        if (e.kind == ErrorKind::runtime) throw RuntimeError(std::move(e));
        throw Failure(std::move(e));
    }
    if constexpr (!std::is_void_v<T>) return std::move(r).value();
}

}  // namespace sf
