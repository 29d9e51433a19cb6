#include <catch2/catch.hpp>

#include <sys/stat.h>

#include <map>
#include <set>

#include "package/python_files.hpp"
#include "process/process.hpp"
#include "testutil.hpp"
#include "util/fs.hpp"

using namespace sf;
using namespace sf::package;
namespace stdfs = std::filesystem;

namespace {

void put(const stdfs::path& root, const std::string& rel, const std::string& text, unsigned mode = 0644) {
    stdfs::create_directories((root / rel).parent_path());
    REQUIRE(fs::write_file_atomic(root / rel, text));
    ::chmod((root / rel).c_str(), mode);
}

// Every file and symlink below root, relative.
std::set<std::string> tree(const stdfs::path& root) {
    std::set<std::string> out;
    for (const auto& e : stdfs::recursive_directory_iterator(root))
        if (!e.is_directory() || e.is_symlink()) out.insert(e.path().lexically_relative(root).string());
    return out;
}

// A payload as a pip install leaves it, plus what post-processing removes.
std::vector<std::string> payload(const stdfs::path& root) {
    std::vector<std::string> files = {"lib/python3.12/site-packages/pkg/__init__.py",
                                      "lib/python3.12/site-packages/pkg/mod.py",
                                      "lib/python3.12/site-packages/pkg/__pycache__/mod.cpython-312.pyc",
                                      "lib/python3.12/site-packages/pkg/__pycache__/mod.cpython-312.opt-1.pyc",
                                      "lib/python3.12/site-packages/pkg/old.pyo",
                                      "lib/python3.12/site-packages/pkg-1.0.dist-info/INSTALLER",
                                      "lib/python3.12/site-packages/pkg-1.0.egg-info",
                                      "bin/pkg-script",
                                      "bin/sub/helper",
                                      "bin/pkg-run",
                                      "share/info/dir",
                                      "share/doc/readme.txt"};
    for (const auto& f : files) put(root, f, f == "bin/pkg-script" ? "#!/usr/bin/env python\nprint(1)\n" : "x = 1\n");
    return files;
}

PythonFilesOptions options(PythonRules rules, types::NoArch noarch) {
    PythonFilesOptions o;
    o.rules = rules;
    o.noarch = noarch;
    auto ep = types::parse_entry_point("pkg-run = pkg.mod:main");
    REQUIRE(ep);
    o.entry_points = {*ep};
    o.entry_python = "/host/bin/python";
    return o;
}

}  // namespace

TEST_CASE("python_files: conda-build's noarch: python layout") {
    fs::TempDir tmp("sf-pyf");
    auto files = payload(tmp.path());
    auto r = python_files(tmp.path(), files, options(PythonRules::conda_build, types::NoArch::python));
    REQUIRE(r);
    const std::vector<std::string> want = {"python-scripts/helper", "python-scripts/pkg-script", "share/doc/readme.txt",
                                           "site-packages/pkg-1.0.dist-info/INSTALLER", "site-packages/pkg/__init__.py",
                                           "site-packages/pkg/mod.py"};
    CHECK(r->files == want);
    CHECK(tree(tmp.path()) == std::set<std::string>(want.begin(), want.end()));
    // The moved script keeps its mode; INSTALLER says conda (no newline, as post.py writes it).
    CHECK((stdfs::status(tmp.path() / "python-scripts/pkg-script").permissions() & stdfs::perms::owner_exec) ==
          stdfs::perms::none);
    CHECK(test::slurp(tmp.path() / "site-packages/pkg-1.0.dist-info/INSTALLER") == "conda");
    CHECK(!stdfs::exists(tmp.path() / "lib"));  // emptied directories go too
}

TEST_CASE("python_files: rattler-build's noarch: python layout keeps bin/'s subfolders") {
    fs::TempDir tmp("sf-pyf");
    auto files = payload(tmp.path());
    auto r = python_files(tmp.path(), files, options(PythonRules::rattler_build, types::NoArch::python));
    REQUIRE(r);
    const std::vector<std::string> want = {"python-scripts/pkg-script", "python-scripts/sub/helper", "share/doc/readme.txt",
                                           "site-packages/pkg-1.0.dist-info/INSTALLER", "site-packages/pkg/__init__.py",
                                           "site-packages/pkg/mod.py"};
    CHECK(r->files == want);
    CHECK(test::slurp(tmp.path() / "site-packages/pkg-1.0.dist-info/INSTALLER") == "conda\n");
}

