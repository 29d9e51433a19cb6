// rattler's credentials.json looked up as rattler does (host, then
// `*.domain` for each parent), and proxy_servers picked as requests does.
#include <catch2/catch.hpp>

#include <fstream>

#include "net/transport.hpp"
#include "util/fs.hpp"

using namespace sf;

TEST_CASE("auth file: exact host first, then wildcards up the domain", "[net][auth]") {
    sf::fs::TempDir tmp("sf-auth");
    const std::string f = (tmp.path() / "credentials.json").string();
    std::ofstream(f) << R"({"repo.prefix.dev": {"BearerToken": "exact"},
        "*.prefix.dev": {"BasicHTTP": {"username": "u", "password": "p"}},
        "*.example.com": {"CondaToken": "ct"},
        "s3.example.org": {"S3Credentials": {"access_key_id": "a", "secret_access_key": "b"}}})";
    auto exact = net::credential_for(f, "repo.prefix.dev");
    REQUIRE(exact);
    REQUIRE(*exact);
    CHECK((*exact)->kind == net::Credential::Kind::bearer);
    CHECK((*exact)->token == "exact");
    auto wild = net::credential_for(f, "a.b.prefix.dev");
    REQUIRE(wild);
    REQUIRE(*wild);
    CHECK((*wild)->kind == net::Credential::Kind::basic);
    CHECK((*wild)->username == "u");
    CHECK((*wild)->key == "*.prefix.dev");
    auto token = net::credential_for(f, "conda.example.com");
    REQUIRE(token);
    REQUIRE(*token);
    CHECK((*token)->kind == net::Credential::Kind::conda_token);
    auto none = net::credential_for(f, "prefix.dev.evil.org");
    REQUIRE(none);
    CHECK_FALSE(*none);
    auto s3 = net::credential_for(f, "s3.example.org");
    REQUIRE(s3);
    CHECK_FALSE(*s3);
    auto missing = net::credential_for((tmp.path() / "nope.json").string(), "x");
    REQUIRE(missing);
    CHECK_FALSE(*missing);
    std::ofstream(tmp.path() / "bad.json") << "{not json";
    auto bad = net::credential_for((tmp.path() / "bad.json").string(), "x");
    REQUIRE_FALSE(bad);
    CHECK(bad.error().loc.file.find("bad.json") != std::string::npos);
}

TEST_CASE("proxy_servers: scheme://host before scheme, hosts without credentials", "[net][auth]") {
    net::Transport t;
    t.proxies = {{"http", "http://p1:3128"}, {"https://special.example", "http://p2:3128"}};
    CHECK(net::proxy_for(t, "http://a.example/x") == "http://p1:3128");
    CHECK(net::proxy_for(t, "https://special.example/ch") == "http://p2:3128");
    CHECK_FALSE(net::proxy_for(t, "https://other.example/ch"));
    CHECK(net::host_of("https://user:pw@Repo.Example.com:8443/t/x/ch") == "repo.example.com");
    CHECK(net::host_of("http://[::1]:80/ch") == "[::1]");
}
