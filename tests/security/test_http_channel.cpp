// Channels over HTTP, served by a real nginx on loopback: install, the warm
// cache (304s, no package fetched again), a token channel whose token shows
// nowhere, a corrupt package (nothing left in the cache), a 404 channel,
// names under the channel alias, and a torn repodata cache entry.
#include <catch2/catch.hpp>

#include <sys/wait.h>
#include <zstd.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>

#include "cli_run.hpp"
#include "craft.hpp"
#include "env/channel.hpp"
#include "env/condarc.hpp"
#include "net/url.hpp"
#include "nginx.hpp"
#include "testutil.hpp"
#include "util/fs.hpp"
#include "util/strings.hpp"

using namespace sf::test::craft;
using sf::test::Nginx;

namespace {

using Run = sf::test::CliRun;

// The binary with `args`: exit code, stdout, stderr.
Run run_cli(const stdfs::path& tmp, std::vector<std::string> args) { return sf::test::run_splitforge(tmp, std::move(args)); }

// A refusal: exit 1 or 2, and one line on stderr.
const auto check_one_line = sf::test::check_refused_in_one_line;

Pkg hello() { return pkg_with("hello", {{"share/hello.txt", 'f', "hello over http\n"}}); }

// Every file's text under `root`, names included, for a secret search.
std::string everything_under(const stdfs::path& root) {
    std::string all;
    for (const auto& e : stdfs::recursive_directory_iterator(root)) {
        all += e.path().string() + "\n";
        if (e.is_regular_file() && e.file_size() < (1 << 20)) all += sf::test::slurp(e.path());
    }
    return all;
}

int count(const std::vector<Nginx::Hit>& hits, const std::string& needle, int status) {
    int n = 0;
    for (const auto& h : hits) n += h.path.find(needle) != std::string::npos && h.status == status;
    return n;
}

}  // namespace

TEST_CASE("http channel: install from nginx, and a warm reinstall fetches nothing again with 200") {
    sf::fs::TempDir tmp("sf-http");
    write_channel(tmp.path() / "www/ch", {hello()});
    Nginx server(tmp.path() / "www");
    const std::string pkgs = (tmp.path() / "pkgs").string();
    auto r = run_cli(tmp.path(), {"install", "-p", (tmp.path() / "p1").string(), "-c", server.url("/ch"), "--pkgs-dir",
                                  pkgs, "hello"});
    INFO(r.err);
    REQUIRE(r.exit == 0);
    CHECK(sf::test::slurp(tmp.path() / "p1/share/hello.txt") == "hello over http\n");
    auto cold = server.hits();
    INFO(server.access_log());
    CHECK(count(cold, "/ch/linux-64/repodata.json", 200) == 1);
    CHECK(count(cold, "/ch/linux-64/hello-1.0-0.tar.bz2", 200) == 1);

    // A second prefix, the same cache: repodata revalidated (304), no package GET.
    auto warm = run_cli(tmp.path(), {"install", "-p", (tmp.path() / "p2").string(), "-c", server.url("/ch"),
                                     "--pkgs-dir", pkgs, "hello"});
    INFO(warm.err);
    REQUIRE(warm.exit == 0);
    CHECK(sf::test::slurp(tmp.path() / "p2/share/hello.txt") == "hello over http\n");
    auto all = server.hits();
    std::vector<Nginx::Hit> second(all.begin() + static_cast<long>(cold.size()), all.end());
    INFO(server.access_log());
    CHECK(count(second, "/ch/linux-64/repodata.json", 200) == 0);
    CHECK(count(second, "/ch/linux-64/repodata.json", 304) == 1);
    CHECK(count(second, ".tar.bz2", 200) == 0);
    for (const auto& h : second) CHECK(h.status != 200);

    // A torn cache entry (the body cut short) is fetched again, never trusted.
    for (const auto& e : stdfs::directory_iterator(tmp.path() / "pkgs/cache"))
        if (e.path().extension() == ".body")
            stdfs::resize_file(e.path(), e.file_size() / 2);
    auto torn = run_cli(tmp.path(), {"install", "-p", (tmp.path() / "p3").string(), "-c", server.url("/ch"),
                                     "--pkgs-dir", pkgs, "hello"});
    INFO(torn.err);
    REQUIRE(torn.exit == 0);
    auto after = server.hits();
    std::vector<Nginx::Hit> third(after.begin() + static_cast<long>(all.size()), after.end());
    CHECK(count(third, "/ch/linux-64/repodata.json", 200) == 1);
}

