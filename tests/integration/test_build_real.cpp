// End-to-end: ../shared/build-real's 8 real conda-forge feedstocks built from
// their unmodified recipes, offline (sources from the shipped cache, tools
// from Debian), then compared with what conda-forge published (its
// compare.py: names, versions, build strings, depends with the compilers'
// run_exports, constrains, file lists, passing tests). Slow: its own binary
// test_build_real, labelled `slow`. The second case takes every requirement
// from a channel: the forge (tests/data/forge, issue 33).
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <set>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "nginx.hpp"
#include "peer.hpp"
#include "process/process.hpp"
#include "testutil.hpp"
#include "util/fs.hpp"
#include "util/strings.hpp"

namespace stdfs = std::filesystem;
using namespace sf;

namespace {

// fmt before spdlog: spdlog's host needs fmt from the output folder.
const char* const kCases[] = {"fmt", "spdlog", "lz4-c", "yaml", "yaml-cpp", "gtest", "libdeflate", "benchmark"};

// The environment the builds run in: a copy of the shipped source cache
// (splitforge writes lock files into it) as SPLITFORGE_CACHE.
process::Env cache_env(const stdfs::path& corpus, const stdfs::path& cache) {
    REQUIRE(fs::copy_tree(corpus / "sources", cache / "src"));
    process::Env env = process::current_env();
    env["SPLITFORGE_CACHE"] = cache.string();
    return env;
}

// compare.py on the output folder: every published output matches.
void check_compare(const stdfs::path& corpus, const stdfs::path& out) {
    process::Command cmp{{"python3", (corpus / "compare.py").string(), out.string()}, {}, process::current_env(),
                         {}, {}, {}};
    auto res = process::capture(cmp);
    REQUIRE(res);
    INFO(res->out << res->err);
    CHECK(res->exit_code == 0);
    CHECK(res->out.find(" 0 failed") != std::string::npos);
}

}  // namespace

TEST_CASE("build-real: every case builds and matches what conda-forge published", "[build-real]") {
    const stdfs::path corpus = test::shared_dir() / "build-real";
    if (!stdfs::exists(corpus / "compare.py")) test::skip("../shared/build-real is not here");
    const process::Env env = process::current_env();
    if (!process::find_executable("python3", env.count("PATH") ? env.at("PATH") : ""))
        test::skip("python3 is not on PATH (compare.py needs it)");
    fs::TempDir tmp("sf-build-real");
    const stdfs::path out = tmp.path() / "out";
    const process::Env run_env = cache_env(corpus, tmp.path() / "cache");
    for (const char* fs : kCases) {
        const stdfs::path r = corpus / "recipes" / fs;
        process::Command c{{test::binary().string(), "build", (r / "recipe").string(), "-m",
                            (r / ".ci_support/linux_64_.yaml").string(), "--output-folder", out.string(), "-c",
                            out.string(), "--keep-going", "-q"},
                           {}, run_env, {}, {}, {}};
        auto res = process::capture(c);
        REQUIRE(res);
        INFO(fs << ": " << res->err);
        CHECK(res->exit_code == 0);
    }
    check_compare(corpus, out);
}

