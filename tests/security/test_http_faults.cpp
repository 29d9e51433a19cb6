// Channels over HTTP against a server that misbehaves (tests/data/
// faulty_http.py): a 500 then 200 is retried and succeeds; a stall times out
// (CONDA_REMOTE_READ_TIMEOUT_SECS), a truncated body and a 3 GiB
// Content-Length are refused, each in one line with a non-zero exit and no
// cache entry left behind. And `install --offline`: only the caches, one
// line naming what is missing.
#include <catch2/catch.hpp>

#include <chrono>

#include "cli_run.hpp"
#include "craft.hpp"
#include "faulty_http.hpp"
#include "testutil.hpp"
#include "util/fs.hpp"
#include "util/hash.hpp"

using namespace sf::test::craft;
using sf::test::CliRun;
using sf::test::FaultyHttp;
using sf::test::run_splitforge;

namespace {

Pkg hello() { return pkg_with("hello", {{"share/hello.txt", 'f', "hello over http\n"}}); }

// What a cache dir holds besides lock files: cached bodies, their info, temps.
std::vector<std::string> cache_entries(const stdfs::path& pkgs) {
    std::vector<std::string> out;
    std::error_code ec;
    if (!stdfs::exists(pkgs, ec)) return out;
    for (const auto& e : stdfs::recursive_directory_iterator(pkgs))
        if (e.is_regular_file() && e.path().extension() != ".lock") out.push_back(e.path().string());
    return out;
}

struct Timed {
    CliRun r;
    double secs;
};

Timed install(const stdfs::path& tmp, const std::string& url, const std::string& prefix,
              std::vector<std::pair<std::string, std::string>> env = {}, std::vector<std::string> extra = {}) {
    auto t = std::chrono::steady_clock::now();
    std::vector<std::string> args{"install", "-p", (tmp / prefix).string(), "-c", url, "--pkgs-dir",
                                  (tmp / ("pkgs-" + prefix)).string()};
    args.insert(args.end(), extra.begin(), extra.end());
    args.push_back("hello");
    auto r = run_splitforge(tmp, args, env);
    return {r, std::chrono::duration<double>(std::chrono::steady_clock::now() - t).count()};
}

}  // namespace

TEST_CASE("http faults: a 500 is retried and the install succeeds, and the plain twin fetches each file once") {
    sf::fs::TempDir tmp("sf-faults");
    write_channel(tmp.path() / "www/ch", {hello()});
    FaultyHttp server(tmp.path() / "www", tmp.path());
    auto ok = install(tmp.path(), server.url("ok", "/ch"), "p0");
    INFO(ok.r.err);
    REQUIRE(ok.r.exit == 0);

    auto flaky = install(tmp.path(), server.url("flaky", "/ch"), "p1");
    INFO(flaky.r.err);
    INFO(server.log());
    REQUIRE(flaky.r.exit == 0);
    CHECK(sf::test::slurp(tmp.path() / "p1/share/hello.txt") == "hello over http\n");
    const std::string log = server.log();
    CHECK(log.find("GET /flaky/ch/linux-64/repodata.json 500") != std::string::npos);
    CHECK(log.find("GET /flaky/ch/linux-64/repodata.json 200") != std::string::npos);
    CHECK(log.find("GET /flaky/ch/linux-64/hello-1.0-0.tar.bz2 500") != std::string::npos);
    CHECK(log.find("GET /flaky/ch/linux-64/hello-1.0-0.tar.bz2 200") != std::string::npos);

    // No retries allowed: the first 500 is the answer, in one line.
    write_channel(tmp.path() / "www/ch2", {hello()});
    auto once = install(tmp.path(), server.url("flaky", "/ch2"), "p2", {{"CONDA_REMOTE_MAX_RETRIES", "0"}});
    sf::test::check_refused_in_one_line(once.r);
    CHECK(once.r.err.find("HTTP 500") != std::string::npos);
}

