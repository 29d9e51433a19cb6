#include <catch2/catch.hpp>

#include "testskip.hpp"

#include <algorithm>

#include "env/provider.hpp"
#include "testutil.hpp"
#include "util/strings.hpp"

using namespace sf;
namespace stdfs = std::filesystem;

TEST_CASE("system map: the built-in table", "[env][provider]") {
    auto m = env::default_system_map();
    REQUIRE(m.find("cmake"));
    CHECK(m.find("cmake")->kind == env::MapKind::tool);
    REQUIRE(m.find("gxx_linux-64"));
    CHECK(m.find("gxx_linux-64")->var == "CXX");
    REQUIRE(m.find("mkl-devel"));
    CHECK(m.find("mkl-devel")->kind == env::MapKind::library);
    CHECK(m.find("cuda-nvcc_linux-64")->var == "NVCC");
    CHECK(m.find("sysroot_linux-64")->kind == env::MapKind::ignore);
    CHECK_FALSE(m.find("numpy"));
}

TEST_CASE("system map: compilers and sysroots export what conda-forge's packages export", "[env][provider]") {
    auto m = env::default_system_map();
    auto strong = [&](const std::string& name, const std::string& spec) {
        const env::MapEntry* e = m.find(name);
        REQUIRE(e);
        const types::RunExports* re = e->run_exports_for(spec);
        return re ? re->strong : std::vector<std::string>{"<none>"};
    };
    // build-real's published packages: yaml (gcc 9, 2021), fmt (gxx 10), spdlog (gxx 11), gtest (gxx 12).
    CHECK(strong("gcc_linux-64", "gcc_linux-64 9.*") == std::vector<std::string>{"libgcc-ng >=9.4.0"});
    CHECK(strong("gxx_linux-64", "gxx_linux-64 10.*") == std::vector<std::string>{"libstdcxx-ng >=12", "libgcc-ng >=12"});
    CHECK(strong("gxx_linux-64", "gxx_linux-64 11.*") == std::vector<std::string>{"libstdcxx-ng >=12", "libgcc-ng >=12"});
    CHECK(strong("gcc_linux-64", "gcc_linux-64 12.3.0") == std::vector<std::string>{"libgcc-ng >=12"});
    CHECK(strong("gcc_linux-64", "gcc_linux-64 13.*") == std::vector<std::string>{"libgcc-ng >=13"});
    CHECK(strong("gcc_linux-64", "gcc_linux-64 14.*") == std::vector<std::string>{"libgcc >=14"});  // the 2024 rename
    CHECK(strong("sysroot_linux-64", "sysroot_linux-64 2.17.*") == std::vector<std::string>{"__glibc >=2.17,<3.0.a0"});
    CHECK(strong("gcc_linux-64", "gcc_linux-64 1.*") == std::vector<std::string>{"<none>"});  // "1" is no prefix of "12"
    CHECK(strong("gcc_linux-64", "gcc_linux-64") == std::vector<std::string>{"<none>"});
    CHECK(m.find("libgcc-ng")->kind == env::MapKind::ignore);  // the runtime: met by the host

    // The post-2024 names for a gcc 12 build: a --system-map row.
    REQUIRE(env::extend_system_map(m, "gcc_linux-64: {tool: [gcc], var: CC, run_exports: {'12': {strong: [libgcc >=12]}}}",
                                   "mine.yaml"));
    CHECK(strong("gcc_linux-64", "gcc_linux-64 12.*") == std::vector<std::string>{"libgcc >=12"});
    auto bad = env::extend_system_map(m, "gcc_linux-64: {tool: [gcc], run_exports: {'12': {heavy: [x]}}}", "bad.yaml");
    REQUIRE_FALSE(bad);
    CHECK(bad.error().message.find("unknown list 'heavy'") != std::string::npos);
}

