#include <catch2/catch.hpp>

#include "env/python_env.hpp"
#include "testskip.hpp"
#include "testutil.hpp"
#include "util/strings.hpp"

using namespace sf;
namespace stdfs = std::filesystem;

namespace {

// A fake interpreter answering discover's probe for `minor`; it leaves
// "<exe>.ran" when run.
void fake_python(const stdfs::path& exe, const std::string& minor, const std::string& headers = "1") {
    stdfs::create_directories(exe.parent_path());
    REQUIRE(fs::write_file_atomic(exe, "#!/bin/sh\ntouch \"$0.ran\"\nprintf '%s\\n' " + minor + " " + minor +
                                           ".0 \"$0\" /opt/py " + headers + "\n"));
    stdfs::permissions(exe, stdfs::perms::owner_all);
}

// A fake pyenv shim: fails as pyenv exec does when nothing provides NAME,
// and leaves "<shim>.ran".
void fake_shim(const stdfs::path& shim) {
    stdfs::create_directories(shim.parent_path());
    REQUIRE(fs::write_file_atomic(shim, "#!/bin/sh\ntouch \"$0.ran\"\necho \"pyenv: ${0##*/}: command not found\" >&2\nexit 127\n"));
    stdfs::permissions(shim, stdfs::perms::owner_all);
}

}  // namespace

TEST_CASE("discover_pythons: a pyenv shim is resolved without running it", "[env][python]") {
    fs::TempDir tmp("sf-pyenv");
    stdfs::path root = tmp.path() / "pyenv";
    fake_shim(root / "shims/python3.12");
    fake_shim(root / "shims/python3.11");
    fake_python(root / "versions/3.11.2/bin/python3.11", "3.11");
    fake_python(root / "versions/3.12.1/bin/python3.12", "3.12");
    fake_python(root / "versions/3.12.4/bin/python3.12", "3.12");
    fake_python(tmp.path() / "usr/bin/python3.11", "3.11");
    std::string path = (root / "shims").string() + ":" + (tmp.path() / "usr/bin").string() + ":/usr/bin:/bin";
    process::Env penv{{"PATH", path}, {"HOME", tmp.path().string()}, {"PYENV_ROOT", root.string()}};

    SECTION("the selected version wins over the sorted version dirs") {
        REQUIRE(fs::write_file_atomic(root / "version", "# pyenv global\n3.12.4\n"));
        auto found = env::discover_pythons(penv);
        REQUIRE(found.count("3.12"));
        CHECK(found["3.12"].exe == root / "versions/3.12.4/bin/python3.12");
        // python3.11's shim fails under 3.12.4: the first version dir has it.
        CHECK(found["3.11"].exe == root / "versions/3.11.2/bin/python3.11");
        CHECK_FALSE(stdfs::exists(root / "shims/python3.12.ran"));
        CHECK_FALSE(stdfs::exists(root / "shims/python3.11.ran"));
        // 3.12.1 is a later candidate of a minor already found: never run.
        CHECK_FALSE(stdfs::exists(root / "versions/3.12.1/bin/python3.12.ran"));
    }
    SECTION("\"system\" is PATH without the shims") {
        REQUIRE(fs::write_file_atomic(root / "version", "system\n"));
        penv["PYENV_VERSION"] = "system";
        auto found = env::discover_pythons(penv, {"3.11"});
        REQUIRE(found.count("3.11"));
        CHECK(found["3.11"].exe == tmp.path() / "usr/bin/python3.11");
        CHECK_FALSE(stdfs::exists(root / "shims/python3.11.ran"));
    }
    SECTION("a version pyenv resolves as a prefix: the shim itself is run") {
        penv["PYENV_VERSION"] = "3.12";
        auto found = env::discover_pythons(penv, {"3.12"});
        CHECK(stdfs::exists(root / "shims/python3.12.ran"));
        REQUIRE(found.count("3.12"));
        CHECK(found["3.12"].exe == root / "versions/3.12.1/bin/python3.12");
    }
}

TEST_CASE("discover_pythons: a candidate without headers gives way to the next", "[env][python]") {
    fs::TempDir tmp("sf-pyenv");
    fake_python(tmp.path() / "a/python3.10", "3.10", "0");
    fake_python(tmp.path() / "pyenv/versions/3.10.9/bin/python3.10", "3.10");
    process::Env penv{{"PATH", (tmp.path() / "a").string() + ":/usr/bin:/bin"},
                      {"PYENV_ROOT", (tmp.path() / "pyenv").string()}};
    auto found = env::discover_pythons(penv);
    REQUIRE(found.count("3.10"));
    CHECK(found["3.10"].exe == tmp.path() / "pyenv/versions/3.10.9/bin/python3.10");
    CHECK(stdfs::exists(tmp.path() / "a/python3.10.ran"));
}

