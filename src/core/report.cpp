#include "core/report.hpp"

#include <iostream>

namespace sf {

namespace {
void line_to_stderr(std::string_view a, std::string_view b = {}) {
    std::cerr << a << b << std::endl;
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