TEST_CASE("system map: compilers set what conda-forge's activation scripts set", "[env][provider]") {
    auto m = env::default_system_map();
    const env::MapEntry* gcc = m.find("gcc_linux-64");
    REQUIRE(gcc);
    auto a = gcc->activation_for("gcc_linux-64 12.*");
    // activate-gcc.sh with build_scripts.sh's linux-64 flags (CONDA_BUILD=1).
    CHECK(a.at("HOST") == "x86_64-conda-linux-gnu");
    CHECK(a.at("BUILD") == "x86_64-conda-linux-gnu");
    CHECK(a.at("build_alias") == a.at("host_alias"));  // configure: not a cross build
    CHECK(a.at("CPPFLAGS") == "-DNDEBUG -D_FORTIFY_SOURCE=2 -O2 -isystem ${PREFIX}/include");
    CHECK(a.at("LDFLAGS").find("-Wl,-rpath,${PREFIX}/lib -Wl,-rpath-link,${PREFIX}/lib -L${PREFIX}/lib") !=
          std::string::npos);
    CHECK(a.at("CFLAGS").find("-march=nocona -mtune=haswell") == 0);
    CHECK(a.at("CFLAGS").find("-fno-merge-constants") == std::string::npos);
    CHECK(gcc->activation_for("gcc_linux-64 15.*").at("CFLAGS").find("-fno-merge-constants") != std::string::npos);
    CHECK(gcc->activation_for("gcc_linux-64 15.*").at("HOST") == "x86_64-conda-linux-gnu");  // "*" under the row
    const env::MapEntry* gxx = m.find("gxx_linux-64");
    REQUIRE(gxx);
    CHECK(gxx->with == std::vector<std::string>{"gcc_linux-64"});
    CHECK(gxx->activation_for("gxx_linux-64 10.*").at("CXXFLAGS").find("-std=c++17") != std::string::npos);
    CHECK(gxx->activation_for("gxx_linux-64 11.*").at("CXXFLAGS").find("-std=c++17") == std::string::npos);

    // --system-map replaces an entry's table as it replaces the rest of it.
    REQUIRE(env::extend_system_map(m, "gcc_linux-64: {tool: [gcc], var: CC, activate: {'*': {CFLAGS: -O1}}}", "my.yaml"));
    CHECK(m.find("gcc_linux-64")->activation_for("gcc_linux-64 12.*") ==
          std::map<std::string, std::string>{{"CFLAGS", "-O1"}});
    auto bad = env::extend_system_map(m, "gcc_linux-64: {tool: [gcc], activate: {'*': {CFLAGS: [a]}}}", "bad.yaml");
    REQUIRE_FALSE(bad);
    CHECK(bad.error().str().find("bad.yaml:1") == 0);
    CHECK(bad.error().message.find("CFLAGS: expected a string") != std::string::npos);
}

TEST_CASE("system map: user files add and override entries", "[env][provider]") {
    auto m = env::default_system_map();
    REQUIRE(env::extend_system_map(m, "numpy: {library: [libnumpy-stub.so]}\ncmake: {tool: [cmake3, cmake]}\n", "my.yaml"));
    REQUIRE(m.find("numpy"));
    CHECK(m.find("numpy")->origin.str() == "my.yaml:1");
    CHECK(m.find("cmake")->candidates == std::vector<std::string>{"cmake3", "cmake"});

    SECTION("errors name the file and line") {
        auto bad = env::extend_system_map(m, "ok: {tool: [x]}\nbroken: {frob: [y]}\n", "bad.yaml");
        REQUIRE_FALSE(bad);
        CHECK(bad.error().str().find("bad.yaml:2") == 0);
        CHECK_FALSE(env::extend_system_map(m, "- a\n- b\n", "list.yaml"));
        CHECK_FALSE(env::extend_system_map(m, "x: {tool: []}\n", "empty.yaml"));
    }
}

TEST_CASE("system map: find_on_host looks tools up on PATH", "[env][provider]") {
    fs::TempDir tmp("sf-provider");
    stdfs::create_directories(tmp.path() / "bin");
    fs::write_file_atomic(tmp.path() / "bin/mytool", "#!/bin/sh\n");
    stdfs::permissions(tmp.path() / "bin/mytool", stdfs::perms::owner_all);
    env::MapEntry e{"mytool-pkg", env::MapKind::tool, {"nope-tool", "mytool"}, "", {"t.yaml", 3}};
    process::Env penv{{"PATH", (tmp.path() / "bin").string()}};
    auto hit = env::find_on_host(e, penv);
    REQUIRE(hit);
    CHECK(hit->path == tmp.path() / "bin/mytool");
    e.candidates = {"nope-tool"};
    auto miss = env::find_on_host(e, penv);
    REQUIRE_FALSE(miss);
    CHECK(miss.error().message.find("'mytool-pkg'") != std::string::npos);
}