namespace {

// The programs a strace -f -e trace=execve log shows started.
std::set<std::string> execs_in(const stdfs::path& log) {
    std::set<std::string> out;
    std::ifstream in(log);
    for (std::string line; std::getline(in, line);) {
        auto at = line.find("execve(\"");
        if (at == std::string::npos || line.find(" = -1 ") != std::string::npos) continue;
        auto end = line.find('"', at + 8);
        if (end != std::string::npos) out.insert(line.substr(at + 8, end - at - 8));
    }
    return out;
}

// The forge's packages, built into the channel `forge`.
void build_forge(const stdfs::path& forge, const process::Env& env) {
    for (const char* r : {"runtimes", "tools", "compilers", "sysroot"}) {
        process::Command c{{test::binary().string(), "build", (test::data_dir() / "forge" / r).string(), "--output-folder",
                            forge.string(), "-q", "--compression-level", "3"},
                           {}, env, {}, {}, {}};
        auto res = process::capture(c);
        REQUIRE(res);
        INFO("forge " << r << ": " << res->err);
        REQUIRE(res->exit_code == 0);
    }
}

bool strace_works() {
    process::Command c{{"strace", "-f", "-qq", "-e", "trace=execve", "-o", "/dev/null", "true"},
                       {}, process::current_env(), {}, {}, {}};
    auto r = process::capture(c);
    return r && r->exit_code == 0;
}

// fmt's build under strace started the forge's x86_64-conda-linux-gnu-c++,
// never the host's gcc or g++ drivers.
void check_forge_compilers(const stdfs::path& trace) {
    auto execs = execs_in(trace);
    std::vector<std::string> host_drivers;
    bool forge_cxx = false;
    for (const auto& p : execs) {
        const std::string name = stdfs::path(p).filename().string();
        static const std::regex driver(R"((x86_64-linux-gnu-)?(gcc|g\+\+|cc|c\+\+)(-[0-9.]+)?)");
        if (str::starts_with(p, "/usr/") && std::regex_match(name, driver)) host_drivers.push_back(p);
        forge_cxx = forge_cxx || name == "x86_64-conda-linux-gnu-c++";
    }
    CHECK(host_drivers == std::vector<std::string>{});
    CHECK(forge_cxx);
}


// Every case built into <tmp>/out with `-c OUT` and `channel_args` (the
// forge and how to reach it): none stood in for by the host, nothing of the
// host exported as a package (the forge has them), compare.py passes, and
// fmt's build, under strace where it can run, uses the forge's compilers.
void build_from_forge(const stdfs::path& corpus, const stdfs::path& tmp, const process::Env& run_env,
                      const std::vector<std::string>& channel_args) {
    const stdfs::path out = tmp / "out";
    const bool traced = strace_works();
    if (!traced) WARN("strace cannot run here: fmt's execve check is left out");
    const stdfs::path trace = tmp / "fmt.strace";
    for (const char* fs : kCases) {
        const stdfs::path r = corpus / "recipes" / fs;
        std::vector<std::string> argv = {test::binary().string(), "build", (r / "recipe").string(), "-m",
                                         (r / ".ci_support/linux_64_.yaml").string(), "--output-folder", out.string(),
                                         "-c", out.string(), "--keep-going", "-q"};
        argv.insert(argv.end(), channel_args.begin(), channel_args.end());
        if (traced && std::string(fs) == "fmt")
            argv.insert(argv.begin(), {"strace", "-f", "-qq", "-e", "trace=execve", "-o", trace.string()});
        process::Command c{argv, {}, run_env, {}, {}, {}};
        auto res = process::capture(c);
        REQUIRE(res);
        INFO(fs << ": " << res->err);
        CHECK(res->exit_code == 0);
        CHECK(res->err.find("stand-in") == std::string::npos);
    }
    for (const auto& e : stdfs::directory_iterator(out / "linux-64"))
        CHECK_FALSE(str::ends_with(e.path().filename().string(), "_system.conda"));
    check_compare(corpus, out);
    if (traced) check_forge_compilers(trace);
}

}  // namespace

// Issue 33: with `-c OUT -c FORGE --no-system` nothing comes from the host's
// stand-ins: the compilers, cmake, make, ... are the forge's packages, set
// up by their activation scripts, and the libgcc-ng/libstdcxx-ng depends
// come from the forge compilers' run_exports. compare.py must pass as with
// the stand-ins; and fmt's build, under strace where it can run, starts the
// forge's x86_64-conda-linux-gnu-c++, never the host's gcc or g++ drivers.
TEST_CASE("build-real: with -c forge --no-system every case builds from the forge's toolchain and matches",
          "[build-real][forge]") {
    const stdfs::path corpus = test::shared_dir() / "build-real";
    if (!stdfs::exists(corpus / "compare.py")) test::skip("../shared/build-real is not here");
    fs::TempDir tmp("sf-build-real-forge");
    const stdfs::path forge = tmp.path() / "forge";
    const process::Env run_env = cache_env(corpus, tmp.path() / "cache");
    build_forge(forge, run_env);
    build_from_forge(corpus, tmp.path(), run_env, {"-c", forge.string(), "--no-system"});
}