TEST_CASE("python_files: a binary script in a noarch: python package is conda-build's error, not rattler-build's") {
    for (auto rules : {PythonRules::conda_build, PythonRules::rattler_build}) {
        fs::TempDir tmp("sf-pyf");
        put(tmp.path(), "bin/tool", std::string("\x7f" "ELF\x02\x01\x01\x00\xff\xfe", 10), 0755);
        put(tmp.path(), "lib/python3.12/site-packages/m.py", "x = 1\n");
        auto r = python_files(tmp.path(), {"bin/tool", "lib/python3.12/site-packages/m.py"},
                              options(rules, types::NoArch::python));
        if (rules == PythonRules::conda_build) {
            REQUIRE_FALSE(r);
            CHECK(r.error().message == "noarch: python package contains a binary script: bin/tool");
        } else {
            REQUIRE(r);
            CHECK(r->files == std::vector<std::string>{"python-scripts/tool", "site-packages/m.py"});
        }
    }
}

TEST_CASE("python_files: per-Python outputs get their entry points and lose .pyo, .opt-N.pyc and share/info/dir") {
    fs::TempDir tmp("sf-pyf");
    auto files = payload(tmp.path());
    auto o = options(PythonRules::conda_build, types::NoArch::none);  // no interpreter: nothing compiled
    auto r = python_files(tmp.path(), files, o);
    REQUIRE(r);
    std::set<std::string> got(r->files.begin(), r->files.end());
    CHECK(got.count("bin/pkg-run"));
    CHECK(got.count("lib/python3.12/site-packages/pkg/__pycache__/mod.cpython-312.pyc"));
    CHECK(got.count("lib/python3.12/site-packages/pkg-1.0.egg-info"));
    for (const char* gone : {"share/info/dir", "lib/python3.12/site-packages/pkg/old.pyo",
                             "lib/python3.12/site-packages/pkg/__pycache__/mod.cpython-312.opt-1.pyc"}) {
        CHECK_FALSE(got.count(gone));
        CHECK_FALSE(stdfs::exists(tmp.path() / gone));
    }
    CHECK(test::slurp(tmp.path() / "bin/pkg-run").rfind("#!/host/bin/python\n\n# -*- coding: utf-8 -*-\n", 0) == 0);
    CHECK((stdfs::status(tmp.path() / "bin/pkg-run").permissions() & stdfs::perms::all) == static_cast<stdfs::perms>(0775));
}

TEST_CASE("python_files: noarch: generic drops .pyc (conda-build) and writes entry points without a shebang") {
    fs::TempDir tmp("sf-pyf");
    auto files = payload(tmp.path());
    auto r = python_files(tmp.path(), files, options(PythonRules::conda_build, types::NoArch::generic));
    REQUIRE(r);
    std::set<std::string> got(r->files.begin(), r->files.end());
    CHECK_FALSE(got.count("lib/python3.12/site-packages/pkg/__pycache__/mod.cpython-312.pyc"));
    CHECK(test::slurp(tmp.path() / "bin/pkg-run").rfind("\n# -*- coding", 0) == 0);  // PY_TMPL alone
}

TEST_CASE("python_files: .py files compile with the host's python, except bin/ and skip_compile_pyc") {
    auto py = process::find_executable("python3", process::minimal_env()["PATH"]);
    if (!py) test::skip("needs a python3 on PATH");
    for (auto rules : {PythonRules::conda_build, PythonRules::rattler_build}) {
        fs::TempDir tmp("sf-pyf");
        std::vector<std::string> files = {"lib/python3/site-packages/a/one.py", "lib/python3/site-packages/a/skip_me.py",
                                          "bin/tool.py", "share/x/two.py"};
        for (const auto& f : files) put(tmp.path(), f, "VALUE = 1\n");
        auto o = options(rules, types::NoArch::none);
        o.entry_points.clear();
        o.python = *py;
        o.env = process::minimal_env();
        o.mtime = 1700000000;
        o.skip_compile = {"*/skip_me.py"};
        auto r = python_files(tmp.path(), files, o);
        REQUIRE(r);
        CHECK(r->warnings.empty());
        REQUIRE(r->compiled.size() == 2);
        std::set<std::string> got(r->files.begin(), r->files.end());
        for (const auto& c : r->compiled) {
            CHECK(got.count(c));
            CHECK(c.find("/__pycache__/") != std::string::npos);
        }
        CHECK(r->compiled[0].rfind("lib/python3/site-packages/a/__pycache__/one.", 0) == 0);
        CHECK(r->compiled[1].rfind("share/x/__pycache__/two.", 0) == 0);
        // The source's mtime is the package's, so the .pyc stays valid once installed.
        struct stat st{};
        REQUIRE(::stat((tmp.path() / files[0]).c_str(), &st) == 0);
        CHECK(st.st_mtime == 1700000000);
    }
}