TEST_CASE("system provider: an unknown requirement suggests the external provider", "[env][provider]") {
    fs::TempDir tmp("sf-provider");
    env::ProviderContext ctx;
    ctx.env = process::minimal_env();
    ctx.map = env::default_system_map();
    auto p = env::make_provider(env::ProviderKind::system, ctx);
    auto r = p->create({tmp.path() / "prefix", env::EnvRole::host, {"libfrobnicate 1.0"}, {}, ""});
    REQUIRE_FALSE(r);
    CHECK(r.error().message.find("'libfrobnicate 1.0'") != std::string::npos);
    CHECK(r.error().hint.find("--env-provider micromamba") != std::string::npos);

    SECTION("mapped tools land on PATH and in CC/CXX") {
        auto ok = p->create({tmp.path() / "prefix", env::EnvRole::build, {"cmake", "gcc_linux-64 12.*"}, {}, ""});
        REQUIRE(ok);
        CHECK(ok->vars.count("CC"));
        CHECK(ok->from_host.size() == 2);
        CHECK(ok->from_host.back().find("gcc_linux-64 12.* -> ") == 0);
        CHECK(ok->from_host.back().find(" (gcc ") != std::string::npos);  // the host compiler's version
        // The activation's tools name the host's: GCC is the gcc found, CPP its cpp.
        CHECK(ok->activation.at("GCC") == ok->vars.at("CC"));
        CHECK(ok->activation.at("HOST") == "x86_64-conda-linux-gnu");
        if (ok->activation.count("CPP")) CHECK(stdfs::exists(ok->activation.at("CPP")));
        auto cxx = p->create({tmp.path() / "prefix", env::EnvRole::build, {"gxx_linux-64 12.*"}, {}, ""});
        REQUIRE(cxx);
        CHECK(cxx->activation.count("CFLAGS"));  // gcc's, which gxx_linux-64 brings in
        CHECK(cxx->activation.count("CXXFLAGS"));
        CHECK(cxx->activation.at("GXX") == cxx->vars.at("CXX"));
        auto other = p->create({tmp.path() / "prefix", env::EnvRole::build, {"gcc_linux-64 99.*"}, {}, ""});
        REQUIRE(other);
        REQUIRE(other->warnings.size() == 1);
        CHECK(other->warnings[0].find("[host-compiler-version]") != std::string::npos);
        // No glibc is older than 2.12: the host's is newer than the sysroot asked for.
        auto sysroot = p->create({tmp.path() / "prefix", env::EnvRole::build, {"sysroot_linux-64 2.12.*"}, {}, ""});
        REQUIRE(sysroot);
        REQUIRE(sysroot->warnings.size() == 1);
        CHECK(sysroot->warnings[0].find("[host-glibc-version]") != std::string::npos);
        CHECK(sysroot->run_exports.at("sysroot_linux-64").strong == std::vector<std::string>{"__glibc >=2.12,<3.0.a0"});
        REQUIRE(ok->run_exports.count("gcc_linux-64"));
        CHECK(ok->run_exports.at("gcc_linux-64").strong == std::vector<std::string>{"libgcc-ng >=12"});
        CHECK_FALSE(ok->path_dirs.empty());
        CHECK(stdfs::is_directory(tmp.path() / "prefix/bin"));
    }
    SECTION("a python version the requirement names wins over the variant's") {
        // The megabuild's libtorch: host `python 3.12` in a per-Python variant.
        ctx.pythons = env::discover_pythons(ctx.env);
        if (ctx.pythons.size() < 2) test::skip("needs two Python interpreters with headers");
        std::string named = ctx.pythons.rbegin()->first, variant = ctx.pythons.begin()->first;
        auto q = env::make_provider(env::ProviderKind::system, ctx);
        auto py = q->create({tmp.path() / "prefix", env::EnvRole::host, {"python " + named}, {}, variant});
        REQUIRE(py);
        REQUIRE(py->python);
        CHECK(py->python->minor == named);
        CHECK(stdfs::exists(tmp.path() / "prefix/bin" / ("python" + named)));
        auto bare = q->create({tmp.path() / "prefix", env::EnvRole::host, {"python"}, {}, variant});
        REQUIRE(bare);
        CHECK(bare->python->minor == variant);
    }
    SECTION("python without an interpreter of that version") {
        auto py = p->create({tmp.path() / "prefix", env::EnvRole::host, {"python 3.99"}, {}, ""});
        REQUIRE_FALSE(py);
        CHECK(py.error().message.find("python 3.99") != std::string::npos);
    }
}

