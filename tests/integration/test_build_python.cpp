// Python packages as conda-build (meta.yaml) and rattler-build (recipe.yaml)
// make them, on tests/data/engine/py_files and v1_py_files: one output per
// Python (compiled .pyc, an entry point naming the host python, .pyo,
// .opt-N.pyc and share/info/dir gone) and one noarch: python output
// (site-packages/, python-scripts/, info/link.json), each tested in its own
// prefix by the build, then installed by `splitforge install` and run.
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "archive/read.hpp"
#include "process/process.hpp"
#include "testutil.hpp"
#include "util/fs.hpp"
#include "util/strings.hpp"

using namespace sf;
namespace stdfs = std::filesystem;

namespace {

process::Outcome run(std::vector<std::string> argv) {
    process::Command c;
    c.argv = std::move(argv);
    c.env = process::minimal_env();
    c.stdin_data = "";
    auto r = process::capture(c);
    REQUIRE(r);
    return *r;
}

// Builds the recipe for Python 3.12 into `out` (skips without one); returns
// each output's test result by name.
std::map<std::string, std::string> build(const std::string& recipe, const stdfs::path& out) {
    auto r = run({test::binary().string(), "build", (test::data_dir() / "engine" / recipe).string(), "--output-folder",
                  out.string(), "-q", "--json", "--variant", "python=3.12"});
    if (r.exit_code != 0 && r.err.find("no such interpreter") != std::string::npos)
        test::skip("needs a CPython 3.12 (PATH or pyenv)");
    INFO(r.out << r.err);
    REQUIRE(r.exit_code == 0);
    std::map<std::string, std::string> tests;
    const auto report = nlohmann::json::parse(r.out);
    for (const auto& o : report["outputs"])
        tests[o["name"].get<std::string>()] = o["test"].get<std::string>();
    return tests;
}

stdfs::path package_of(const stdfs::path& out, const std::string& subdir, const std::string& name) {
    for (const auto& e : stdfs::directory_iterator(out / subdir))
        if (str::starts_with(e.path().filename().string(), name + "-1.0-")) return e.path();
    FAIL("no " << name << " in " << out / subdir);
    return {};
}

std::string member(const stdfs::path& pkg, const std::string& name) {
    auto m = archive::read_package_member(pkg, name);
    return m ? *m : std::string("<none>");
}

std::vector<std::string> info_files(const stdfs::path& pkg) { return str::split_lines(member(pkg, "info/files")); }

// Installs the two outputs and python into a fresh prefix; runs what they ship.
void install_and_run(const stdfs::path& out, const stdfs::path& prefix, const std::string& arch, const std::string& noarch) {
    auto r = run({test::binary().string(), "install", "-p", prefix.string(), "-c", out.string(), arch, noarch, "python=3.12"});
    INFO(r.err);
    REQUIRE(r.exit_code == 0);
    for (const auto& pkg : {arch, noarch}) {
        auto ep = run({(prefix / "bin" / (pkg + "-run")).string()});
        CHECK(ep.out == "sfpy main ran\n");
        std::string mod = pkg;
        std::replace(mod.begin(), mod.end(), '-', '_');
        auto script = run({(prefix / "bin" / (mod + "-tool")).string()});
        CHECK(script.out == "sfpy-tool ran\n");
        auto imp = run({(prefix / "bin/python").string(), "-c", "import " + mod + ".cli; print('ok')"});
        CHECK(imp.out == "ok\n");
        // Compiled (at build time, or by the installer for noarch: python).
        CHECK(stdfs::exists(prefix / "lib/python3.12/site-packages" / mod / "__pycache__/cli.cpython-312.pyc"));
    }
}

}  // namespace

