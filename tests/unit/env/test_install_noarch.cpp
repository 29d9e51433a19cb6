#include <catch2/catch.hpp>

#include <sys/stat.h>

#include <nlohmann/json.hpp>

#include "env/install.hpp"
#include "env/install_noarch.hpp"
#include "package/meta.hpp"
#include "package/writer.hpp"
#include "process/process.hpp"
#include "testutil.hpp"
#include "util/strings.hpp"

using namespace sf;
using namespace sf::env;
namespace stdfs = std::filesystem;

namespace {

void put(const stdfs::path& p, const std::string& text, unsigned mode = 0644) {
    stdfs::create_directories(p.parent_path());
    REQUIRE(fs::write_file_atomic(p, text));
    ::chmod(p.c_str(), mode);
}

// A noarch: python package with a module, a script and an entry point.
stdfs::path noarch_package(const stdfs::path& tmp) {
    stdfs::path payload = tmp / "payload";
    put(payload / "site-packages/nap/__init__.py", "def main():\n    print('nap ran')\n    return 0\n");
    put(payload / "site-packages/nap/sub/deep.py", "X = 1\n");
    put(payload / "python-scripts/nap-script", "#!/usr/bin/env python\nprint('script ran')\n", 0755);
    put(payload / "share/nap/data.txt", "data\n");
    package::PackageMeta m;
    m.name = "nap";
    m.version = "1.0";
    m.build = "py_0";
    m.subdir = types::Platform::noarch();
    m.noarch = types::NoArch::python;
    m.depends = {"python"};
    m.link_json = R"({"noarch": {"entry_points": ["nap-run = nap:main"], "type": "python"}, "package_metadata_version": 1})";
    auto made = package::make_package(payload, m, tmp / "out", {});
    REQUIRE(made);
    return made->files.front();
}

// The Python on PATH as a provider lays it out: bin/pythonX.Y and lib/pythonX.Y/site-packages.
std::string venv_like(const stdfs::path& prefix) {
    auto py = process::find_executable("python3", process::minimal_env()["PATH"]);
    if (!py) test::skip("needs a python3 on PATH");
    process::Command c;
    // The real interpreter (python3 may be a pyenv shim), and a pyvenv.cfg so
    // that it takes the prefix as its own, as a venv's does.
    c.argv = {py->string(), "-c", "import sys; print('%d.%d' % sys.version_info[:2]); print(sys.executable)"};
    c.env = process::minimal_env();
    auto r = process::capture(c);
    REQUIRE(r);
    REQUIRE(r->exit_code == 0);
    auto lines = str::split(std::string(str::trim(r->out)), '\n');
    REQUIRE(lines.size() == 2);
    const std::string minor = lines[0];
    stdfs::path exe = lines[1];
    stdfs::create_directories(prefix / "bin");
    stdfs::create_directories(prefix / ("lib/python" + minor + "/site-packages"));
    stdfs::create_symlink(exe, prefix / ("bin/python" + minor));
    put(prefix / "pyvenv.cfg", "home = " + exe.parent_path().string() + "\ninclude-system-site-packages = false\n");
    return minor;
}

}  // namespace

TEST_CASE("noarch_target places site-packages/ and python-scripts/ as conda does") {
    const std::string sp = "lib/python3.12/site-packages";
    CHECK(detail::noarch_target("site-packages/a/b.py", sp) == "lib/python3.12/site-packages/a/b.py");
    CHECK(detail::noarch_target("python-scripts/tool", sp) == "bin/tool");
    CHECK(detail::noarch_target("share/site-packages/x", sp) == "share/site-packages/x");
    CHECK(detail::noarch_target("site-packagesx/y", sp) == "site-packagesx/y");
}

TEST_CASE("target_python: the python being linked, else the installed one, else one venv layout") {
    fs::TempDir tmp("sf-noarch");
    CHECK_FALSE(detail::target_python(tmp.path(), {}, std::nullopt));
    CHECK(detail::target_python(tmp.path(), {}, std::string("python-3.11.4-0_system")) == "3.11");
    stdfs::create_directories(tmp.path() / "lib/python3.10/site-packages");
    put(tmp.path() / "bin/python3.10", "");
    CHECK(detail::target_python(tmp.path(), {}, std::nullopt) == "3.10");
    stdfs::create_directories(tmp.path() / "lib/python3.13/site-packages");
    put(tmp.path() / "bin/python3.13", "");
    CHECK_FALSE(detail::target_python(tmp.path(), {}, std::nullopt));  // two: neither
}

