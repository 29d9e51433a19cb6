#pragma once
// What library code tells the user while it works: warnings, notes, progress
// steps and the lines a child process prints. Library code never writes to
// stderr or stdout itself; it is handed a Reporter (options structs carry a
// pointer; null means default_reporter()), and the CLI passes one that
// renders for the terminal (colour; cli/common.hpp). Whether a progress step
// or a child's output is shown at all (--progress, -q) is the caller's
// options' business (engine::Progress, engine::Verbosity), decided before
// these are called.
#include <string_view>
#include <vector>

#include "core/error.hpp"

namespace sf {

class Reporter {
public:
    virtual ~Reporter() = default;
    // Something that works but deserves a look: "warning: <file:line: message>".
    virtual void warning(const Error& w);
    // Always shown: a notice, a skip, a failure the job goes on after.
    virtual void note(std::string_view line);
    // One step of a long job ("==> name: source").
    virtual void progress(std::string_view line);
    // One line a child process printed (already masked), as given.
    virtual void output_line(std::string_view line);
};

// Plain lines on stderr, no colour: what a library call does when its caller
// passed no Reporter. Stateless, so sharing it hides no state.
Reporter& default_reporter();
inline Reporter& reporter_or_default(Reporter* r) { return r ? *r : default_reporter(); }

// Each of `warnings` (e.g. a Diagnostics' or a plan's), in order.
void report_warnings(Reporter& r, const std::vector<Error>& warnings);

}  // namespace sf