// The same forge served by a real nginx: the build environments come over
// HTTP (repodata, then the packages, each fetched once into the cache), and
// the C cases match what conda-forge published.
TEST_CASE("build-real: the forge over HTTP from nginx: C cases build with --no-system and match",
          "[build-real][forge]") {
    const stdfs::path corpus = test::shared_dir() / "build-real";
    if (!stdfs::exists(corpus / "compare.py")) test::skip("../shared/build-real is not here");
    fs::TempDir tmp("sf-build-real-http");
    const stdfs::path out = tmp.path() / "out", www = tmp.path() / "www";
    process::Env run_env = cache_env(corpus, tmp.path() / "cache");
    run_env["SPLITFORGE_PKGS_DIR"] = (tmp.path() / "pkgs").string();
    build_forge(www / "forge", run_env);
    test::Nginx server(www);
    const char* const cases[] = {"yaml", "libdeflate", "lz4-c"};
    for (const char* fs : cases) {
        const stdfs::path r = corpus / "recipes" / fs;
        process::Command c{{test::binary().string(), "build", (r / "recipe").string(), "-m",
                            (r / ".ci_support/linux_64_.yaml").string(), "--output-folder", out.string(), "-c",
                            out.string(), "-c", server.url("/forge"), "--no-system", "-q"},
                           {}, run_env, {}, {}, {}};
        auto res = process::capture(c);
        REQUIRE(res);
        INFO(fs << ": " << res->err);
        CHECK(res->exit_code == 0);
        CHECK(res->err.find("stand-in") == std::string::npos);
    }
    // {{ stdlib('c') }}: the forge's sysroot, and its strong run_export.
    process::Command hello{{test::binary().string(), "build", (test::data_dir() / "forge-consumers/hello-stdlib").string(),
                            "--output-folder", out.string(), "-c", server.url("/forge"), "--no-system", "-q"},
                           {}, run_env, {}, {}, {}};
    auto built = process::capture(hello);
    REQUIRE(built);
    INFO(built->err);
    REQUIRE(built->exit_code == 0);
    auto rd = nlohmann::json::parse(test::slurp(out / "linux-64/repodata.json"));
    nlohmann::json depends;
    for (const char* key : {"packages", "packages.conda"})
        for (const auto& [fn, rec] : rd[key].items())
            if (rec["name"] == "hello-stdlib") depends = rec["depends"];
    INFO(depends.dump());
    CHECK(std::count(depends.begin(), depends.end(), "__glibc >=2.17,<3.0.a0") == 1);
    CHECK(std::any_of(depends.begin(), depends.end(), [](const nlohmann::json& d) {
        return str::starts_with(d.get<std::string>(), "libgcc-ng >=");
    }));
    // The toolchain came over HTTP, each package once; the rest was the cache.
    INFO(server.access_log());
    std::map<std::string, int> fetched;  // package file -> 200s
    for (const auto& h : server.hits()) {
        CHECK(h.status != 404);
        if (h.status == 200 && (str::ends_with(h.path, ".conda") || str::ends_with(h.path, ".tar.bz2"))) ++fetched[h.path];
    }
    int gcc = 0;
    for (const auto& [path, n] : fetched) {
        INFO(path);
        CHECK(n == 1);
        gcc += str::starts_with(path, "/forge/linux-64/gcc_linux-64-");
    }
    CHECK(gcc >= 1);
    process::Command cmp{{"python3", (corpus / "compare.py").string(), out.string(), "yaml", "libdeflate", "lz4-c"},
                         {}, process::current_env(), {}, {}, {}};
    auto res = process::capture(cmp);
    REQUIRE(res);
    INFO(res->out << res->err);
    CHECK(res->exit_code == 0);
    CHECK(res->out.find(" 0 failed") != std::string::npos);
}

// The same cases through `--env-provider conda`: the reference conda
// 24.11.2 (../shared/peer) makes every prefix from the forge, given as a
// file:// channel, and splitforge activates them as it does its own (the
// forge compilers' activate.d scripts set CC/CXX): compare.py passes, and
// fmt's build runs the forge's compiler driver.
TEST_CASE("build-real: through --env-provider conda with the forge as a file:// channel every case matches",
          "[build-real][forge][peer]") {
    const stdfs::path corpus = test::shared_dir() / "build-real";
    if (!stdfs::exists(corpus / "compare.py")) test::skip("../shared/build-real is not here");
    const stdfs::path peer = test::peer_root();
    fs::TempDir tmp("sf-build-real-conda");
    const stdfs::path forge = tmp.path() / "forge";
    process::Env run_env = cache_env(corpus, tmp.path() / "cache");
    build_forge(forge, run_env);
    for (const auto& [k, v] : test::peer_env(peer, tmp.path())) run_env[k] = v;
    build_from_forge(corpus, tmp.path(), run_env, {"-c", "file://" + forge.string(), "--env-provider", "conda"});
}