TEST_CASE("install links a noarch: python package for the env's Python, with entry points and .pyc") {
    fs::TempDir tmp("sf-noarch");
    stdfs::path prefix = tmp.path() / "prefix";
    std::string minor = venv_like(prefix);
    stdfs::path pkg = noarch_package(tmp.path());
    InstallOptions o;
    o.run_scripts = RunScripts::yes;  // compiles the .pyc files
    o.pkgs_dir = tmp.path() / "pkgs";
    o.platform = *types::Platform::parse("linux-64");
    o.host_provided = {"python"};  // the venv's, as the system provider's build and host envs
    auto r = install(prefix, {pkg.string()}, o);
    INFO((r ? "" : r.error().str()));
    REQUIRE(r);
    const std::string sp = "lib/python" + minor + "/site-packages/";
    std::string tag = minor;
    tag.erase(tag.find('.'), 1);
    CHECK(stdfs::exists(prefix / (sp + "nap/__init__.py")));
    CHECK(stdfs::exists(prefix / (sp + "nap/sub/deep.py")));
    CHECK(stdfs::exists(prefix / (sp + "nap/__pycache__/__init__.cpython-" + tag + ".pyc")));
    CHECK(stdfs::exists(prefix / (sp + "nap/sub/__pycache__/deep.cpython-" + tag + ".pyc")));
    CHECK(stdfs::exists(prefix / "bin/nap-script"));
    CHECK(stdfs::exists(prefix / "share/nap/data.txt"));
    CHECK_FALSE(stdfs::exists(prefix / "site-packages"));
    CHECK_FALSE(stdfs::exists(prefix / "python-scripts"));
    // conda's launcher, naming the env's pythonX.Y.
    CHECK(test::slurp(prefix / "bin/nap-run") ==
          "#!" + (prefix / ("bin/python" + minor)).string() +
              "\n# -*- coding: utf-8 -*-\nimport re\nimport sys\n\nfrom nap import main\n\nif __name__ == '__main__':\n"
              "    sys.argv[0] = re.sub(r'(-script\\.pyw?|\\.exe)?$', '', sys.argv[0])\n    sys.exit(main())\n");
    struct stat st{};
    REQUIRE(::stat((prefix / "bin/nap-run").c_str(), &st) == 0);
    CHECK((st.st_mode & 0777) == 0755);
    process::Command run;
    run.argv = {(prefix / "bin/nap-run").string()};
    run.env = process::minimal_env();
    auto out = process::capture(run);
    REQUIRE(out);
    CHECK(out->out == "nap ran\n");
    // conda-meta: files where they went; paths_data keeps the package paths,
    // and adds the entry point and the .pyc files as conda records them.
    auto rec = nlohmann::json::parse(test::slurp(prefix / "conda-meta/nap-1.0-py_0.json"));
    std::set<std::string> files(rec["files"].begin(), rec["files"].end());
    CHECK(files.count(sp + "nap/__init__.py"));
    CHECK(files.count("bin/nap-script"));
    CHECK(files.count("bin/nap-run"));
    CHECK(files.count(sp + "nap/__pycache__/__init__.cpython-" + tag + ".pyc"));
    std::map<std::string, std::string> types;
    for (const auto& p : rec["paths_data"]["paths"]) types[p["_path"]] = p["path_type"];
    CHECK(types["site-packages/nap/__init__.py"] == "hardlink");
    CHECK(types["bin/nap-run"] == "unix_python_entry_point");
    CHECK(types[sp + "nap/sub/__pycache__/deep.cpython-" + tag + ".pyc"] == "pyc_file");

    SECTION("installing it again changes nothing") {
        auto again = install(prefix, {pkg.string()}, o);
        REQUIRE(again);  // unchanged: nothing to do
        CHECK(again->unchanged == std::vector<std::string>{"nap-1.0-py_0"});
    }
}

TEST_CASE("install refuses a noarch: python package where the env has no python, naming it") {
    fs::TempDir tmp("sf-noarch");
    stdfs::path pkg = noarch_package(tmp.path());
    InstallOptions o;
    o.run_scripts = RunScripts::yes;  // compiles the .pyc files
    o.pkgs_dir = tmp.path() / "pkgs";
    o.platform = *types::Platform::parse("linux-64");
    o.host_provided = {"python"};
    auto r = install(tmp.path() / "prefix", {pkg.string()}, o);
    REQUIRE_FALSE(r);
    CHECK(r.error().message == "nap-1.0-py_0: a noarch: python package needs a python in the environment");
    CHECK_FALSE(stdfs::exists(tmp.path() / "prefix/conda-meta"));
}
