// core/report (Reporter, report_warnings) and the two exceptions of core/error.
#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "core/error.hpp"
#include "core/report.hpp"

using namespace sf;

namespace {
struct Recorder : Reporter {
    std::vector<std::string> lines;
    void warning(const Error& w) override { lines.push_back("W " + w.str()); }
    void note(std::string_view l) override { lines.push_back("N " + std::string(l)); }
    void progress(std::string_view l) override { lines.push_back("P " + std::string(l)); }
    void output_line(std::string_view l) override { lines.push_back("O " + std::string(l)); }
};
}  // namespace

TEST_CASE("report_warnings hands each warning to the reporter in order") {
    Recorder r;
    report_warnings(r, {Error{SourceLoc{"meta.yaml", 3}, "first", {}}, Error{{}, "second", "hint"}});
    CHECK(r.lines == std::vector<std::string>{"W meta.yaml:3: first", "W second (hint)"});
    CHECK(&reporter_or_default(&r) == &r);
    CHECK(&reporter_or_default(nullptr) == &default_reporter());
}

TEST_CASE("Failure and RuntimeError are both ErrorExceptions and never each other") {
    auto kind = [](auto thrown) -> std::string {
        try {
            throw thrown;
        } catch (const RuntimeError& e) {
            return "runtime " + e.error().str();
        } catch (const Failure& e) {
            return "input " + e.error().str();
        }
    };
    CHECK(kind(Failure(Error{SourceLoc{"x.yaml"}, "bad", {}})) == "input x.yaml: bad");
    CHECK(kind(RuntimeError(Error{SourceLoc{"/tmp/l"}, "cannot lock", {}})) == "runtime /tmp/l: cannot lock");
    try {
        throw RuntimeError(Error{{}, "disk full", {}});
    } catch (const ErrorException& e) {
        CHECK(std::string(e.what()) == "disk full");
    }
}
