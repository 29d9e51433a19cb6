// Configuration and credentials against a real nginx: .condarc channels and
// --override-channels, a malformed .condarc, `config --show`, basic auth
// from ~/.netrc and rattler's credentials.json (htpasswd from `openssl
// passwd`), a bearer token, a conda token from the auth file, credentials
// dropped on a redirect to another host, proxy_servers, and TLS: a
// self-signed server refused, then trusted through ssl_verify: PATH and
// SSL_CERT_FILE, and ssl_verify: false with its warning. Each run gets a
// temp HOME, so the user's own files play no part.
#include <catch2/catch.hpp>

#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <fstream>

#include "cli_run.hpp"
#include "craft.hpp"
#include "nginx.hpp"
#include "testproc.hpp"
#include "testutil.hpp"
#include "util/fs.hpp"

using namespace sf::test::craft;
using sf::test::Nginx;

namespace {

const std::string kPassword = "s3cr3t-pw";

struct Home {
    sf::fs::TempDir tmp{"sf-auth"};
    Home() { stdfs::create_directories(home()); }  // tests write ~/.condarc before the first run
    stdfs::path home() const { return tmp.path() / "home"; }
    std::vector<std::pair<std::string, std::string>> env(std::vector<std::pair<std::string, std::string>> extra = {}) const {
        std::vector<std::pair<std::string, std::string>> e = {
            {"HOME", home().string()}, {"CONDARC", ""}, {"CONDA_PREFIX", ""}, {"XDG_CONFIG_HOME", ""},
            {"NETRC", ""}, {"RATTLER_AUTH_FILE", ""}, {"CONDA_CHANNELS", ""}, {"http_proxy", ""},
            {"https_proxy", ""}, {"HTTP_PROXY", ""}, {"HTTPS_PROXY", ""}, {"no_proxy", ""}, {"NO_PROXY", ""},
            {"SSL_CERT_FILE", ""}, {"REQUESTS_CA_BUNDLE", ""}, {"CONDA_SSL_VERIFY", ""}};
        for (auto& kv : extra) e.push_back(std::move(kv));
        return e;
    }
    sf::test::CliRun install(const std::string& name, std::vector<std::string> args,
                             std::vector<std::pair<std::string, std::string>> extra = {}) const {
        std::vector<std::string> a = {"install", "-p", (tmp.path() / name).string(), "--pkgs-dir",
                                      (tmp.path() / ("pkgs-" + name)).string()};
        a.insert(a.end(), args.begin(), args.end());
        a.push_back("hello");
        return sf::test::run_splitforge(tmp.path(), a, env(std::move(extra)));
    }
    bool installed(const std::string& name) const { return stdfs::exists(tmp.path() / name / "share/hello.txt"); }
};

Pkg hello() { return pkg_with("hello", {{"share/hello.txt", 'f', "hello with auth\n"}}); }

void need_openssl() {
    if (!sf::test::have_tool("openssl")) sf::test::skip("openssl is not installed (scripts/deps.sh installs it)");
}

// An htpasswd line nginx reads: alice with kPassword, hashed by `openssl passwd -apr1`.
void write_htpasswd(const stdfs::path& file) {
    need_openssl();
    auto r = sf::test::run({"openssl", "passwd", "-apr1", kPassword});
    REQUIRE(r.rc == 0);
    std::ofstream(file) << "alice:" << sf::test::trim_nl(r.out) << "\n";
}

std::string auth_location(const std::string& path, const stdfs::path& htpasswd) {
    return "    location " + path + " { auth_basic \"ch\"; auth_basic_user_file " + htpasswd.string() + "; }\n";
}

int count(const std::vector<Nginx::Hit>& hits, const std::string& needle, int status) {
    int n = 0;
    for (const auto& h : hits) n += h.path.find(needle) != std::string::npos && h.status == status;
    return n;
}

int unused_port() {
    int s = ::socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    ::bind(s, reinterpret_cast<sockaddr*>(&a), sizeof a);
    socklen_t len = sizeof a;
    ::getsockname(s, reinterpret_cast<sockaddr*>(&a), &len);
    ::close(s);
    return ntohs(a.sin_port);
}

}  // namespace

