// `splitforge build` looks for the tools it runs (an external provider's
// executable, git for a git source, patch or git for patches) before it
// fetches a source or makes anything: a missing one is the first and only
// error, one line naming it, and the output folder is not created.
#include <catch2/catch.hpp>

#include <filesystem>
#include <string>
#include <vector>

#include "process/process.hpp"
#include "testproc.hpp"
#include "testutil.hpp"
#include "util/strings.hpp"

using namespace sf;
using test::last_line;
namespace stdfs = std::filesystem;

namespace {

// Runs `build RECIPE --output-folder OUT EXTRA...` with PATH an empty directory.
test::Ran build_without_tools(const stdfs::path& tmp, const std::string& recipe, std::vector<std::string> extra = {}) {
    stdfs::create_directories(tmp / "empty-bin");
    process::Command c;
    c.argv = {test::binary().string(), "build", (test::data_dir() / "engine" / recipe).string(), "--output-folder",
              (tmp / "out").string(), "-q"};
    c.argv.insert(c.argv.end(), extra.begin(), extra.end());
    c.env = process::current_env();
    c.env["PATH"] = (tmp / "empty-bin").string();
    auto r = process::capture(c);
    REQUIRE(r);
    return {r->exit_code, r->out, r->err};
}

bool has(const std::string& s, const std::string& part) { return s.find(part) != std::string::npos; }

}  // namespace

TEST_CASE("build: a missing tool is the first error, before any download", "[engine][tools]") {
    fs::TempDir tmp("sf-build-tools");
    SECTION("the external provider's executable (missing_source's url would fail first)") {
        auto r = build_without_tools(tmp.path(), "missing_source", {"--env-provider", "micromamba"});
        INFO(r.err);
        CHECK(r.rc == 1);
        CHECK(str::split_lines(r.err).size() == 1);
        CHECK(str::starts_with(last_line(r.err), "splitforge: error: not on PATH: micromamba (--env-provider micromamba"));
        CHECK(has(last_line(r.err), "or build with the system provider"));
        CHECK_FALSE(has(r.err, "nonexistent-splitforge"));
    }
    SECTION("git, for a git source") {
        auto r = build_without_tools(tmp.path(), "git_source");
        INFO(r.err);
        CHECK(r.rc == 1);
        CHECK(has(last_line(r.err), "not on PATH: git (for the git source at "));
        CHECK(has(last_line(r.err), "git_source/meta.yaml:"));
    }
    SECTION("patch (or git), for patches") {
        auto r = build_without_tools(tmp.path(), "bad_patch");
        INFO(r.err);
        CHECK(r.rc == 1);
        CHECK(has(last_line(r.err), "not on PATH: patch (for the patches of the source"));
        CHECK(has(last_line(r.err), "git would do too"));
    }
    CHECK_FALSE(stdfs::exists(tmp.path() / "out"));
}
