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
#include "env/python_env.hpp"
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

// The forge's python (tests/data/forge/python): a host CPython's own prefix
// (pyenv's, with its shared libpython) packaged as the channel's python.
// With `-c FORGE --no-system` a python requirement is met by it, in the host
// prefix and the test prefix, never by a venv of a host interpreter; and
// sysconfig inside it names the prefix it was installed to.
TEST_CASE("forge python: -c forge --no-system puts the channel's python in host and test prefixes", "[forge]") {
    const env::Interpreters found = env::discover_pythons(process::current_env(), {"3.12", "3.11", "3.13"});
    const env::Interpreter* py = nullptr;
    for (const auto& [minor, i] : found) {
        std::error_code ec;
        bool own_prefix = !str::starts_with(i.prefix.string(), "/usr");
        if (!py && own_prefix && stdfs::exists(i.prefix / ("lib/libpython" + minor + ".so"), ec)) py = &i;
    }
    if (!py) test::skip("needs a CPython 3.11-3.13 with its own prefix and a shared libpython (pyenv's)");
    fs::TempDir tmp("sf-forge-python");
    const stdfs::path forge = tmp.path() / "forge", out = tmp.path() / "out";
    process::Env env = process::current_env();
    env["FORGE_PYTHON_PREFIX"] = py->prefix.string();
    env["FORGE_PYTHON_VERSION"] = py->version;
    auto run = [&](const std::vector<std::string>& argv) {
        process::Command c{argv, {}, env, {}, {}, {}};
        auto r = process::capture(c);
        REQUIRE(r);
        INFO(r->err);
        CHECK(r->exit_code == 0);
        return r->err;
    };
    run({test::binary().string(), "build", (test::data_dir() / "forge/python").string(), "--output-folder",
         forge.string(), "-q", "--compression-level", "3"});
    REQUIRE(stdfs::exists(forge / ("linux-64/python-" + py->version + "-h0_cpython.conda")));
    // Its build script checks $PYTHON is the host prefix's; its test, the test prefix's record.
    auto err = run({test::binary().string(), "build", (test::data_dir() / "forge-consumers/hello-python").string(),
                    "--output-folder", out.string(), "-c", forge.string(), "--no-system", "-q", "--variant",
                    "python=" + py->minor});
    CHECK(err.find("stand-in") == std::string::npos);
    CHECK(stdfs::exists(out / "noarch/hello-python-1.0.0-py_0.conda"));
    CHECK_FALSE(stdfs::exists(out / ("linux-64/python-" + py->version + "-0_system.conda")));
}