// The oracle: what discovery found before it resolved shims and ran
// concurrently (every candidate run in order, the first with headers wins).
TEST_CASE("discover_pythons: the same interpreters as running every candidate", "[env][python]") {
    process::Env penv = process::minimal_env();
    if (const char* r = std::getenv("PYENV_ROOT")) penv["PYENV_ROOT"] = r;
    std::string root = penv.count("PYENV_ROOT") ? penv["PYENV_ROOT"] : penv["HOME"] + "/.pyenv";
    std::error_code ec;
    if (!stdfs::is_directory(stdfs::path(root) / "versions", ec)) test::skip("no pyenv versions on this machine");
    std::vector<stdfs::path> cands;
    for (int m = 6; m <= 15; ++m)
        if (auto p = process::find_executable("python3." + std::to_string(m), penv["PATH"])) cands.push_back(*p);
    std::vector<stdfs::path> dirs;
    for (const auto& e : stdfs::directory_iterator(stdfs::path(root) / "versions")) dirs.push_back(e.path());
    std::sort(dirs.begin(), dirs.end());
    for (const auto& d : dirs)
        for (int m = 6; m <= 15; ++m)
            if (stdfs::exists(d / "bin" / ("python3." + std::to_string(m)))) cands.push_back(d / "bin" / ("python3." + std::to_string(m)));
    env::Interpreters oracle;
    for (const auto& c : cands)
        if (auto py = env::probe_python(c, penv); py && py->headers && !oracle.count(py->minor)) oracle[py->minor] = *py;
    auto found = env::discover_pythons(penv);
    REQUIRE(found.size() == oracle.size());
    for (const auto& [minor, py] : oracle) {
        REQUIRE(found.count(minor));
        CHECK(found[minor].exe == py.exe);
        CHECK(found[minor].version == py.version);
        CHECK(found[minor].prefix == py.prefix);
    }
}

// The venv written by hand is what `python -m venv --without-pip` makes, as
// the interpreter sees it: prefix, base prefix, site-packages, the
// executables, and a package in site-packages is importable.
TEST_CASE("make_venv: each interpreter sees the venv python -m venv would make", "[env][python]") {
    process::Env penv = process::minimal_env();
    auto found = env::discover_pythons(penv);
    if (found.empty()) test::skip("no Python 3 interpreter with headers on this machine");
    fs::TempDir tmp("sf-venv");
    const char* ask =
        "import sys, sysconfig, json, site\n"
        "import probe_pkg\n"
        "print(json.dumps([sys.prefix, sys.base_prefix, sysconfig.get_paths()['purelib'],"
        " sys.version_info[:2] == tuple(map(int, '%s'.split('.'))), probe_pkg.OK]))\n";
    for (const auto& [minor, py] : found) {
        INFO("python " << minor);
        stdfs::path ours = tmp.path() / ("ours-" + minor), theirs = tmp.path() / ("theirs-" + minor);
        REQUIRE(env::make_venv(py, ours));
        process::Command mk{{py.exe.string(), "-m", "venv", "--without-pip", theirs.string()}, {}, penv, {}, {}, {}};
        auto made = process::capture(mk);
        REQUIRE(made);
        REQUIRE(made->exit_code == 0);
        for (const auto* root : {&ours, &theirs}) {
            for (std::string exe : {std::string("python"), std::string("python3"), "python" + minor})
                CHECK(stdfs::exists(*root / "bin" / exe));
            stdfs::path sp = env::site_packages(*root, minor);
            REQUIRE(stdfs::is_directory(sp));
            REQUIRE(fs::write_file_atomic(sp / "probe_pkg.py", "OK = 1\n"));
        }
        auto run = [&](const stdfs::path& root) {
            process::Command c{{(root / "bin/python").string(), "-c", str::replace_all(ask, "%s", minor)}, {}, penv, {}, {}, {}};
            auto r = process::capture(c);
            REQUIRE(r);
            INFO(r->err);
            REQUIRE(r->exit_code == 0);
            return str::replace_all(std::string(str::trim(r->out)), root.string(), "<venv>");
        };
        std::string a = run(ours), b = run(theirs);
        CHECK(a == b);
        CHECK(a.find("\"<venv>\"") != std::string::npos);
        CHECK(str::ends_with(a, "true, 1]"));
    }
}
