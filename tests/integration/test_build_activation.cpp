// Activation as conda-build does it: the host prefix's activate.d scripts,
// then the build prefix's (stacked), before the build script; the test
// prefix's before a test. The packages carrying the scripts are built by
// splitforge into the same output channel first (tests/data/engine/activation).
// conda-build 24.11.2 (../shared/peer) sees the same `host,build|<build prefix>|yes`.
#include <catch2/catch.hpp>

#include <filesystem>
#include <string>
#include <vector>

#include "archive/read.hpp"
#include "process/process.hpp"
#include "testproc.hpp"
#include "testutil.hpp"
#include "util/fs.hpp"
#include "util/strings.hpp"

namespace stdfs = std::filesystem;
using namespace sf;
using test::last_line;

namespace {

struct Ran {
    int rc = -1;
    std::string err;
};

Ran build(const std::string& recipe, const stdfs::path& out, std::vector<std::string> extra = {}) {
    std::vector<std::string> argv = {test::binary().string(), "build",
                                     (test::data_dir() / "engine/activation" / recipe).string(),
                                     "--output-folder", out.string(), "-q"};
    argv.insert(argv.end(), extra.begin(), extra.end());
    process::Command c{argv, {}, process::current_env(), {}, {}, {}};
    auto r = process::capture(c);
    REQUIRE(r);
    return {r->exit_code, r->err};
}

}  // namespace

TEST_CASE("build: the host then the build prefix are activated before the script, the test prefix before the test",
          "[engine][activation]") {
    fs::TempDir tmp("sf-activation");
    const stdfs::path out = tmp.path() / "out";
    for (const char* pkg : {"sf-act-host", "sf-act-build"}) {
        auto r = build(pkg, out);
        INFO(pkg << ": " << r.err);
        REQUIRE(r.rc == 0);
    }
    auto r = build("sf-act-consumer", out);  // its test checks the test prefix's activation
    INFO(r.err);
    REQUIRE(r.rc == 0);
    auto seen = archive::read_package_member(out / "linux-64/sf-act-consumer-1.0.0-0.conda", "share/sf-act/seen.txt");
    REQUIRE(seen);
    auto lines = str::split_lines(*seen);
    REQUIRE(lines.size() == 2);
    const std::string build_prefix = lines[1];  // $BUILD_PREFIX, as the script saw it
    CHECK(str::ends_with(build_prefix, "/build_env"));
    CHECK(lines[0] == "host,build|" + build_prefix + "|yes");
    // the build log, with the build prefix masked
    CHECK(test::slurp(out / "logs/sf-act-consumer-1.0.0-0.log").find("seen: host,build|$BUILD_PREFIX|yes") !=
          std::string::npos);
}

TEST_CASE("build: an activation script that fails stops the build with one line naming its package and script",
          "[engine][activation]") {
    fs::TempDir tmp("sf-activation");
    const stdfs::path out = tmp.path() / "out";
    auto bad = build("sf-act-bad", out);
    INFO(bad.err);
    REQUIRE(bad.rc == 0);
    auto r = build("sf-act-bad-consumer", out);
    INFO(r.err);
    CHECK(r.rc == 1);
    const std::string line = last_line(r.err);
    CHECK(str::starts_with(line, "splitforge: error: "));
    CHECK(line.find("sf-act-bad: activation script etc/conda/activate.d/sf-act-bad.sh failed (exit 1) while "
                    "activating the build prefix [activation-failed]") != std::string::npos);
    CHECK(!stdfs::exists(out / "linux-64/sf-act-bad-consumer-1.0.0-0.conda"));
}

TEST_CASE("build: --no-system makes a requirement no channel provides an error, not a host stand-in",
          "[engine][activation]") {
    fs::TempDir tmp("sf-activation");
    const stdfs::path out = tmp.path() / "out";
    auto r = build("sf-no-system", out, {"--no-system"});
    INFO(r.err);
    CHECK(r.rc == 1);
    const std::string line = last_line(r.err);
    CHECK(line.find("requirement 'cmake' is in none of the channels, and --no-system refuses the host's stand-in "
                    "[no-system]") != std::string::npos);
    CHECK(!stdfs::exists(out / "linux-64/sf-no-system-1.0.0-0.conda"));
}
