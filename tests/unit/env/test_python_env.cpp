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