TEST_CASE("http faults: a stalled answer times out in about the read timeout, one line, nothing cached") {
    sf::fs::TempDir tmp("sf-faults");
    write_channel(tmp.path() / "www/ch", {hello()});
    FaultyHttp server(tmp.path() / "www", tmp.path());
    const std::vector<std::pair<std::string, std::string>> env{{"CONDA_REMOTE_READ_TIMEOUT_SECS", "1"},
                                                               {"CONDA_REMOTE_MAX_RETRIES", "1"}};
    auto twin = install(tmp.path(), server.url("ok", "/ch"), "p0", env);
    INFO(twin.r.err);
    REQUIRE(twin.r.exit == 0);

    auto r = install(tmp.path(), server.url("stall", "/ch"), "p1", env);
    sf::test::check_refused_in_one_line(r.r);
    CHECK(r.r.err.find("repodata.json") != std::string::npos);
    CHECK(r.secs < 15);
    CHECK(cache_entries(tmp.path() / "pkgs-p1").empty());
    CHECK(!stdfs::exists(tmp.path() / "p1/share/hello.txt"));
}

TEST_CASE("http faults: a body shorter than its Content-Length is refused in one line, nothing cached") {
    sf::fs::TempDir tmp("sf-faults");
    write_channel(tmp.path() / "www/ch", {hello()});
    FaultyHttp server(tmp.path() / "www", tmp.path());
    auto r = install(tmp.path(), server.url("trunc", "/ch"), "p1", {{"CONDA_REMOTE_MAX_RETRIES", "1"}});
    sf::test::check_refused_in_one_line(r.r);
    CHECK(r.r.err.find("/trunc/ch/linux-64/repodata.json") != std::string::npos);
    CHECK(cache_entries(tmp.path() / "pkgs-p1").empty());
}

TEST_CASE("http faults: a 3 GiB Content-Length is refused at once by the size limit, nothing cached") {
    sf::fs::TempDir tmp("sf-faults");
    write_channel(tmp.path() / "www/ch", {hello()});
    FaultyHttp server(tmp.path() / "www", tmp.path());
    auto r = install(tmp.path(), server.url("huge", "/ch"), "p1", {{"CONDA_REMOTE_READ_TIMEOUT_SECS", "30"}});
    sf::test::check_refused_in_one_line(r.r);
    CHECK(r.r.err.find("larger than the limit") != std::string::npos);
    CHECK(r.secs < 10);  // neither waited out nor retried
    CHECK(cache_entries(tmp.path() / "pkgs-p1").empty());
}

TEST_CASE("http offline: --offline installs from a warm cache asking nothing, and names what a cold one lacks") {
    sf::fs::TempDir tmp("sf-offline");
    write_channel(tmp.path() / "www/ch", {hello()});
    FaultyHttp server(tmp.path() / "www", tmp.path());
    const std::string url = server.url("ok", "/ch");
    const std::string pkgs = (tmp.path() / "pkgs").string();
    auto run = [&](const std::string& prefix, bool offline) {
        std::vector<std::string> args{"install", "-p", (tmp.path() / prefix).string(), "-c", url, "--pkgs-dir", pkgs};
        if (offline) args.push_back("--offline");
        args.push_back("hello");
        return run_splitforge(tmp.path(), args);
    };
    // Cold: one line naming the channel; nothing was asked of the server.
    auto cold = run("p0", true);
    sf::test::check_refused_in_one_line(cold);
    CHECK(cold.err.find("/ok/ch") != std::string::npos);
    CHECK(cold.err.find("offline") != std::string::npos);
    CHECK(server.log().empty());

    auto online = run("p1", false);
    INFO(online.err);
    REQUIRE(online.exit == 0);
    const std::string before = server.log();
    auto warm = run("p2", true);
    INFO(warm.err);
    REQUIRE(warm.exit == 0);
    CHECK(sf::test::slurp(tmp.path() / "p2/share/hello.txt") == "hello over http\n");
    CHECK(server.log() == before);

    // Repodata cached, the package not: one line naming the package.
    stdfs::remove_all(tmp.path() / "pkgs/archives");
    auto nopkg = run("p3", true);
    sf::test::check_refused_in_one_line(nopkg);
    CHECK(nopkg.err.find("hello-1.0-0.tar.bz2") != std::string::npos);
    CHECK(server.log() == before);
}