TEST_CASE("http auth: basic auth from ~/.netrc and from rattler's credentials.json, never shown") {
    Home h;
    write_channel(h.tmp.path() / "www/private", {hello()});
    write_htpasswd(h.tmp.path() / "htpasswd");
    Nginx server(h.tmp.path() / "www", auth_location("/private/", h.tmp.path() / "htpasswd"));
    const std::string ch = server.url("/private");

    auto none = h.install("p0", {"-c", ch});
    sf::test::check_refused_in_one_line(none);
    CHECK(none.err.find("401") != std::string::npos);
    CHECK(none.err.find("/private") != std::string::npos);  // which channel needs credentials

    std::ofstream(h.home() / ".netrc") << "machine 127.0.0.1\nlogin alice\npassword " << kPassword << "\n";
    auto netrc = h.install("p1", {"-c", ch, "--json"});
    INFO(netrc.err);
    REQUIRE(netrc.exit == 0);
    CHECK(h.installed("p1"));
    CHECK((netrc.out + netrc.err).find(kPassword) == std::string::npos);
    stdfs::remove(h.home() / ".netrc");

    // $NETRC elsewhere.
    std::ofstream(h.tmp.path() / "netrc") << "machine 127.0.0.1 login alice password " << kPassword << "\n";
    auto env_netrc = h.install("p2", {"-c", ch}, {{"NETRC", (h.tmp.path() / "netrc").string()}});
    INFO(env_netrc.err);
    CHECK(env_netrc.exit == 0);

    stdfs::create_directories(h.home() / ".rattler");
    std::ofstream(h.home() / ".rattler/credentials.json")
        << R"({"127.0.0.1": {"BasicHTTP": {"username": "alice", "password": ")" << kPassword << R"("}}})";
    auto rattler = h.install("p3", {"-c", ch});
    INFO(rattler.err);
    REQUIRE(rattler.exit == 0);
    CHECK(h.installed("p3"));
    CHECK(sf::test::slurp(h.tmp.path() / "stderr.log").find(kPassword) == std::string::npos);

    std::ofstream(h.home() / ".rattler/credentials.json") << "{broken";
    auto bad = h.install("p4", {"-c", ch});
    sf::test::check_refused_in_one_line(bad);
    CHECK(bad.err.find("credentials.json") != std::string::npos);
}

TEST_CASE("http auth: a bearer token and a conda token from the auth file") {
    Home h;
    const std::string bearer = "bearer-tok-4711", token = "conda-tok-0815";
    write_channel(h.tmp.path() / "www/b", {hello()});
    write_channel(h.tmp.path() / "www/c", {hello()});
    Nginx server(h.tmp.path() / "www", "    location /b/ { if ($http_authorization != \"Bearer " + bearer +
                                           "\") { return 403; } }\n"
                                           "    location /c/ { return 403; }\n"
                                           "    location /t/" + token + "/c/ { rewrite ^/t/" + token + "/(.*)$ /$1 break; }\n");
    auto no = h.install("p0", {"-c", server.url("/b")});
    sf::test::check_refused_in_one_line(no);
    CHECK(no.err.find("403") != std::string::npos);

    const std::string auth = (h.tmp.path() / "auth.json").string();
    std::ofstream(auth) << R"({"127.0.0.1": {"BearerToken": ")" << bearer << R"("}})";
    auto ok = h.install("p1", {"-c", server.url("/b"), "--json"}, {{"RATTLER_AUTH_FILE", auth}});
    INFO(ok.err);
    REQUIRE(ok.exit == 0);
    CHECK(h.installed("p1"));
    CHECK((ok.out + ok.err).find(bearer) == std::string::npos);

    std::ofstream(auth) << R"({"127.0.0.1": {"CondaToken": ")" << token << R"("}})";
    auto ct = h.install("p2", {"-c", server.url("/c"), "--json"}, {{"RATTLER_AUTH_FILE", auth}});
    INFO(ct.err);
    INFO(server.access_log());
    REQUIRE(ct.exit == 0);
    CHECK(count(server.hits(), "/t/" + token + "/c/linux-64/hello", 200) == 1);
    CHECK((ct.out + ct.err).find(token) == std::string::npos);
}