TEST_CASE("python build (meta.yaml): conda-build's .pyc, entry points and noarch: python layout") {
    fs::TempDir tmp("sf-it-py");
    stdfs::path out = tmp.path() / "out";
    auto tests = build("py_files", out);
    CHECK(tests["sfpy-arch"] == "passed");
    CHECK(tests["sfpy-noarch"] == "passed");

    auto arch = package_of(out, "linux-64", "sfpy-arch");
    const std::string sp = "lib/python3.12/site-packages/sfpy_arch";
    CHECK(info_files(arch) == std::vector<std::string>{"bin/sfpy-arch-run", "bin/sfpy_arch-tool",
                                                       sp + "-1.0.dist-info/INSTALLER", sp + "-1.0.dist-info/METADATA",
                                                       sp + "/__init__.py", sp + "/__pycache__/__init__.cpython-312.pyc",
                                                       sp + "/__pycache__/cli.cpython-312.pyc", sp + "/cli.py",
                                                       sp + "/skipped.py", "share/sfpy_arch/data.txt"});
    CHECK(member(arch, "info/link.json") == "<none>");
    // The entry point names the host prefix's python: a text placeholder.
    CHECK(member(arch, "info/has_prefix").find(" text bin/sfpy-arch-run") != std::string::npos);

    auto noarch = package_of(out, "noarch", "sfpy-noarch");
    CHECK(info_files(noarch) == std::vector<std::string>{"python-scripts/sfpy_noarch-tool", "share/sfpy_noarch/data.txt",
                                                         "site-packages/sfpy_noarch-1.0.dist-info/INSTALLER",
                                                         "site-packages/sfpy_noarch-1.0.dist-info/METADATA",
                                                         "site-packages/sfpy_noarch/__init__.py",
                                                         "site-packages/sfpy_noarch/cli.py"});
    CHECK(member(noarch, "info/link.json") ==
          "{\n  \"noarch\": {\n    \"entry_points\": [\n      \"sfpy-noarch-run = sfpy_noarch.cli:main\"\n    ],\n"
          "    \"type\": \"python\"\n  },\n  \"package_metadata_version\": 1\n}");
    CHECK(member(noarch, "info/has_prefix") == "<none>");
    auto paths = nlohmann::json::parse(member(noarch, "info/paths.json"));
    for (const auto& p : paths["paths"]) CHECK(p["path_type"] == "hardlink");  // no directory left behind
    install_and_run(out, tmp.path() / "env", "sfpy-arch", "sfpy-noarch");

    // A host env (a venv of the system provider) links it into its own Python.
    auto user = run({test::binary().string(), "build", (test::data_dir() / "engine/py_user").string(), "-c", out.string(),
                     "--output-folder", (tmp.path() / "user").string(), "--variant", "python=3.12"});
    INFO(user.err);
    CHECK(user.exit_code == 0);
    CHECK(user.err.find("host import ok") != std::string::npos);
    CHECK(user.err.find("sfpy main ran") != std::string::npos);
}

TEST_CASE("python build (recipe.yaml): rattler-build's .pyc, entry points and noarch: python layout") {
    fs::TempDir tmp("sf-it-py");
    stdfs::path out = tmp.path() / "out";
    auto tests = build("v1_py_files", out);
    CHECK(tests["sfpy-v1-arch"] == "passed");
    CHECK(tests["sfpy-v1-noarch"] == "passed");

    auto arch = package_of(out, "linux-64", "sfpy-v1-arch");
    const std::string sp = "lib/python3.12/site-packages/sfpy_v1_arch";
    // rattler-build drops .pyo only: an .opt-1.pyc of another Python stays.
    CHECK(info_files(arch) == std::vector<std::string>{"bin/sfpy-v1-arch-run", "bin/sfpy_v1_arch-tool",
                                                       sp + "-1.0.dist-info/INSTALLER", sp + "-1.0.dist-info/METADATA",
                                                       sp + "/__init__.py", sp + "/__pycache__/__init__.cpython-312.pyc",
                                                       sp + "/__pycache__/cli.cpython-312.pyc",
                                                       sp + "/__pycache__/cli.cpython-39.opt-1.pyc", sp + "/cli.py",
                                                       sp + "/skipped.py", "share/sfpy_v1_arch/data.txt"});
    CHECK(member(arch, "info/link.json") == "<none>");

    auto noarch = package_of(out, "noarch", "sfpy-v1-noarch");
    CHECK(info_files(noarch) == std::vector<std::string>{"python-scripts/sfpy_v1_noarch-tool",
                                                         "share/sfpy_v1_noarch/data.txt",
                                                         "site-packages/sfpy_v1_noarch-1.0.dist-info/INSTALLER",
                                                         "site-packages/sfpy_v1_noarch-1.0.dist-info/METADATA",
                                                         "site-packages/sfpy_v1_noarch/__init__.py",
                                                         "site-packages/sfpy_v1_noarch/cli.py"});
    CHECK(member(noarch, "info/link.json") ==
          "{\n  \"noarch\": {\n    \"type\": \"python\",\n    \"entry_points\": [\n"
          "      \"sfpy-v1-noarch-run = sfpy_v1_noarch.cli:main\"\n    ]\n  },\n  \"package_metadata_version\": 1\n}");
    install_and_run(out, tmp.path() / "env", "sfpy-v1-arch", "sfpy-v1-noarch");
}
