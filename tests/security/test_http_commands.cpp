// Every command that installs or solves takes an http(s) channel, as
// `install` does (issue 32 item 7): `build` (host and test envs through the
// system provider), `test` and `check`, each with a dependency that only the
// nginx channel has. The benign twin of each is the same channel as a
// directory; a token in the channel URL shows in no output.
#include <catch2/catch.hpp>

#include <fstream>

#include "cli_run.hpp"
#include "craft.hpp"
#include "nginx.hpp"
#include "testutil.hpp"
#include "util/fs.hpp"

using namespace sf::test::craft;
using sf::test::Nginx;
using sf::test::run_splitforge;

namespace {

Pkg dep() { return pkg_with("sfdep", {{"share/sfdep.txt", 'f', "dep over http\n"}}); }

// A package whose test needs sfdep, which is only on the served channel.
stdfs::path app_file(const stdfs::path& dir) {
    Pkg p = pkg_with("sfapp",
                     {{"share/sfapp.txt", 'f', "app\n"},
                      {"info/test/run_test.sh", 'f', "test -f \"$PREFIX/share/sfdep.txt\"\n", "", 0755, false}},
                     {"sfdep"});
    return write_pkg(dir, p);
}

}  // namespace

TEST_CASE("http commands: `test PKG -c URL` installs the test env's dependency from nginx, and a dir twin too") {
    sf::fs::TempDir tmp("sf-httpcmd");
    write_channel(tmp.path() / "www/ch", {dep()});
    Nginx server(tmp.path() / "www");
    const std::string app = app_file(tmp.path() / "loose").string();

    auto twin = run_splitforge(tmp.path(), {"test", app, "-c", (tmp.path() / "www/ch").string(), "-q"});
    INFO(twin.err);
    REQUIRE(twin.exit == 0);
    CHECK(twin.out.find("test passed") != std::string::npos);

    // Its own package cache: the twin's run put the same package (by sha256) in the shared one.
    auto r = run_splitforge(tmp.path(), {"test", app, "-c", server.url("/ch"), "-q", "--pkgs-dir", (tmp.path() / "pkgs-http").string()});
    INFO(r.out + r.err);
    REQUIRE(r.exit == 0);
    CHECK(r.out.find("test passed") != std::string::npos);
    CHECK(server.access_log().find("/ch/linux-64/sfdep-1.0-0.tar.bz2") != std::string::npos);

    // Without the channel the dependency is nowhere: the test env fails.
    auto none = run_splitforge(tmp.path(), {"test", app, "-q"});
    CHECK(none.exit != 0);
    // A bad channel is one input error before anything runs.
    auto bad = run_splitforge(tmp.path(), {"test", app, "-c", "ftp://127.0.0.1/ch"});
    sf::test::check_refused_in_one_line(bad);
}

TEST_CASE("http commands: `check PKG -c URL` installs its dependency from nginx, and a token never shows") {
    sf::fs::TempDir tmp("sf-httpcmd");
    write_channel(tmp.path() / "www/ch", {dep()});
    write_channel(tmp.path() / "www/empty", {});
    const std::string token = "chk-secret-9876";
    Nginx server(tmp.path() / "www", "    rewrite ^/t/" + token + "/(.*)$ /$1 break;\n");
    const std::string app = app_file(tmp.path() / "loose").string();

    auto twin = run_splitforge(tmp.path(), {"check", app, "-c", (tmp.path() / "www/ch").string(), "--json"});
    INFO(twin.out + twin.err);
    CHECK(twin.out.find("do not install") == std::string::npos);

    // Its own package cache: the twin's run put the same package (by sha256) in the shared one.
    auto r = run_splitforge(tmp.path(), {"check", app, "-c", server.url("/t/" + token + "/ch"), "--json", "--pkgs-dir",
                                         (tmp.path() / "pkgs-http").string()});
    INFO(r.out + r.err);
    CHECK(r.exit == twin.exit);
    CHECK(r.out.find("do not install") == std::string::npos);
    CHECK(server.access_log().find("/ch/linux-64/sfdep-1.0-0.tar.bz2") != std::string::npos);

    // A channel without the dependency: a finding naming the channel masked.
    auto miss = run_splitforge(tmp.path(), {"check", app, "-c", server.url("/t/" + token + "/empty"), "--json"});
    INFO(miss.out + miss.err);
    CHECK(miss.out.find("do not install") != std::string::npos);
    CHECK((miss.out + miss.err).find(token) == std::string::npos);
    CHECK(miss.out.find("/t/<TOKEN>/empty") != std::string::npos);
}

TEST_CASE("http commands: `build -c URL` takes a host and test requirement from nginx (system provider)") {
    sf::fs::TempDir tmp("sf-httpcmd");
    write_channel(tmp.path() / "www/ch", {dep()});
    Nginx server(tmp.path() / "www");
    const stdfs::path recipe = tmp.path() / "recipe";
    stdfs::create_directories(recipe);
    std::ofstream(recipe / "meta.yaml")
        << "package:\n  name: sf-http-build\n  version: 1.0\nbuild:\n  number: 0\n  script:\n"
           "    - test -f $PREFIX/share/sfdep.txt\n"
           "    - mkdir -p $PREFIX/share/sf-http-build && echo ok > $PREFIX/share/sf-http-build/ok.txt\n"
           "requirements:\n  host:\n    - sfdep\n  run:\n    - sfdep\n"
           "test:\n  commands:\n    - test -f $PREFIX/share/sfdep.txt\n"
           "about:\n  license: MIT\n";
    // Each its own package cache: a package the twin fetched (same sha256) is not fetched again.
    auto build = [&](const std::string& out, const std::string& channel) {
        return run_splitforge(tmp.path(), {"build", recipe.string(), "--output-folder", (tmp.path() / out).string(),
                                           "-c", channel, "-q", "--pkgs-dir", (tmp.path() / ("pkgs-" + out)).string()});
    };
    auto twin = build("out0", (tmp.path() / "www/ch").string());
    INFO(twin.out + twin.err);
    REQUIRE(twin.exit == 0);
    CHECK(stdfs::exists(tmp.path() / "out0/linux-64/sf-http-build-1.0-0.conda"));

    auto r = build("out1", server.url("/ch"));
    INFO(r.out + r.err);
    REQUIRE(r.exit == 0);
    CHECK(stdfs::exists(tmp.path() / "out1/linux-64/sf-http-build-1.0-0.conda"));
    CHECK(server.access_log().find("/ch/linux-64/sfdep-1.0-0.tar.bz2") != std::string::npos);
}