TEST_CASE("python_files: conda-build's fix_shebang points bin/'s python scripts at the host python") {
    fs::TempDir tmp("sf-pyf");
    const std::string elf = std::string("\x7f" "ELF\x02\x01\x01\x00", 8) + "#!/x/python\n";
    std::map<std::string, std::string> in = {{"bin/a", "#!/old/prefix/bin/python\nprint(1)\n"},
                                             {"bin/b", "#!/usr/bin/python3\nprint(2)\n"},
                                             {"bin/c", "#!/usr/bin/env python\nprint(3)\n"},
                                             {"bin/d", elf},
                                             {"bin/e", "#!/x/pythonw -E\nrest"},
                                             {"share/f", "#!/x/python\n"}};
    std::vector<std::string> files;
    for (const auto& [rel, text] : in) {
        put(tmp.path(), rel, text, 0644);
        files.push_back(rel);
    }
    auto o = options(PythonRules::conda_build, types::NoArch::none);
    o.entry_points.clear();
    o.shebang_python = "/host/bin/python";
    auto mode = [&](const std::string& rel) {
        struct stat st{};
        ::stat((tmp.path() / rel).c_str(), &st);
        return st.st_mode & 0777;
    };
    SECTION("conda-build") {
        REQUIRE(python_files(tmp.path(), files, o));
        CHECK(test::slurp(tmp.path() / "bin/a") == "#!/host/bin/python\nprint(1)\n");
        CHECK(test::slurp(tmp.path() / "bin/b") == in["bin/b"]);  // python3: its pattern wants the name to end
        CHECK(test::slurp(tmp.path() / "bin/c") == in["bin/c"]);
        CHECK(test::slurp(tmp.path() / "bin/d") == elf);
        CHECK(test::slurp(tmp.path() / "bin/e") == "#!/host/bin/python\nrest");  // the whole line, arguments too
        CHECK(test::slurp(tmp.path() / "share/f") == in["share/f"]);
        // Every text file in bin/ becomes 0775; the ELF file and share/ keep theirs.
        for (const char* rel : {"bin/a", "bin/b", "bin/c", "bin/e"}) CHECK(mode(rel) == 0775);
        CHECK(mode("bin/d") == 0644);
        CHECK(mode("share/f") == 0644);
    }
    SECTION("rattler-build leaves them") {
        o.rules = PythonRules::rattler_build;
        o.shebang_python.clear();
        REQUIRE(python_files(tmp.path(), files, o));
        CHECK(test::slurp(tmp.path() / "bin/a") == in["bin/a"]);
        CHECK(mode("bin/a") == 0644);
    }
}

TEST_CASE("link_json: conda-build sorts keys and writes every noarch, rattler-build only noarch: python") {
    auto ep = types::parse_entry_point("tool = pkg.cli:main");
    REQUIRE(ep);
    CHECK(link_json(types::NoArch::python, {*ep}, PythonRules::conda_build) ==
          "{\n  \"noarch\": {\n    \"entry_points\": [\n      \"tool = pkg.cli:main\"\n    ],\n    \"type\": \"python\"\n  },\n"
          "  \"package_metadata_version\": 1\n}");
    CHECK(link_json(types::NoArch::python, {}, PythonRules::conda_build) ==
          "{\n  \"noarch\": {\n    \"type\": \"python\"\n  },\n  \"package_metadata_version\": 1\n}");
    CHECK(link_json(types::NoArch::generic, {*ep}, PythonRules::conda_build) ==
          "{\n  \"noarch\": {\n    \"type\": \"generic\"\n  },\n  \"package_metadata_version\": 1\n}");
    CHECK(link_json(types::NoArch::none, {*ep}, PythonRules::conda_build).empty());
    CHECK(link_json(types::NoArch::python, {*ep}, PythonRules::rattler_build) ==
          "{\n  \"noarch\": {\n    \"type\": \"python\",\n    \"entry_points\": [\n      \"tool = pkg.cli:main\"\n    ]\n  },\n"
          "  \"package_metadata_version\": 1\n}");
    CHECK(link_json(types::NoArch::generic, {}, PythonRules::rattler_build).empty());
}
