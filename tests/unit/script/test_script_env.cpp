#include <catch2/catch.hpp>

#include <set>

#include "env/provider_map.hpp"
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
    // conda-forge's compiler activation: yaml-cpp ships *-targets-release.cmake only with it.
    CHECK(e.at("CMAKE_ARGS").find("-DCMAKE_BUILD_TYPE=Release") != std::string::npos);
    CHECK(e.at("CMAKE_ARGS").find("-DCMAKE_INSTALL_LIBDIR=lib") != std::string::npos);
    CHECK(e.at("CMAKE_ARGS").find("-DCMAKE_PROGRAM_PATH=/w/build_env/bin;/w/host_env_placehold/bin") !=
          std::string::npos);
    CHECK(e.at("CC") == "gcc");
    CHECK(e.at("CXX") == "g++");
    CHECK(e.at("NVCC") == "/usr/local/cuda/bin/nvcc");
    CHECK(e.at("CUDA_HOME") == "/usr/local/cuda");
    CHECK(e.at("SPLITFORGE") == "/opt/sf/splitforge");
    CHECK(e.at("HOME") == "/home/me");
    CHECK(e.at("LANG") == "C.UTF-8");
    CHECK(e.at("blas_impl") == "generic");
    // Build bin, host bin (conda-build's get_dict), tool dirs (deduplicated), then the system dirs.
    CHECK(e.at("PATH") ==
          "/w/build_env/bin:/w/host_env_placehold/bin:/usr/local/cuda/bin:/usr/bin:/usr/local/bin:/bin");
    // Nothing inherited from our own environment.
    CHECK(e.count("USER") == 0);
    CHECK(e.count("LD_LIBRARY_PATH") == 0);
}

TEST_CASE("script_env: no Python, no CUDA", "[build][script]") {
    auto c = demo_context("/w");
    c.py_ver.clear();
    c.tools.clear();
    c.versions.python = "3.11.* *_cpython";
    auto e = script::script_env(c);
    // conda-build sets the variant's PY_VER and SP_DIR without a Python; PYTHON only with one.
    CHECK(e.at("PY_VER") == "3.11");
    CHECK(e.at("CONDA_PY") == "311");
    CHECK(e.at("SP_DIR") == "/w/host_env_placehold/lib/python3.11/site-packages");
    CHECK(e.count("PYTHON") == 0);
    CHECK(e.count("NVCC") == 0);
    CHECK(e.count("CUDA_HOME") == 0);
}