TEST_CASE("http auth: credentials from netrc and the auth file are not sent to a redirect's other host") {
    Home h;
    write_channel(h.tmp.path() / "www/private", {hello()});
    write_htpasswd(h.tmp.path() / "htpasswd");
    // The other host: `localhost`, same files, the same password file.
    Nginx other(h.tmp.path() / "www", auth_location("/private/", h.tmp.path() / "htpasswd"));
    Nginx first(h.tmp.path() / "www", "    location /moved/ { rewrite ^/moved/(.*)$ http://localhost:" +
                                          std::to_string(other.port()) + "/private/$1 redirect; }\n" +
                                          auth_location("/private/", h.tmp.path() / "htpasswd"));
    std::ofstream(h.home() / ".netrc") << "machine 127.0.0.1 login alice password " << kPassword << "\n";
    auto netrc = h.install("p1", {"-c", first.url("/moved")});
    sf::test::check_refused_in_one_line(netrc);
    INFO(other.access_log());
    CHECK(count(other.hits(), "/private/linux-64/repodata.json", 401) >= 1);  // followed, but no credentials
    CHECK(count(other.hits(), "/private/linux-64/repodata.json", 200) == 0);
    stdfs::remove(h.home() / ".netrc");

    const std::string auth = (h.tmp.path() / "auth.json").string();
    std::ofstream(auth) << R"({"127.0.0.1": {"BasicHTTP": {"username": "alice", "password": ")" << kPassword << R"("}}})";
    const auto before = other.hits().size();
    auto file = h.install("p2", {"-c", first.url("/moved")}, {{"RATTLER_AUTH_FILE", auth}});
    sf::test::check_refused_in_one_line(file);
    auto hits = other.hits();
    std::vector<Nginx::Hit> after(hits.begin() + static_cast<long>(before), hits.end());
    CHECK(count(after, "/private/linux-64/repodata.json", 401) >= 1);
    CHECK(count(after, "/private/linux-64/repodata.json", 200) == 0);
    // The same credentials do reach their own host.
    auto direct = h.install("p3", {"-c", first.url("/private")}, {{"RATTLER_AUTH_FILE", auth}});
    INFO(direct.err);
    CHECK(direct.exit == 0);
}

