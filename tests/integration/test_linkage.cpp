// conda-build's post-build linkage checks through `splitforge build`, on the
// small recipes of tests/data/engine/linkage (README.md there): a package
// that links a library no run dependency provides fails with one line naming
// the output, the file and the library; listing the dependency fixes it; a
// run dependency nothing links is reported as overdepending.
#include <catch2/catch.hpp>

#include <filesystem>
#include <string>
#include <vector>

#include "process/process.hpp"
#include "testproc.hpp"
#include "testutil.hpp"
#include "util/strings.hpp"

namespace stdfs = std::filesystem;
using namespace sf;
using test::last_line;

namespace {

struct Run {
    int rc = -1;
    std::string err;
};

Run build(const std::string& recipe, const stdfs::path& out, std::vector<std::string> extra = {}) {
    std::vector<std::string> argv = {test::binary().string(), "build",
                                     (test::data_dir() / "engine/linkage" / recipe).string(),
                                     "--output-folder", out.string(), "-q"};
    argv.insert(argv.end(), extra.begin(), extra.end());
    process::Command c{argv, {}, process::current_env(), {}, {}, {}};
    auto r = process::capture(c);
    REQUIRE(r);
    return {r->exit_code, r->err};
}

bool has(const std::string& s, const std::string& needle) { return s.find(needle) != std::string::npos; }

// A channel holding sf-libfoo, which ships lib/libfoo.so.1 and exports nothing.
stdfs::path channel_with_libfoo(const fs::TempDir& tmp) {
    if (!process::find_executable("cc", process::current_env()["PATH"])) test::skip("needs a C compiler (cc) on PATH");
    stdfs::path out = tmp.path() / "out";
    auto r = build("libfoo", out);
    INFO(r.err);
    REQUIRE(r.rc == 0);
    return out;
}

std::vector<std::string> packages(const stdfs::path& out, const std::string& prefix) {
    std::vector<std::string> found;
    std::error_code ec;
    for (const auto& e : stdfs::directory_iterator(out / "linux-64", ec))
        if (str::starts_with(e.path().filename().string(), prefix)) found.push_back(e.path().filename().string());
    return found;
}

}  // namespace

TEST_CASE("linkage: a library no run dependency provides fails the build (overlinking)", "[engine][linkage]") {
    fs::TempDir tmp("sf-linkage");
    stdfs::path out = channel_with_libfoo(tmp);
    auto r = build("app-unlisted", out);
    INFO(r.err);
    CHECK(r.rc == 1);  // the job failed (README, "Exit codes"), not the user's input
    const std::string line = last_line(r.err);
    CHECK(str::starts_with(line, "splitforge: error: sf-app-1.0-"));
    CHECK(has(line, "lib/libapp.so: libfoo.so.1 resolves to lib/libfoo.so.1 of sf-libfoo-1.0-"));
    CHECK(has(line, "which is not a run dependency (overlinking)"));
    CHECK(packages(out, "sf-app-").empty());  // nothing published

    SECTION("listing it in requirements/run passes") {
        auto ok = build("app-listed", out);
        INFO(ok.err);
        CHECK(ok.rc == 0);
        CHECK_FALSE(has(ok.err, "overlinking"));
        CHECK(packages(out, "sf-app-").size() == 1);
    }
    SECTION("the recipe's build/error_overlinking wins over --no-error-overlinking, as in conda-build") {
        auto again = build("app-unlisted", out, {"--no-error-overlinking"});
        CHECK(again.rc == 1);
        CHECK(has(last_line(again.err), "(overlinking)"));
    }
}

TEST_CASE("linkage: a run dependency nothing links is reported (overdepending)", "[engine][linkage]") {
    fs::TempDir tmp("sf-linkage");
    stdfs::path out = channel_with_libfoo(tmp);

    SECTION("a warning by default, and the package is built") {
        auto r = build("app-overdepending", out);
        INFO(r.err);
        CHECK(r.rc == 0);
        CHECK(has(r.err, "dso library package sf-libfoo-1.0-"));
        CHECK(has(r.err, "is a run dependency but no file links it (overdepending"));
        CHECK(packages(out, "sf-app-").size() == 1);
    }
    SECTION("an error under --error-overdepending: one line, nothing published") {
        auto r = build("app-overdepending", out, {"--error-overdepending"});
        INFO(r.err);
        CHECK(r.rc == 1);
        const std::string line = last_line(r.err);
        CHECK(str::starts_with(line, "splitforge: error: sf-app-1.0-"));
        CHECK(has(line, "sf-libfoo-1.0-"));
        CHECK(has(line, "(overdepending"));
        CHECK(packages(out, "sf-app-").empty());
    }
}

TEST_CASE("linkage: a feedstock's conda-forge.yml turns overlinking into an error, as conda-forge's CI", "[engine][linkage]") {
    fs::TempDir tmp("sf-linkage");
    stdfs::path out = channel_with_libfoo(tmp);
    auto r = build("forge/recipe", out);
    INFO(r.err);
    CHECK(r.rc == 1);
    CHECK(has(last_line(r.err), "lib/libapp.so: libfoo.so.1 resolves to lib/libfoo.so.1"));
    CHECK(has(last_line(r.err), "(overlinking)"));

    SECTION("--no-error-overlinking overrides it: a warning, and the package is built") {
        auto ok = build("forge/recipe", out, {"--no-error-overlinking"});
        INFO(ok.err);
        CHECK(ok.rc == 0);
        CHECK(has(ok.err, "warning: sf-app-1.0-"));
        CHECK(has(ok.err, "which is not a run dependency (overlinking)"));
        CHECK(packages(out, "sf-app-").size() == 1);
    }
}