TEST_CASE("script_env: recipe.yaml's build.script env is set last", "[build][script]") {
    auto c = demo_context("/w");
    c.variant["PYTORCH_BUILD_STAGE"] = "variant";
    c.script_env = {{"PYTORCH_BUILD_STAGE", "libtorch"}, {"PKG_NAME", "from-recipe"}};
    auto e = script::script_env(c);
    CHECK(e.at("PYTORCH_BUILD_STAGE") == "libtorch");
    CHECK(e.at("PKG_NAME") == "from-recipe");
    c.script_env.clear();
    CHECK(script::script_env(c).at("PYTORCH_BUILD_STAGE") == "variant");
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
    CHECK(r.error().kind == ErrorKind::runtime);  // the job failed: exit 1
    CHECK(std::find(lines.begin(), lines.end(), "never") == lines.end());

    script::ScriptRun missing;  // a script the recipe names and does not have: its error, exit 2
    missing.script = tmp.path() / "no-such-build.sh";
    missing.work = tmp.path();
    auto m = script::run_script(missing, c);
    REQUIRE_FALSE(m);
    CHECK(m.error().message == "the build script does not exist");
    CHECK(m.error().kind == ErrorKind::input);
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

namespace {

// The keys a script's `env` prints, less the shell's own (PWD, SHLVL, _, OLDPWD).
std::set<std::string> dumped_keys(const script::ScriptContext& c, const stdfs::path& work) {
    script::ScriptRun run;
    run.lines = {"env -0 > \"$TMPDIR/env.dump\""};
    run.work = work;
    run.on_line = [](const std::string&) {};
    REQUIRE(script::run_script(run, c));
    std::set<std::string> keys;
    std::string dump = test::slurp(work / "env.dump");
    for (const auto& entry : str::split(dump, '\0')) {
        auto eq = entry.find('=');
        if (eq != std::string::npos && eq > 0) keys.insert(entry.substr(0, eq));
    }
    for (const char* shell : {"PWD", "SHLVL", "_", "OLDPWD"}) keys.erase(shell);
    return keys;
}

// conda-build 24.11's environment on Linux (environ.py get_dict: conda_build_vars,
// python/perl/lua/r_vars, meta_vars, os_vars/unix_vars/linux_vars; build.py
// adds CONDA_BUILD_STATE and, for a build, _set_env_variables_for_build's
// PIP_*), for a recipe without python/perl/lua/R requirements or a git
// source, with nothing optional in the caller's environment (LC_ALL,
// MAKEFLAGS, SSL_CERT_FILE, CFLAGS, CXXFLAGS, LDFLAGS, DISPLAY, QEMU_*,
// DEJAGNU and LANG are passed on only when set: inherited_keys()). Checked
// against ../shared/peer's conda-build: `env` in a build.sh, an output script
// and a test printed these keys, plus conda's activation state (CONDA_SHLVL,
// CONDA_EXE, CONDA_PREFIX_1, CONDA_PROMPT_MODIFIER, CONDA_PYTHON_EXE, _CE_*),
// the variant's keys, and an output script's TOP_PKG_*, MSYS2_PATH_TYPE and
// CHERE_INVOKING.
std::set<std::string> conda_build_keys(script::Phase phase) {
    std::set<std::string> k = {
        "CONDA_BUILD", "PYTHONNOUSERSITE", "CONDA_DEFAULT_ENV", "ARCH", "PREFIX", "SYS_PREFIX", "SYS_PYTHON",
        "SUBDIR", "build_platform", "SRC_DIR", "HTTPS_PROXY", "HTTP_PROXY", "REQUESTS_CA_BUNDLE", "DIRTY", "ROOT",
        "CONDA_PY", "PY3K", "PY_VER", "STDLIB_DIR", "SP_DIR", "NPY_VER", "CONDA_NPY", "NPY_DISTUTILS_APPEND_FLAGS",
        "PERL_VER", "CONDA_PERL", "LUA_VER", "CONDA_LUA", "R_VER", "CONDA_R", "PKG_NAME", "PKG_VERSION",
        "PKG_BUILDNUM", "PKG_BUILD_STRING", "PKG_HASH", "RECIPE_DIR", "CPU_COUNT", "SHLIB_EXT", "PATH", "HOME",
        "PKG_CONFIG_PATH", "CMAKE_GENERATOR", "LD_RUN_PATH", "BUILD", "CONDA_BUILD_STATE",
        "CONDA_PREFIX",  // `conda activate` (the peer's dump: the last activated prefix)
        "BUILD_PREFIX",  // a test too: build.py test() recomputes get_dict after deleting it
    };
    if (phase == script::Phase::build)  // a test has no variant keys (the peer's dump)
        for (const char* b : {"target_platform", "PIP_NO_BUILD_ISOLATION", "PIP_NO_DEPENDENCIES",
                              "PIP_IGNORE_INSTALLED", "PIP_CACHE_DIR", "PIP_NO_INDEX"})
            k.insert(b);
    return k;
}

// Where splitforge's key set departs from conda-build's, and why:
//
// | key                         | conda-build                      | splitforge                                   |
// |-----------------------------|----------------------------------|----------------------------------------------|
// | SYS_PREFIX, SYS_PYTHON, ROOT| conda-build's own installation   | not set: there is no such installation       |
// | CONDA_SHLVL, CONDA_EXE,     | `conda activate` of the prefixes | not set (no conda); CONDA_PREFIX is set as   |
// | CONDA_PREFIX_1, _CE_*, ...  |                                  | activation sets it (build: BUILD_PREFIX)     |
// | variant keys                | every key of the variant         | the keys the output uses (hash inputs)       |
// | CMAKE_ARGS                  | set by the compiler packages'    | set whatever the build env holds; the        |
// |                             | activation scripts               | activation's host-tool subset (build only)   |
// | CC, CXX (no compiler in the | not set                          | gcc, g++ (build only)                        |
// | build requirements)         |                                  |                                              |
// | CFLAGS, CXXFLAGS, FFLAGS    | activation scripts, or inherited | -ffile-prefix-map flags, whatever the build  |
// |                             |                                  | env holds (build only)                       |
// | MESON_ARGS, CONDA_BUILD_    | activate-gcc.sh                  | not set: no meson cross file, no sysroot     |
// | SYSROOT, CMAKE_PREFIX_PATH's|                                  | in the host compiler (-print-sysroot empty)  |
// | sysroot                     |                                  |                                              |
// | SPLITFORGE                  | -                                | our binary (build only; cmake-cache edits)   |
// | LANG                        | inherited when set               | always C.UTF-8                               |
// | TMPDIR                      | inherited (whole os.environ)     | passed on when set                           |
// | the rest of os.environ      | inherited (tests: all of it)     | not passed: explicit environments            |
// | RECIPE_DIR in a test        | the package's info/recipe copy   | the recipe dir (`splitforge test`: info/recipe)|
const std::set<std::string> kOnlySplitforgeBuild = {"CC", "CXX", "CMAKE_ARGS", "CFLAGS", "CXXFLAGS", "FFLAGS",
                                                    "SPLITFORGE", "LANG", "TMPDIR"};
const std::set<std::string> kOnlyCondaBuild = {"SYS_PREFIX", "SYS_PYTHON", "ROOT"};

// What activate-gcc.sh and activate-g++.sh (ctng-compiler-activation-feedstock,
// linux-64, CONDA_BUILD=1) add to conda-build's environment.
const std::set<std::string> kCompilerActivation = {
    "HOST", "BUILD", "CONDA_TOOLCHAIN_HOST", "CONDA_TOOLCHAIN_BUILD", "CC", "CPP", "CC_FOR_BUILD", "CPP_FOR_BUILD",
    "GCC", "GCC_AR", "GCC_NM", "GCC_RANLIB", "CPPFLAGS", "CFLAGS", "LDFLAGS", "LDFLAGS_LD", "DEBUG_CPPFLAGS",
    "DEBUG_CFLAGS", "CMAKE_PREFIX_PATH", "CONDA_BUILD_CROSS_COMPILATION", "build_alias", "host_alias", "MESON_ARGS",
    "CMAKE_ARGS", "CONDA_BUILD_SYSROOT", "CXX", "CXX_FOR_BUILD", "GXX", "CXXFLAGS", "DEBUG_CXXFLAGS"};
const std::set<std::string> kActivationNotSet = {"MESON_ARGS", "CONDA_BUILD_SYSROOT"};

std::set<std::string> minus(std::set<std::string> a, const std::set<std::string>& b) {
    for (const auto& x : b) a.erase(x);
    return a;
}

}  // namespace

TEST_CASE("script_env: a build script's environment is conda-build's, less the documented differences",
          "[build][script]") {
    fs::TempDir tmp("sf-envdump");
    auto c = demo_context(tmp.path());
    c.py_ver.clear();
    c.tools.clear();
    c.tool_dirs.clear();
    c.variant = {{"target_platform", "linux-64"}};
    c.tmpdir = tmp.path().string();
    stdfs::create_directories(c.src_dir);
    auto got = dumped_keys(c, tmp.path());
    CHECK(minus(got, kOnlySplitforgeBuild) == minus(conda_build_keys(script::Phase::build), kOnlyCondaBuild));
    auto e = script::script_env(c);
    CHECK(e.at("SHLIB_EXT") == ".so");
    CHECK(e.at("CONDA_BUILD_STATE") == "BUILD");
    CHECK(e.at("PKG_BUILD_STRING") == "placeholder");  // the staging build: no output yet
    CHECK(e.at("SUBDIR") == "linux-64");
    CHECK(e.at("ARCH") == "64");
    CHECK(e.at("LD_RUN_PATH") == (c.prefix / "lib").string());
    CHECK(e.at("BUILD") == "x86_64-conda_cos6-linux-gnu");
    CHECK(e.at("NPY_VER") == "1.26");
    CHECK(e.at("PERL_VER") == "5.26");
}

// The activation the system provider hands over for gcc_linux-64 and
// gxx_linux-64 12.* on this host's tools.
std::map<std::string, std::string> host_compiler_activation() {
    auto m = env::default_system_map();
    std::map<std::string, std::string> a;
    for (const char* spec : {"gcc_linux-64 12.*", "gxx_linux-64 12.*"}) {
        const env::MapEntry* e = m.find(str::split(spec, ' ')[0]);
        REQUIRE(e);
        for (auto [k, v] : e->activation_for(spec)) {
            v = str::replace_all(str::replace_all(v, "${TOOL_DIR}", "/usr/bin"), "${TOOL}", "/usr/bin/gcc");
            a[k] = v;
        }
    }
    return a;
}

TEST_CASE("script_env: with compilers, a build script's environment is conda-build's with their activation",
          "[build][script]") {
    fs::TempDir tmp("sf-envdump");
    auto c = demo_context(tmp.path());
    c.py_ver.clear();
    c.tools = {{"CC", "/usr/bin/gcc"}, {"CXX", "/usr/bin/g++"}};
    c.tool_dirs.clear();
    c.variant = {{"target_platform", "linux-64"}};
    c.activation = host_compiler_activation();
    c.tmpdir = tmp.path().string();
    stdfs::create_directories(c.src_dir);
    auto got = dumped_keys(c, tmp.path());
    auto want = conda_build_keys(script::Phase::build);
    want.insert(kCompilerActivation.begin(), kCompilerActivation.end());
    const std::set<std::string> only_ours = {"FFLAGS", "SPLITFORGE", "LANG", "TMPDIR"};
    CHECK(minus(got, only_ours) == minus(minus(want, kOnlyCondaBuild), kActivationNotSet));

    auto e = script::script_env(c);
    CHECK(e.at("HOST") == "x86_64-conda-linux-gnu");
    CHECK(e.at("BUILD") == "x86_64-conda-linux-gnu");  // the activation's, over linux_vars' conda_cos6
    const std::string p = c.prefix.string();
    CHECK(e.at("CPPFLAGS") == "-DNDEBUG -D_FORTIFY_SOURCE=2 -O2 -isystem " + p + "/include");
    CHECK(e.at("LDFLAGS").find(" -Wl,-rpath," + p + "/lib -Wl,-rpath-link," + p + "/lib -L" + p + "/lib") !=
          std::string::npos);
    // The activation's flags go first, then what was there (the prefix maps).
    CHECK(e.at("CFLAGS").find("-march=nocona") == 0);
    CHECK(e.at("CFLAGS").find(" -ffile-prefix-map=" + c.src_dir.string()) != std::string::npos);
    CHECK(e.at("CXXFLAGS").find("-fvisibility-inlines-hidden") == 0);
    CHECK(e.at("CMAKE_PREFIX_PATH") == p);
    CHECK(e.at("GCC") == "/usr/bin/gcc");
    CHECK(e.at("CONDA_BUILD_CROSS_COMPILATION").empty());

    SECTION("flags the variant already sets stay after the activation's; a test gets none of it") {
        c.variant["LDFLAGS"] = "-Wl,--mine";
        c.variant["CMAKE_PREFIX_PATH"] = "/opt/x";
        auto v = script::script_env(c);
        CHECK(v.at("LDFLAGS").find("-Wl,-O2") == 0);
        CHECK(v.at("LDFLAGS").rfind(" -Wl,--mine") == v.at("LDFLAGS").size() - 11);
        CHECK(v.at("CMAKE_PREFIX_PATH") == p + ":/opt/x");
        c.phase = script::Phase::test;
        CHECK(script::script_env(c).count("HOST") == 0);
    }
}

TEST_CASE("script_env: a test script's environment is conda-build's test environment", "[build][script]") {
    fs::TempDir tmp("sf-envdump");
    auto c = demo_context(tmp.path());
    c.phase = script::Phase::test;
    c.py_ver.clear();
    c.tools.clear();
    c.tool_dirs.clear();
    c.variant.clear();
    c.tmpdir = tmp.path().string();
    c.pkg_build_string = "h1234abc_0";
    stdfs::create_directories(c.src_dir);
    auto got = dumped_keys(c, tmp.path());
    const std::set<std::string> only_ours = {"LANG", "TMPDIR"};
    CHECK(minus(got, only_ours) == minus(conda_build_keys(script::Phase::test), kOnlyCondaBuild));
    auto e = script::script_env(c);
    CHECK(e.at("SHLIB_EXT") == ".so");  // zlib's `test ! -f $PREFIX/lib/libz${SHLIB_EXT}` needs it
    CHECK(e.at("CONDA_BUILD_STATE") == "TEST");
    CHECK(e.at("CONDA_PREFIX") == c.prefix.string());
    CHECK(e.at("PKG_BUILD_STRING") == "h1234abc_0");
    CHECK(e.at("PATH").find("build_env") == std::string::npos);
}

TEST_CASE("script_env: proxies and CA bundles pass through as in conda-build", "[build][script]") {
    auto c = demo_context("/w");
    c.inherited = {{"HTTPS_PROXY", "http://proxy:3128"}, {"SSL_CERT_FILE", "/etc/ca.pem"}, {"USER", "me"}};
    auto e = script::script_env(c);
    CHECK(e.at("HTTPS_PROXY") == "http://proxy:3128");
    CHECK(e.at("HTTP_PROXY").empty());  // conda-build sets the three proxy keys even when empty
    CHECK(e.at("SSL_CERT_FILE") == "/etc/ca.pem");
    CHECK(e.count("USER") == 0);
    CHECK(e.count("LC_ALL") == 0);
}

TEST_CASE("script_env: variant keys become variables as in get_dict", "[build][script]") {
    auto c = demo_context("/w");
    c.variant = {{"blas_impl", "openblas"}, {"python", "3.12"}, {"numpy", "2.0"}, {"r", "4"},
                 {"prefix", "x"}, {"cpu_count", "99"}, {"c_compiler_version", "13"}};
    auto e = script::script_env(c);
    CHECK(e.at("blas_impl") == "openblas");
    CHECK(e.at("c_compiler_version") == "13");
    // environ.py LANGUAGES, and names get_dict sets itself (by upper case).
    for (const char* gone : {"python", "numpy", "r", "prefix", "cpu_count"}) CHECK(e.count(gone) == 0);
    CHECK(e.at("CPU_COUNT") == "2");

    // A test gets the package's hash_input as its variant (the engine passes it).
    c.phase = script::Phase::test;
    c.variant = {{"c_compiler_version", "13"}, {"target_platform", "noarch"}};
    auto t = script::script_env(c);
    CHECK(t.at("c_compiler_version") == "13");
    CHECK(t.at("target_platform") == "noarch");
}