TEST_CASE("http channel: a /t/<token>/ channel's token appears in no output, record or cache path") {
    sf::fs::TempDir tmp("sf-http");
    write_channel(tmp.path() / "www/ch", {hello()});
    const std::string token = "sekrit-tok-4242";
    Nginx server(tmp.path() / "www", "    rewrite ^/t/" + token + "/(.*)$ /$1 break;\n");
    const std::string url = server.url("/t/" + token + "/ch");
    const std::string pkgs = (tmp.path() / "pkgs").string();
    // Benign twin: the channel without the token installs the same way.
    auto plain = run_cli(tmp.path(), {"install", "-p", (tmp.path() / "p0").string(), "-c", server.url("/ch"),
                                      "--pkgs-dir", (tmp.path() / "pkgs0").string(), "hello"});
    REQUIRE(plain.exit == 0);

    auto r = run_cli(tmp.path(), {"install", "-p", (tmp.path() / "p").string(), "-c", url, "--pkgs-dir", pkgs,
                                  "--json", "hello"});
    INFO(r.err);
    REQUIRE(r.exit == 0);
    CHECK(server.access_log().find("/t/" + token + "/ch/linux-64/hello-1.0-0.tar.bz2") != std::string::npos);
    CHECK(r.out.find(token) == std::string::npos);
    CHECK(r.err.find(token) == std::string::npos);
    CHECK(everything_under(tmp.path() / "pkgs").find(token) == std::string::npos);
    auto meta = everything_under(tmp.path() / "p/conda-meta");
    CHECK(meta.find(token) == std::string::npos);
    CHECK(meta.find("/t/<TOKEN>/ch/linux-64/hello-1.0-0.tar.bz2") != std::string::npos);

    // A failure names the channel masked.
    auto missing = run_cli(tmp.path(), {"install", "-p", (tmp.path() / "q").string(), "-c", url, "--pkgs-dir", pkgs,
                                        "nosuchpkg"});
    check_one_line(missing);
    CHECK(missing.err.find(token) == std::string::npos);
    CHECK(missing.err.find("/t/<TOKEN>/ch") != std::string::npos);
    // Basic auth credentials in the URL are masked too (nginx here ignores them).
    std::string basic = "http://someuser:hunter2pass@127.0.0.1:" + std::to_string(server.port()) + "/nothere";
    auto b = run_cli(tmp.path(), {"install", "-p", (tmp.path() / "q").string(), "-c", basic, "--pkgs-dir", pkgs, "hello"});
    check_one_line(b);
    CHECK(b.err.find("hunter2pass") == std::string::npos);
    CHECK(b.err.find("someuser") == std::string::npos);
}