TEST_CASE("external provider: exact command lines", "[env][provider]") {
    auto a = env::external_create_argv(env::ProviderKind::micromamba, "", "/p", {"/ch", "conda-forge"},
                                       {"python 3.12.*", "cmake"});
    REQUIRE(a);
    CHECK(*a == std::vector<std::string>{"micromamba", "create", "-y", "-p", "/p", "-c", "/ch", "-c", "conda-forge",
                                         "--override-channels", "python 3.12.*", "cmake"});
    auto c = env::external_create_argv(env::ProviderKind::conda, "/opt/conda/bin/conda", "/p", {"x"}, {"a"});
    REQUIRE(c);
    CHECK(c->front() == "/opt/conda/bin/conda");
    auto pixi = env::external_create_argv(env::ProviderKind::pixi, "", "/p", {}, {"a"});
    REQUIRE_FALSE(pixi);
    CHECK(pixi.error().hint.find("micromamba") != std::string::npos);
    CHECK_FALSE(env::parse_provider("spack"));
    CHECK(env::parse_provider("mamba").value() == env::ProviderKind::mamba);
}

TEST_CASE("external provider: runs the tool and reads run_exports back", "[env][provider]") {
    fs::TempDir tmp("sf-provider");
    env::ProviderContext ctx;
    ctx.env = process::minimal_env();
    ctx.env["FAKE_LOG"] = (tmp.path() / "argv.txt").string();
    ctx.channels = {tmp.path() / "channel"};
    ctx.channel_urls = {"conda-forge"};
    ctx.tool = (test::data_dir() / "engine/fake/fake-micromamba.sh").string();
    ctx.on_line = [](const std::string&) {};
    auto p = env::make_provider(env::ProviderKind::micromamba, ctx);
    stdfs::path prefix = tmp.path() / "host";
    auto r = p->create({prefix, env::EnvRole::host, {"libfoo 1.2.*", "zlib"}, {}, ""});
    REQUIRE(r);
    auto argv = str::split_lines(test::slurp(tmp.path() / "argv.txt"));
    CHECK(argv == std::vector<std::string>{"create", "-y", "-p", prefix.string(), "-c",
                                           "file://" + (tmp.path() / "channel").string(), "-c", "conda-forge",
                                           "--override-channels", "libfoo 1.2.*", "zlib"});
    REQUIRE(r->run_exports.count("libfoo"));
    CHECK(r->run_exports["libfoo"].weak == std::vector<std::string>{"libfoo >=1.2.3,<1.3.0a0"});
    CHECK(r->run_exports["libfoo"].strong == std::vector<std::string>{"libfoo-rt >=1.2"});
}

// conda-build indexes the package under test into its local channel and
// searches that first; an external solver finds a package only in a channel.
TEST_CASE("external provider: a test env takes the package from its channel, searched first", "[env][provider]") {
    fs::TempDir tmp("sf-provider");
    env::ProviderContext ctx;
    ctx.env = process::minimal_env();
    ctx.env["FAKE_LOG"] = (tmp.path() / "argv.txt").string();
    ctx.channels = {tmp.path() / "out", tmp.path() / "deps"};
    ctx.channel_urls = {"conda-forge"};
    ctx.tool = (test::data_dir() / "engine/fake/fake-micromamba.sh").string();
    ctx.on_line = [](const std::string&) {};
    auto p = env::make_provider(env::ProviderKind::conda, ctx);
    stdfs::path prefix = tmp.path() / "test_env";
    env::EnvSpec spec{prefix, env::EnvRole::test, {"bash"}, {tmp.path() / "pkgs/sf-app-2.0-h1a2b3c4_0.conda"}, "", {}};
    SECTION("with its channel: that one first, as a file:// URL") {
        spec.package_channel = tmp.path() / "test-channel";
        REQUIRE(p->create(spec));
        auto argv = str::split_lines(test::slurp(tmp.path() / "argv.txt"));
        CHECK(argv == std::vector<std::string>{"create", "-y", "-p", prefix.string(),
                                               "-c", "file://" + (tmp.path() / "test-channel").string(),
                                               "-c", "file://" + (tmp.path() / "out").string(),
                                               "-c", "file://" + (tmp.path() / "deps").string(),
                                               "-c", "conda-forge", "--override-channels", "bash",
                                               "sf-app 2.0 h1a2b3c4_0"});
    }
    SECTION("without one: an error before the tool runs") {
        auto r = p->create(spec);
        REQUIRE_FALSE(r);
        CHECK(r.error().message.find("sf-app-2.0-h1a2b3c4_0.conda") != std::string::npos);
        CHECK_FALSE(stdfs::exists(tmp.path() / "argv.txt"));
    }
}

