// The external providers against the reference conda (../shared/peer,
// tests/peer.hpp): `build --env-provider conda` builds and tests packages
// from local channels, and stock conda (add_pip_as_python_dependency on, its
// default) solves a channel holding the system provider's exported Python.
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "peer.hpp"
#include "testproc.hpp"
#include "testutil.hpp"
#include "util/fs.hpp"
#include "util/strings.hpp"

using namespace sf;
namespace stdfs = std::filesystem;

namespace {

std::string recipe(const std::string& name) { return (test::data_dir() / "engine" / name).string(); }

// Each output's test result by name, from a build's --json report.
std::map<std::string, std::string> tests_of(const std::string& json) {
    std::map<std::string, std::string> out;
    const auto report = nlohmann::json::parse(json);  // a temporary's element would dangle in the loop
    for (const auto& o : report["outputs"])
        out[o["name"].get<std::string>()] = o["test"].get<std::string>();
    return out;
}

}  // namespace

TEST_CASE("env provider conda: the reference conda builds and tests packages from local channels",
          "[engine][provider][peer]") {
    const stdfs::path peer = test::peer_root();
    fs::TempDir tmp("sf-conda-provider");
    const process::Env env = test::peer_env(peer, tmp.path());
    const stdfs::path deps = tmp.path() / "deps", out = tmp.path() / "out";
    auto dep = test::run_in({test::binary().string(), "build", recipe("conda_provider/dep"), "--output-folder",
                             deps.string(), "-q"},
                            env);
    INFO(dep.err);
    REQUIRE(dep.rc == 0);
    // sfc-lib's host env: sfc-dep from -c; sfc-tool's: sfc-lib from the
    // output channel; each test env: the package under test from the test channel.
    auto r = test::run_in({test::binary().string(), "build", recipe("conda_provider/app"), "--output-folder",
                           out.string(), "-c", deps.string(), "--env-provider", "conda", "-q", "--json"},
                          env);
    INFO(r.out << r.err);
    REQUIRE(r.rc == 0);
    CHECK(tests_of(r.out) == std::map<std::string, std::string>{{"sfc-lib", "passed"}, {"sfc-tool", "passed"}});
    CHECK(stdfs::exists(out / "linux-64/sfc-lib-2.0-0.conda"));
    CHECK(stdfs::exists(out / "linux-64/sfc-tool-2.0-0.conda"));
    CHECK_FALSE(stdfs::exists(out / "broken"));
}

TEST_CASE("env provider conda: stock conda solves the exported python, whose pip comes with it",
          "[engine][provider][peer][!mayfail]") {
    const stdfs::path peer = test::peer_root();
    fs::TempDir tmp("sf-conda-pip");
    const process::Env env = test::peer_env(peer, tmp.path());
    const stdfs::path out = tmp.path() / "out";
    auto r = test::run_in({test::binary().string(), "build", recipe("py_files"), "--output-folder", out.string(), "-q",
                           "--variant", "python=3.12"},
                          env);
    if (r.rc != 0 && r.err.find("no such interpreter") != std::string::npos)
        test::skip("needs a CPython 3.12 (PATH or pyenv)");
    INFO(r.out << r.err);
    REQUIRE(r.rc == 0);
    // The setting this is about stays at conda's default.
    auto cfg = test::run_in({"conda", "config", "--show", "add_pip_as_python_dependency"}, env);
    CHECK(cfg.out == "add_pip_as_python_dependency: True\n");

    const stdfs::path prefix = tmp.path() / "env";
    auto create = test::run_in({"conda", "create", "-y", "-q", "--offline", "-p", prefix.string(), "--override-channels",
                                "-c", "file://" + out.string(), "sfpy-arch"},
                               env);
    INFO(create.out << create.err);
    REQUIRE(create.rc == 0);
    bool pip_from_channel = false;
    for (const auto& e : stdfs::directory_iterator(prefix / "conda-meta"))
        pip_from_channel = pip_from_channel || str::starts_with(e.path().filename().string(), "pip-");
    CHECK(pip_from_channel);
    // `python -m pip` and conda's pip launcher run the host interpreter's pip, from the env.
    auto pip = test::run_in({(prefix / "bin/python").string(), "-m", "pip", "--version"}, env);
    INFO(pip.err);
    CHECK(pip.rc == 0);
    CHECK(pip.out.find((prefix / "lib/python3.12/site-packages/pip").string()) != std::string::npos);
    auto launcher = test::run_in({(prefix / "bin/pip").string(), "--version"}, env);
    CHECK(launcher.rc == 0);
    CHECK(launcher.out == pip.out);
    auto list = test::run_in({(prefix / "bin/python").string(), "-m", "pip", "list", "--disable-pip-version-check"}, env);
    CHECK(list.out.find("pip ") != std::string::npos);
}