TEST_CASE("http channel: a package whose bytes do not match repodata's sha256 is refused, nothing cached") {
    sf::fs::TempDir tmp("sf-http");
    write_channel(tmp.path() / "www/good", {hello()});
    write_channel(tmp.path() / "www/bad", {hello()});
    // Same size, one byte changed: only the sha256 tells.
    stdfs::path file = tmp.path() / "www/bad/linux-64/hello-1.0-0.tar.bz2";
    std::string bytes = sf::test::slurp(file);
    bytes[bytes.size() / 2] ^= 0x55;
    std::ofstream(file, std::ios::binary | std::ios::trunc) << bytes;
    Nginx server(tmp.path() / "www");

    auto ok = run_cli(tmp.path(), {"install", "-p", (tmp.path() / "p0").string(), "-c", server.url("/good"),
                                   "--pkgs-dir", (tmp.path() / "pkgs0").string(), "hello"});
    INFO(ok.err);
    REQUIRE(ok.exit == 0);

    const stdfs::path pkgs = tmp.path() / "pkgs";
    auto r = run_cli(tmp.path(), {"install", "-p", (tmp.path() / "p").string(), "-c", server.url("/bad"),
                                  "--pkgs-dir", pkgs.string(), "hello"});
    check_one_line(r);
    CHECK(r.err.find("sha256 mismatch") != std::string::npos);
    CHECK(r.err.find("hello-1.0-0.tar.bz2") != std::string::npos);
    CHECK(r.err.find(server.url("/bad/linux-64/hello-1.0-0.tar.bz2")) != std::string::npos);
    CHECK(!stdfs::exists(tmp.path() / "p/share/hello.txt"));
    // Nothing of the package in the cache: no archive, no extracted entry, no temp.
    for (const auto& e : stdfs::recursive_directory_iterator(pkgs)) {
        std::string name = e.path().filename().string();
        INFO(e.path());
        CHECK(name.find("hello") == std::string::npos);
        CHECK(!(e.is_directory() && name.size() == 64 && e.path().parent_path() == pkgs));
    }
}

TEST_CASE("http channel: a channel the server does not have is one line") {
    sf::fs::TempDir tmp("sf-http");
    write_channel(tmp.path() / "www/ch", {hello()});
    Nginx server(tmp.path() / "www");
    auto good = run_cli(tmp.path(), {"install", "-p", (tmp.path() / "p0").string(), "-c", server.url("/ch"),
                                     "--pkgs-dir", (tmp.path() / "pkgs").string(), "hello"});
    REQUIRE(good.exit == 0);
    auto r = run_cli(tmp.path(), {"install", "-p", (tmp.path() / "p").string(), "-c", server.url("/nothere"),
                                  "--pkgs-dir", (tmp.path() / "pkgs").string(), "hello"});
    check_one_line(r);
    CHECK(r.err.find(server.url("/nothere")) != std::string::npos);
    CHECK(r.err.find("404") != std::string::npos);
}

TEST_CASE("http channel: a channel name maps under the channel alias") {
    using sf::env::resolve_channel;
    ::unsetenv("CONDA_CHANNEL_ALIAS");
    CHECK(resolve_channel("conda-forge")->url == "https://conda.anaconda.org/conda-forge");
    CHECK(resolve_channel("conda-forge/label/dev")->url == "https://conda.anaconda.org/conda-forge/label/dev");
    CHECK(resolve_channel("https://example.org/ch/")->url == "https://example.org/ch");
    CHECK(resolve_channel("https://u:pw@example.org/t/abc/ch")->display == "https://<USER>:<PASSWORD>@example.org/t/<TOKEN>/ch");
    CHECK(!resolve_channel("ftp://example.org/ch"));
    CHECK(!resolve_channel("/no/such/channel/dir"));
    CHECK(sf::net::mask_text("see http://a:b@h/t/x/y and https://h/z") == "see http://<USER>:<PASSWORD>@h/t/<TOKEN>/y and https://h/z");

    sf::fs::TempDir tmp("sf-http");
    write_channel(tmp.path() / "www/aliased-ch", {hello()});
    Nginx server(tmp.path() / "www");
    ::setenv("CONDA_CHANNEL_ALIAS", server.url("/").c_str(), 1);
    sf::env::apply_config(*sf::env::load_config());  // the CLI reads the configuration once per run
    CHECK(resolve_channel("aliased-ch")->url == server.url("/aliased-ch"));
    auto r = run_cli(tmp.path(), {"install", "-p", (tmp.path() / "p").string(), "-c", "aliased-ch", "--pkgs-dir",
                                  (tmp.path() / "pkgs").string(), "hello"});
    ::unsetenv("CONDA_CHANNEL_ALIAS");
    INFO(r.err);
    REQUIRE(r.exit == 0);
    CHECK(stdfs::exists(tmp.path() / "p/share/hello.txt"));
}