TEST_CASE("parse_run_exports: dict and legacy list", "[env][provider]") {
    auto d = env::parse_run_exports(R"({"weak": ["a >=1"], "strong_constrains": ["b <2"]})");
    CHECK(d.weak == std::vector<std::string>{"a >=1"});
    CHECK(d.strong_constrains == std::vector<std::string>{"b <2"});
    auto l = env::parse_run_exports(R"(["c"])");
    CHECK(l.weak == std::vector<std::string>{"c"});
    CHECK(env::parse_run_exports("not json").empty());
}

TEST_CASE("external provider: the tool inherits the user's solver settings, under splitforge's", "[env][provider]") {
    process::Env user = {{"CONDA_PKGS_DIRS", "/u/pkgs"}, {"CONDARC", "/u/condarc"}, {"MAMBA_ROOT_PREFIX", "/u/mamba"},
                         {"PIXI_CACHE_DIR", "/u/pixi"}, {"HTTPS_PROXY", "http://proxy:3128"},
                         {"CONDA_PREFIX", "/u/active"}, {"CONDA_SHLVL", "1"}, {"CONDA_PREFIX_1", "/u/base"},
                         {"EDITOR", "vi"}, {"PATH", "/u/bin"}};
    auto cfg = env::user_tool_config(user);
    CHECK(cfg == process::Env{{"CONDARC", "/u/condarc"}, {"CONDA_PKGS_DIRS", "/u/pkgs"},
                              {"HTTPS_PROXY", "http://proxy:3128"}, {"MAMBA_ROOT_PREFIX", "/u/mamba"},
                              {"PIXI_CACHE_DIR", "/u/pixi"}});

    fs::TempDir tmp("sf-provider");
    env::ProviderContext ctx;
    ctx.env = process::minimal_env();
    ctx.env["FAKE_LOG"] = (tmp.path() / "argv.txt").string();
    ctx.env["FAKE_ENV_LOG"] = (tmp.path() / "env.txt").string();
    ctx.user_config = cfg;
    ctx.user_config["PATH"] = "/u/bin";  // splitforge's PATH wins
    ctx.tool = (test::data_dir() / "engine/fake/fake-micromamba.sh").string();
    ctx.on_line = [](const std::string&) {};
    auto r = env::make_provider(env::ProviderKind::micromamba, ctx)->create({tmp.path() / "host", env::EnvRole::host, {"zlib"}, {}, ""});
    REQUIRE(r);
    auto lines = str::split_lines(test::slurp(tmp.path() / "env.txt"));
    auto has = [&](const std::string& l) { return std::find(lines.begin(), lines.end(), l) != lines.end(); };
    CHECK(has("CONDA_PKGS_DIRS=/u/pkgs"));
    CHECK(has("CONDARC=/u/condarc"));
    CHECK(has("MAMBA_ROOT_PREFIX=/u/mamba"));
    CHECK(has("PATH=" + ctx.env["PATH"]));
    CHECK_FALSE(has("PATH=/u/bin"));
}

TEST_CASE("discover_pythons: only the interpreters asked for are run", "[env][provider]") {
    fs::TempDir tmp("sf-pythons");
    stdfs::create_directories(tmp.path() / "bin");
    // Fake interpreters answering the probe; each leaves a mark when run.
    for (const char* minor : {"3.11", "3.12"}) {
        stdfs::path exe = tmp.path() / "bin" / (std::string("python") + minor);
        REQUIRE(fs::write_file_atomic(exe, "#!/bin/sh\ntouch \"$0.ran\"\nprintf '%s\\n' " + std::string(minor) + " " +
                                               minor + ".0 \"$0\" /opt/py 1\n"));
        stdfs::permissions(exe, stdfs::perms::owner_all);
    }
    process::Env penv{{"PATH", (tmp.path() / "bin").string() + ":/usr/bin:/bin"}, {"HOME", tmp.path().string()}};
    auto some = env::discover_pythons(penv, {"3.12"});
    CHECK(some.size() == 1);
    CHECK(some.count("3.12"));
    CHECK_FALSE(stdfs::exists(tmp.path() / "bin/python3.11.ran"));  // never run
    auto every = env::discover_pythons(penv);
    CHECK(every.count("3.11"));
    CHECK(every.count("3.12"));
}
