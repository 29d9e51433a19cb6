#include "core/report.hpp"

#include <cstdio>

#include <fmt/format.h>

namespace sf {

namespace {
void line_to_stderr(std::string_view a, std::string_view b = {}) {
    // stdio's stderr is unbuffered and synced with iostreams, so these lines
    // interleave with the CLI's in order.
    fmt::print(stderr, "{}{}\n", a, b);
}
}  // namespace

void Reporter::warning(const Error& w) { line_to_stderr("warning: ", w.str()); }
void Reporter::note(std::string_view line) { line_to_stderr(line); }
void Reporter::progress(std::string_view line) { line_to_stderr(line); }
void Reporter::output_line(std::string_view line) { line_to_stderr(line); }

Reporter& default_reporter() {
    static Reporter plain;
    return plain;
}

void report_warnings(Reporter& r, const std::vector<Error>& warnings) {
    for (const auto& w : warnings) r.warning(w);
}

}  // namespace sf
