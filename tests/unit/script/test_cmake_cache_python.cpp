#include <catch2/catch.hpp>

#include <algorithm>
#include <cstdlib>
#include <map>
#include <set>

#include "process/process.hpp"
#include "script/cmake_cache_python.hpp"
#include "testutil.hpp"
#include "util/strings.hpp"

using namespace sf;
using script::CMakeCache;

namespace {

namespace stdfs = std::filesystem;

CMakeCache sample() {
    auto c = CMakeCache::parse(test::slurp(test::data_dir() / "script" / "CMakeCache.python311.txt"));
    REQUIRE(c);
    return *c;
}

script::PythonFacts fake_312() {
    script::PythonFacts f;
    f.executable = "/opt/py312/bin/python3.12";
    f.version = "3.12.1";
    f.version_short = "3.12";
    f.include_dir = "/opt/py312/include/python3.12";
    f.ext_suffix = ".cpython-312-x86_64-linux-gnu.so";
    f.soabi = "cpython-312-x86_64-linux-gnu";
    f.library = "/opt/py312/lib/libpython3.12.so";
    f.prefix = "/opt/py312";
    f.site_packages = "/opt/py312/lib/python3.12/site-packages";
    f.stdlib = "/opt/py312/lib/python3.12";
    return f;
}

bool contains(const std::vector<std::string>& v, const std::string& s) {
    return std::find(v.begin(), v.end(), s) != v.end();
}

// Interpreters with distinct X.Y found on PATH or under pyenv; never hard-coded.
std::vector<stdfs::path> find_interpreters() {
    std::map<std::string, stdfs::path> by_version;
    std::vector<stdfs::path> roots;
    const char* pyenv_root = std::getenv("PYENV_ROOT");
    const char* home = std::getenv("HOME");
    if (pyenv_root) roots.push_back(stdfs::path(pyenv_root) / "versions");
    if (home) roots.push_back(stdfs::path(home) / ".pyenv" / "versions");
    std::vector<stdfs::path> dirs;
    for (const auto& r : roots) {
        std::error_code ec;
        for (const auto& d : stdfs::directory_iterator(r, ec)) dirs.push_back(d.path() / "bin");
    }
    const char* path = std::getenv("PATH");
    for (const auto& d : str::split(path ? path : "", ':'))
        if (!d.empty() && d.find("shims") == std::string::npos) dirs.push_back(d);
    for (int minor = 9; minor <= 13; ++minor) {
        std::string name = "python3." + std::to_string(minor);
        for (const auto& d : dirs) {
            std::error_code ec;
            if (stdfs::exists(d / name, ec)) {
                by_version.emplace(name, d / name);
                break;
            }
        }
    }
    std::vector<stdfs::path> out;
    for (const auto& [v, p] : by_version) out.push_back(p);
    return out;
}

}  // namespace

TEST_CASE("cmake_cache_python: retarget with known facts") {
    auto c = sample();
    auto rep = script::retarget_python(c, fake_312());

    SECTION("executables point at the new interpreter, types kept") {
        CHECK(c.get("Python_EXECUTABLE")->value == "/opt/py312/bin/python3.12");
        CHECK(c.get("Python_EXECUTABLE")->type == "UNINITIALIZED");
        CHECK(c.get("Python3_EXECUTABLE")->value == "/opt/py312/bin/python3.12");
        CHECK(c.get("PYTHON_EXECUTABLE")->value == "/opt/py312/bin/python3.12");
        CHECK(c.get("PYTHON_EXECUTABLE")->type == "FILEPATH");
        CHECK(contains(rep.changed, "PYTHON_EXECUTABLE"));
    }
    SECTION("paths and the module suffix follow the interpreter") {
        CHECK(c.get("PYTHON_INCLUDE_DIR")->value == "/opt/py312/include/python3.12");
        CHECK(c.get("PYTHON_LIBRARY")->value == "/opt/py312/lib/libpython3.12.so");
        CHECK(c.get("PYTHON_LIBRARY_DEBUG")->value == "PYTHON_LIBRARY_DEBUG-NOTFOUND");
        CHECK(c.get("PYTHON_MODULE_EXTENSION")->value == ".cpython-312-x86_64-linux-gnu.so");
        CHECK(c.get("PYTHON_MODULE_EXTENSION")->type == "INTERNAL");
    }
    SECTION("the finders' internal caches are dropped so they run again") {
        for (const auto& e : c.entries()) {
            CHECK_FALSE(str::starts_with(e.key, "_Python_"));
            CHECK_FALSE(str::starts_with(e.key, "_Python3_"));
            CHECK_FALSE(str::starts_with(e.key, "FIND_PACKAGE_MESSAGE_DETAILS_Py"));
        }
        CHECK_FALSE(c.get("PYBIND11_PYTHON_EXECUTABLE_LAST"));
        CHECK_FALSE(c.get("PYTHON_IS_DEBUG"));
        CHECK(contains(rep.dropped, "_Python_INTERPRETER_PROPERTIES"));
        CHECK(contains(rep.dropped, "PYBIND11_PYTHON_EXECUTABLE_LAST"));
    }
    SECTION("everything else is untouched, byte for byte") {
        auto before = str::split_lines(test::slurp(test::data_dir() / "script" / "CMakeCache.python311.txt"));
        auto after = str::split_lines(c.serialize());
        std::multiset<std::string> kept(after.begin(), after.end());
        for (const auto& line : before) {
            bool python_related = line.find("ython") != std::string::npos || line.find("PYTHON") != std::string::npos ||
                                  line.find("PYBIND11") != std::string::npos;
            if (!python_related && !line.empty() && line.rfind("//", 0) != 0) CHECK(kept.count(line) > 0);
        }
        CHECK(c.get("USE_MAGMA")->value == "OFF");
        CHECK(c.get("CMAKE_CXX_FLAGS")->value == "-O2 -g");
    }
    SECTION("entries that still name the old interpreter are reported") {
        CHECK(rep.stale == std::vector<std::string>{"TORCH_PYTHON_SITE"});
    }
    SECTION("retargeting again to the same interpreter changes nothing more") {
        std::string once = c.serialize();
        auto again = c;
        auto rep2 = script::retarget_python(again, fake_312());
        CHECK(rep2.changed.empty());
        CHECK(rep2.dropped.empty());
        CHECK(again.serialize() == once);
    }
    SECTION("an interpreter without a shared libpython drops the library entries") {
        auto d = sample();
        auto f = fake_312();
        f.library.clear();
        auto r = script::retarget_python(d, f);
        CHECK_FALSE(d.get("PYTHON_LIBRARY"));
        CHECK(contains(r.dropped, "PYTHON_LIBRARY"));
    }
}