TEST_CASE("http channel: repodata.json.zst is read first, and a corrupt one is one line") {
    sf::fs::TempDir tmp("sf-http");
    write_channel(tmp.path() / "www/zst", {hello()});
    // Only the .zst for linux-64: what the installer must decode.
    const stdfs::path rd = tmp.path() / "www/zst/linux-64/repodata.json";
    std::string json_text = sf::test::slurp(rd);
    std::string z(ZSTD_compressBound(json_text.size()), '\0');
    z.resize(ZSTD_compress(z.data(), z.size(), json_text.data(), json_text.size(), 3));
    std::ofstream(rd.string() + ".zst", std::ios::binary) << z;
    stdfs::remove(rd);
    // The hostile twin: a .zst that is no zstd frame.
    stdfs::copy(tmp.path() / "www/zst", tmp.path() / "www/badzst", stdfs::copy_options::recursive);
    std::ofstream(tmp.path() / "www/badzst/linux-64/repodata.json.zst", std::ios::binary | std::ios::trunc)
        << "this is not zstd";
    Nginx server(tmp.path() / "www");
    const std::string pkgs = (tmp.path() / "pkgs").string();
    auto r = run_cli(tmp.path(), {"install", "-p", (tmp.path() / "p").string(), "-c", server.url("/zst"), "--pkgs-dir",
                                  pkgs, "hello"});
    INFO(r.err);
    REQUIRE(r.exit == 0);
    CHECK(count(server.hits(), "/zst/linux-64/repodata.json.zst", 200) == 1);
    CHECK(count(server.hits(), "/zst/linux-64/repodata.json", 404) == 0);
    auto bad = run_cli(tmp.path(), {"install", "-p", (tmp.path() / "q").string(), "-c", server.url("/badzst"),
                                    "--pkgs-dir", pkgs, "hello"});
    check_one_line(bad);
    CHECK(bad.err.find("zstd") != std::string::npos);
    CHECK(!stdfs::exists(tmp.path() / "q/share/hello.txt"));
}

TEST_CASE("http channel: basic auth from the URL is sent, masked, and without it a 401 is one line") {
    sf::fs::TempDir tmp("sf-http");
    write_channel(tmp.path() / "www/private", {hello()});
    std::ofstream(tmp.path() / "htpasswd") << "alice:{PLAIN}s3cr3t-pw\n";
    Nginx server(tmp.path() / "www", "    location /private/ { auth_basic \"ch\"; auth_basic_user_file " +
                                         (tmp.path() / "htpasswd").string() + "; }\n");
    const std::string pkgs = (tmp.path() / "pkgs").string();
    const std::string with = "http://alice:s3cr3t-pw@127.0.0.1:" + std::to_string(server.port()) + "/private";
    auto ok = run_cli(tmp.path(), {"install", "-p", (tmp.path() / "p").string(), "-c", with, "--pkgs-dir", pkgs,
                                   "--json", "hello"});
    INFO(ok.err);
    REQUIRE(ok.exit == 0);
    CHECK(ok.out.find("s3cr3t-pw") == std::string::npos);
    CHECK(everything_under(tmp.path() / "pkgs").find("s3cr3t-pw") == std::string::npos);
    CHECK(everything_under(tmp.path() / "p/conda-meta").find("s3cr3t-pw") == std::string::npos);
    auto no = run_cli(tmp.path(), {"install", "-p", (tmp.path() / "q").string(), "-c", server.url("/private"),
                                   "--pkgs-dir", (tmp.path() / "pkgs2").string(), "hello"});
    check_one_line(no);
    CHECK(no.err.find("401") != std::string::npos);
    CHECK(no.err.find("credentials") != std::string::npos);
}