// build, test and check --offline (issue 32): their envs come from the same
// content-addressed cache as `install`, so an offline build in a fresh work
// dir finds what an earlier online one fetched, and asks the server nothing.
TEST_CASE("http offline: build, test and check --offline use the cache an online build filled, asking nothing") {
    sf::fs::TempDir tmp("sf-offline-build");
    write_channel(tmp.path() / "www/ch", {hello()});
    FaultyHttp server(tmp.path() / "www", tmp.path());
    const std::string url = server.url("ok", "/ch"), pkgs = (tmp.path() / "pkgs").string();
    const std::string src_cache = (tmp.path() / "src-cache").string();
    REQUIRE(sf::fs::write_file_atomic(tmp.path() / "www/src/data.txt", "source bytes\n"));
    const stdfs::path recipe = tmp.path() / "recipe";
    stdfs::create_directories(recipe);
    REQUIRE(sf::fs::write_file_atomic(recipe / "meta.yaml",
                                      "package:\n  name: user\n  version: '1.0'\n"
                                      "source:\n  url: " + server.url("ok", "/src/data.txt") + "\n  sha256: " +
                                          sf::hash::sha256("source bytes\n") + "\n"
                                      "build:\n  script: mkdir -p $PREFIX/share && cp $PREFIX/share/hello.txt $PREFIX/share/user.txt\n"
                                      "requirements:\n  host:\n    - hello\n  run:\n    - hello\n"
                                      "test:\n  commands:\n    - test -f $PREFIX/share/hello.txt\n"));
    auto build = [&](const std::string& out, bool offline) {
        std::vector<std::string> args{"build", recipe.string(), "-c", url, "--pkgs-dir", pkgs, "--source-cache", src_cache,
                                      "--output-folder", (tmp.path() / out).string(), "-q"};
        if (offline) args.push_back("--offline");
        return run_splitforge(tmp.path(), args);
    };
    auto cold = build("out0", true);
    CHECK(cold.exit != 0);
    CHECK(cold.err.find("offline") != std::string::npos);
    CHECK(server.log().empty());

    auto online = build("out1", false);
    INFO(online.err);
    REQUIRE(online.exit == 0);
    const std::string before = server.log();
    CHECK(!before.empty());
    auto warm = build("out2", true);
    INFO(warm.err);
    REQUIRE(warm.exit == 0);
    std::string pkg;
    for (const auto& e : stdfs::recursive_directory_iterator(tmp.path() / "out2"))
        if (e.path().filename().string().rfind("user-1.0-", 0) == 0) pkg = e.path().string();
    REQUIRE(!pkg.empty());
    auto tested = run_splitforge(tmp.path(), {"test", pkg, "-c", url, "--pkgs-dir", pkgs, "--offline", "-q"});
    INFO(tested.err);
    CHECK(tested.exit == 0);
    auto checked = run_splitforge(tmp.path(), {"check", pkg, "-c", url, "--pkgs-dir", pkgs, "--offline"});
    INFO(checked.out << checked.err);
    CHECK(checked.exit == 0);
    CHECK(server.log() == before);
    // The packages cached, the source not: one line naming the source url.
    stdfs::remove_all(src_cache);
    auto nosrc = build("out3", true);
    CHECK(nosrc.exit != 0);
    CHECK(nosrc.err.find("offline: nothing is downloaded") != std::string::npos);
    CHECK(nosrc.err.find("/src/data.txt") != std::string::npos);
    CHECK(server.log() == before);
}