TEST_CASE("http auth: .condarc channels, --override-channels, config --show, a malformed .condarc") {
    Home h;
    const std::string token = "rc-tok-31337";
    write_channel(h.tmp.path() / "www/ch", {hello()});
    Nginx server(h.tmp.path() / "www", "    rewrite ^/t/" + token + "/(.*)$ /$1 break;\n");
    const std::string url = server.url("/t/" + token + "/ch");
    std::ofstream(h.home() / ".condarc") << "channels:\n  - " << url << "\nsome_key_conda_has: 1\n";
    auto ok = h.install("p1", {"--json"});
    INFO(ok.err);
    REQUIRE(ok.exit == 0);
    CHECK(h.installed("p1"));
    CHECK((ok.out + ok.err).find(token) == std::string::npos);
    CHECK(ok.out.find((h.home() / ".condarc").string()) != std::string::npos);  // the channel's source

    auto none = h.install("p2", {"--override-channels"});
    sf::test::check_refused_in_one_line(none);
    CHECK(none.err.find("no channels") != std::string::npos);
    CHECK(!h.installed("p2"));

    auto show = sf::test::run_splitforge(h.tmp.path(), {"config", "--show", "--json"}, h.env({{"CONDA_OFFLINE", "true"}}));
    INFO(show.err);
    REQUIRE(show.exit == 0);
    CHECK(show.out.find(token) == std::string::npos);
    CHECK(show.out.find("/t/<TOKEN>/ch") != std::string::npos);
    CHECK(show.out.find("$CONDA_OFFLINE") != std::string::npos);
    auto text = sf::test::run_splitforge(h.tmp.path(), {"config", "--show"}, h.env());
    REQUIRE(text.exit == 0);
    CHECK(text.out.find("channel_alias: https://conda.anaconda.org  (default)") != std::string::npos);

    std::ofstream(h.home() / ".condarc") << "channels:\n  - a\n  - [b\n";
    auto bad = h.install("p3", {"-c", url});
    sf::test::check_refused_in_one_line(bad);
    CHECK(bad.exit == 2);
    CHECK(bad.err.find((h.home() / ".condarc").string() + ":") != std::string::npos);
    CHECK(!h.installed("p3"));
}

TEST_CASE("http auth: proxy_servers from .condarc carry the transfer") {
    Home h;
    write_channel(h.tmp.path() / "www/ch", {hello()});
    // nginx answers a proxy's absolute-URI request from its own root: the
    // channel's host does not exist, so only the proxy can serve it.
    Nginx proxy(h.tmp.path() / "www");
    std::ofstream(h.home() / ".condarc") << "proxy_servers:\n  http: " << proxy.url() << "\n";
    auto r = h.install("p1", {"-c", "http://channel.invalid/ch"});
    INFO(r.err);
    INFO(proxy.access_log());
    REQUIRE(r.exit == 0);
    CHECK(h.installed("p1"));
    CHECK(proxy.access_log().find("http://channel.invalid/ch/linux-64/") != std::string::npos);
}

TEST_CASE("http auth: TLS verified by default, CA from ssl_verify PATH or SSL_CERT_FILE, ssl_verify false warns") {
    need_openssl();
    Home h;
    write_channel(h.tmp.path() / "www/ch", {hello()});
    const stdfs::path key = h.tmp.path() / "key.pem", cert = h.tmp.path() / "cert.pem";
    auto made = sf::test::run({"openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", key.string(),
                               "-out", cert.string(), "-days", "2", "-subj", "/CN=127.0.0.1", "-addext",
                               "subjectAltName=IP:127.0.0.1"});
    REQUIRE(made.rc == 0);
    const int tls_port = unused_port();
    Nginx server(h.tmp.path() / "www", "    listen 127.0.0.1:" + std::to_string(tls_port) + " ssl;\n    ssl_certificate " +
                                           cert.string() + ";\n    ssl_certificate_key " + key.string() + ";\n");
    const std::string ch = "https://127.0.0.1:" + std::to_string(tls_port) + "/ch";
    auto refused = h.install("p0", {"-c", ch});
    sf::test::check_refused_in_one_line(refused);
    CHECK(!h.installed("p0"));

    std::ofstream(h.home() / ".condarc") << "ssl_verify: " << cert.string() << "\n";
    auto by_rc = h.install("p1", {"-c", ch});
    INFO(by_rc.err);
    CHECK(by_rc.exit == 0);
    stdfs::remove(h.home() / ".condarc");
    auto by_env = h.install("p2", {"-c", ch}, {{"SSL_CERT_FILE", cert.string()}});
    INFO(by_env.err);
    CHECK(by_env.exit == 0);

    std::ofstream(h.home() / ".condarc") << "ssl_verify: false\n";
    auto off = h.install("p3", {"-c", ch});
    INFO(off.err);
    CHECK(off.exit == 0);
    CHECK(off.err.find("ssl-verify-off") != std::string::npos);
}