TEST_CASE("cmake_cache_python: a cache with only FindPython's internal entries gets an executable hint") {
    auto c = CMakeCache::parse(
        "_Python_EXECUTABLE:INTERNAL=/usr/bin/python3\n"
        "_Python_INCLUDE_DIR:INTERNAL=/usr/include/python3.11\n"
        "OTHER:STRING=/usr/lib/python3.11/site-packages/foo\n");
    REQUIRE(c);
    auto rep = script::retarget_python(*c, fake_312());
    CHECK(c->get("Python_EXECUTABLE")->value == "/opt/py312/bin/python3.12");
    CHECK(c->get("Python_EXECUTABLE")->type == "FILEPATH");
    CHECK_FALSE(c->get("Python3_EXECUTABLE"));  // FindPython3 was never used here
    CHECK_FALSE(c->get("PYTHON_EXECUTABLE"));
    CHECK_FALSE(c->get("_Python_EXECUTABLE"));
    CHECK(rep.stale == std::vector<std::string>{"OTHER"});
}

TEST_CASE("cmake_cache_python: query_python errors") {
    SECTION("missing interpreter") {
        auto r = script::query_python("/nonexistent/python3.99", process::minimal_env());
        REQUIRE_FALSE(r);
        CHECK(r.error().message == "cannot run '/nonexistent/python3.99': no such file");
    }
    SECTION("not a python") {
        auto r = script::query_python("/bin/false", process::minimal_env());
        REQUIRE_FALSE(r);
        CHECK(str::starts_with(r.error().message, "'/bin/false' failed to report its configuration (exit 1)"));
    }
}

TEST_CASE("cmake_cache_python: live retarget between two interpreters, then CMake reconfigures", "[python]") {
    auto pys = find_interpreters();
    if (pys.size() < 2)
        test::skip("needs two Python 3.9-3.13 interpreters on PATH or under pyenv, found " +
                   std::to_string(pys.size()));
    // CMake builds splitforge itself (scripts/deps.sh installs it): its absence is a failure.
    auto cmake = process::find_executable("cmake", process::current_env()["PATH"]);
    INFO("cmake not on PATH (bash scripts/deps.sh installs it)");
    REQUIRE(cmake);
    auto a = script::query_python(pys[0], process::minimal_env());
    auto b = script::query_python(pys[1], process::minimal_env());
    REQUIRE(a);
    REQUIRE(b);
    REQUIRE(a->version_short != b->version_short);

    fs::TempDir dir("sf-retarget");
    REQUIRE(fs::write_file_atomic(dir.path() / "CMakeLists.txt",
                                  "cmake_minimum_required(VERSION 3.18)\n"
                                  "project(probe LANGUAGES NONE)\n"
                                  "find_package(Python COMPONENTS Interpreter Development)\n"
                                  "find_package(PythonInterp)\n"
                                  "find_package(PythonLibs)\n"
                                  "message(STATUS \"SF=${Python_VERSION}|${Python_INCLUDE_DIRS}|"
                                  "${PYTHON_VERSION_STRING}|${PYTHONLIBS_VERSION_STRING}\")\n"));
    process::Command configure;
    configure.argv = {cmake->string(), "-S", dir.path().string(), "-B", (dir.path() / "b").string(),
                      "-DPython_EXECUTABLE=" + a->executable.string(), "-DPYTHON_EXECUTABLE=" + a->executable.string()};
    configure.env = process::minimal_env();
    auto first = process::capture(configure);
    REQUIRE(first);
    REQUIRE(first->exit_code == 0);
    CHECK(first->out.find("SF=" + a->version + "|" + a->include_dir + "|" + a->version) != std::string::npos);

    auto cache_file = dir.path() / "b" / "CMakeCache.txt";
    auto edited = script::edit_cache_file(
        cache_file,
        [&](CMakeCache& c) -> Result<void> {
            auto r = script::retarget_python(c, pys[1]);
            if (!r) return fail(r.error().message);
            return {};
        },
        script::DryRun::no);
    REQUIRE(edited);
    CHECK(edited->find("+PYTHON_EXECUTABLE:FILEPATH=" + b->executable.string()) != std::string::npos);

    configure.argv.resize(5);  // reconfigure from the cache alone
    auto second = process::capture(configure);
    REQUIRE(second);
    REQUIRE(second->exit_code == 0);
    std::string expect = "SF=" + b->version + "|" + b->include_dir + "|" + b->version;
    if (!b->library.empty()) expect += "|" + b->version;
    INFO(second->out);
    CHECK(second->out.find(expect) != std::string::npos);
}