TEST_CASE("http channel: repodata_version 2's base_url (CEP-15) says where the packages are, version 1's is not read") {
    sf::fs::TempDir tmp("sf-http");
    Nginx server(tmp.path() / "www");
    const auto ch = tmp.path() / "www/ch";
    write_channel(ch, {hello()});
    const std::string fn = hello().fn();
    stdfs::create_directories(tmp.path() / "www/store/linux-64");
    stdfs::copy_file(ch / "linux-64" / fn, tmp.path() / "www/store/linux-64" / fn);
    auto rd = nlohmann::json::parse(sf::test::slurp(ch / "linux-64/repodata.json"));
    rd["repodata_version"] = 2;
    rd["info"]["base_url"] = "../../store/linux-64/";
    std::ofstream(ch / "linux-64/repodata.json") << rd.dump();
    stdfs::remove(ch / "linux-64" / fn);
    const std::string pkgs = (tmp.path() / "pkgs").string();
    auto r = run_cli(tmp.path(), {"install", "-p", (tmp.path() / "p1").string(), "-c", server.url("/ch"), "--pkgs-dir",
                                  pkgs, "hello"});
    INFO(r.err << server.access_log());
    REQUIRE(r.exit == 0);
    CHECK(count(server.hits(), "/store/linux-64/" + fn, 200) == 1);

    // The same key under version 1 is no CEP-15 key: the package is looked for beside repodata.json.
    rd["repodata_version"] = 1;
    std::ofstream(ch / "linux-64/repodata.json") << rd.dump();
    stdfs::copy_file(tmp.path() / "www/store/linux-64" / fn, ch / "linux-64" / fn);
    auto v1 = run_cli(tmp.path(), {"install", "-p", (tmp.path() / "p2").string(), "-c", server.url("/ch"),
                                   "--pkgs-dir", (tmp.path() / "pkgs2").string(), "hello"});
    INFO(v1.err << server.access_log());
    REQUIRE(v1.exit == 0);
    CHECK(count(server.hits(), "/ch/linux-64/" + fn, 200) == 1);
}

TEST_CASE("http channel: install --dry-run solves and says what would change, fetching no package and making no prefix") {
    sf::fs::TempDir tmp("sf-http");
    write_channel(tmp.path() / "www/ch", {hello()});
    Nginx server(tmp.path() / "www");
    const std::string pkgs = (tmp.path() / "pkgs").string();
    const auto prefix = tmp.path() / "p";
    auto dry = run_cli(tmp.path(), {"install", "-p", prefix.string(), "-c", server.url("/ch"), "--pkgs-dir", pkgs,
                                    "--dry-run", "hello"});
    INFO(dry.err);
    REQUIRE(dry.exit == 0);
    CHECK(dry.out == "would install hello-1.0-0\n");
    CHECK_FALSE(stdfs::exists(prefix));
    INFO(server.access_log());
    CHECK(count(server.hits(), "/ch/linux-64/repodata.json", 200) == 1);
    CHECK(count(server.hits(), ".tar.bz2", 200) == 0);
    for (const auto& e : stdfs::recursive_directory_iterator(tmp.path() / "pkgs"))
        CHECK_FALSE(sf::str::ends_with(e.path().string(), ".tar.bz2"));

    // Installed for real, the same dry run has nothing to do.
    REQUIRE(run_cli(tmp.path(), {"install", "-p", prefix.string(), "-c", server.url("/ch"), "--pkgs-dir", pkgs, "hello"})
                .exit == 0);
    auto again = run_cli(tmp.path(), {"install", "-p", prefix.string(), "-c", server.url("/ch"), "--pkgs-dir", pkgs,
                                      "--dry-run", "--json", "hello"});
    INFO(again.err);
    REQUIRE(again.exit == 0);
    auto j = nlohmann::json::parse(again.out);
    CHECK(j["dry_run"] == true);
    CHECK(j["installed"].empty());
    CHECK(j["unchanged"] == nlohmann::json::array({"hello-1.0-0"}));
}
