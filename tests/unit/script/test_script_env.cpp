#include <catch2/catch.hpp>

#include "script/script_env.hpp"
#include "testutil.hpp"
#include "util/strings.hpp"

using namespace sf;
namespace stdfs = std::filesystem;

namespace {
script::ScriptContext demo_context(const stdfs::path& root) {
    script::ScriptContext c;
    c.prefix = root / "host_env_placehold";
    c.build_prefix = root / "build_env";
    c.src_dir = root / "work";
    c.recipe_dir = root / "recipe";
    c.pkg_name = "pytorch";
    c.pkg_version = "0.3.0";
    c.pkg_buildnum = 200;
    c.pkg_hash = "h1234abc";
    c.py_ver = "3.12";
    c.cpu_count = 2;
    c.target_platform = *types::Platform::parse("linux-64");
    c.tools = {{"NVCC", "/usr/local/cuda/bin/nvcc"}, {"CUDA_HOME", "/usr/local/cuda"}};
    c.splitforge = "/opt/sf/splitforge";
    c.tool_dirs = {"/usr/local/cuda/bin", "/usr/bin"};
    c.home = "/home/me";
    c.variant = {{"blas_impl", "generic"}, {"PREFIX", "must-not-win"}};
    return c;
}
}  // namespace

TEST_CASE("script_env: exactly the documented variables", "[build][script]") {
    auto c = demo_context("/w");
    auto e = script::script_env(c);
    CHECK(e.at("PREFIX") == "/w/host_env_placehold");
    CHECK(e.at("BUILD_PREFIX") == "/w/build_env");
    CHECK(e.at("SRC_DIR") == "/w/work");
    CHECK(e.at("RECIPE_DIR") == "/w/recipe");
    CHECK(e.at("PKG_NAME") == "pytorch");
    CHECK(e.at("PKG_VERSION") == "0.3.0");
    CHECK(e.at("PKG_BUILDNUM") == "200");
    CHECK(e.at("PKG_HASH") == "h1234abc");
    CHECK(e.at("PY_VER") == "3.12");
    CHECK(e.at("PYTHON") == "/w/host_env_placehold/bin/python");
    CHECK(e.at("SP_DIR") == "/w/host_env_placehold/lib/python3.12/site-packages");
    CHECK(e.at("CPU_COUNT") == "2");
    CHECK(e.at("SHLIB_EXT") == ".so");
    CHECK(e.at("target_platform") == "linux-64");
    CHECK(e.at("build_platform") == "linux-64");
    CHECK(e.at("CMAKE_ARGS").find("-DCMAKE_INSTALL_PREFIX=/w/host_env_placehold") != std::string::npos);
    CHECK(e.at("CC") == "gcc");
    CHECK(e.at("CXX") == "g++");
    CHECK(e.at("NVCC") == "/usr/local/cuda/bin/nvcc");
    CHECK(e.at("CUDA_HOME") == "/usr/local/cuda");
    CHECK(e.at("SPLITFORGE") == "/opt/sf/splitforge");
    CHECK(e.at("HOME") == "/home/me");
    CHECK(e.at("LANG") == "C.UTF-8");
    CHECK(e.at("blas_impl") == "generic");
    // Host bin, build bin, tool dirs (deduplicated), then the system dirs.
    CHECK(e.at("PATH") ==
          "/w/host_env_placehold/bin:/w/build_env/bin:/usr/local/cuda/bin:/usr/bin:/usr/local/bin:/bin");
    // Nothing inherited from our own environment.
    CHECK(e.count("USER") == 0);
    CHECK(e.count("LD_LIBRARY_PATH") == 0);
}

TEST_CASE("script_env: no Python, no CUDA", "[build][script]") {
    auto c = demo_context("/w");
    c.py_ver.clear();
    c.tools.clear();
    auto e = script::script_env(c);
    CHECK(e.count("PY_VER") == 0);
    CHECK(e.count("PYTHON") == 0);
    CHECK(e.count("SP_DIR") == 0);
    CHECK(e.count("NVCC") == 0);
    CHECK(e.count("CUDA_HOME") == 0);
}

TEST_CASE("run_script: runs in SRC_DIR, masks paths in the log, names the failing script", "[build][script]") {
    fs::TempDir tmp("sf-script");
    auto c = demo_context(tmp.path());
    c.tool_dirs.clear();
    stdfs::create_directories(c.src_dir);
    stdfs::create_directories(c.prefix);
    script::ScriptRun run;
    run.lines = {"echo \"in $(pwd)\"", "echo \"prefix $PREFIX\"", "echo \"hash $PKG_HASH blas $blas_impl\""};
    run.work = tmp.path();
    run.log = tmp.path() / "logs/out.log";
    std::vector<std::string> lines;
    run.on_line = [&](const std::string& l) { lines.push_back(l); };
    REQUIRE(script::run_script(run, c));
    std::string log = test::slurp(run.log);
    CHECK(log.find("in $SRC_DIR") != std::string::npos);
    CHECK(log.find("prefix $PREFIX") != std::string::npos);
    CHECK(log.find("hash h1234abc blas generic") != std::string::npos);
    CHECK(log.find(tmp.path().string()) == std::string::npos);

    script::ScriptRun bad;
    bad.lines = {"echo before", "false", "echo never"};
    bad.work = tmp.path();
    bad.on_line = [&](const std::string& l) { lines.push_back(l); };
    auto r = script::run_script(bad, c);
    REQUIRE_FALSE(r);
    CHECK(r.error().message.find("build/script failed with exit code 1") != std::string::npos);
    CHECK(std::find(lines.begin(), lines.end(), "never") == lines.end());
}

TEST_CASE("script_env: prefix maps keep the work dir out of objects", "[build][script]") {
    auto c = demo_context("/w");
    c.source_name = "libtorch-split-0.3.0";
    auto e = script::script_env(c);
    const std::string maps = "-ffile-prefix-map=/w/work=/usr/local/src/conda/libtorch-split-0.3.0 "
                             "-ffile-prefix-map=/w/host_env_placehold=/usr/local/src/conda-prefix "
                             "-ffile-prefix-map=/w/build_env=/usr/local/src/conda-build-prefix";
    CHECK(e.at("CFLAGS") == maps);
    CHECK(e.at("CXXFLAGS") == maps);
    CHECK(e.at("FFLAGS") == maps);

    c.variant["CXXFLAGS"] = "-O3";
    CHECK(script::script_env(c).at("CXXFLAGS") == maps + " -O3");

    c.src_dir = "/w/my work";  // cannot travel in a space-separated variable
    auto spaced = script::script_env(c);
    CHECK(spaced.count("CFLAGS") == 0);
    CHECK(spaced.at("CXXFLAGS") == "-O3");
}
