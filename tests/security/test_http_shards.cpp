// CEP-16 sharded channels over HTTP (issue 32, items 3 and 4): a channel
// `splitforge index` made, its repodata.json removed, served by a real nginx:
// it installs reading only the shards its names reach; a warm run asks for
// nothing with 200; it solves as its repodata.json does; offline it reads
// only the cache. A shard whose bytes do not hash to its name (served by
// tests/data/faulty_http.py) is one line and is not cached.
#include <catch2/catch.hpp>

#include <algorithm>
#include <fstream>

#include "cli_run.hpp"
#include "craft.hpp"
#include "faulty_http.hpp"
#include "nginx.hpp"
#include "testutil.hpp"
#include "util/fs.hpp"

using namespace sf::test::craft;
using sf::test::Nginx;

namespace {

using Run = sf::test::CliRun;

Run run_cli(const stdfs::path& tmp, std::vector<std::string> args) { return sf::test::run_splitforge(tmp, std::move(args)); }

const auto check_one_line = sf::test::check_refused_in_one_line;

Member file(std::string name, std::string data) { return {std::move(name), 'f', std::move(data), {}}; }

// A PyTorch-shaped channel: pytorch-cpu -> pytorch -> libtorch (two
// versions; pytorch constrains the older away) and an unrelated package no
// solve of pytorch-cpu reaches. Indexed by splitforge (shards written).
stdfs::path make_channel(const stdfs::path& ch) {
    Pkg lt1 = pkg_with("libtorch", {file("lib/libtorch.txt", "libtorch 1\n")});
    Pkg lt2 = pkg_with("libtorch", {file("lib/libtorch.txt", "libtorch 2\n")});
    lt2.version = "2.0";
    Pkg lt3 = pkg_with("libtorch", {file("lib/libtorch.txt", "libtorch 3\n")});
    lt3.version = "3.0";
    Pkg pt = pkg_with("pytorch", {file("share/pytorch.txt", "pytorch\n")}, {"libtorch >=1"});
    pt.edit_index = [](json& j) { j["constrains"] = json::array({"libtorch <3"}); };
    Pkg cpu = pkg_with("pytorch-cpu", {file("share/pytorch-cpu.txt", "cpu\n")}, {"pytorch"});
    Pkg other = pkg_with("unrelated", {file("share/unrelated.txt", "no\n")});
    write_channel(ch, {lt1, lt2, lt3, pt, cpu, other});
    auto r = sf::test::run_splitforge(ch.parent_path(), {"index", ch.string()});
    INFO(r.err);
    REQUIRE(r.exit == 0);
    REQUIRE(stdfs::exists(ch / "linux-64/repodata_shards.msgpack.zst"));
    return ch;
}

void only_shards(const stdfs::path& ch) {
    for (const char* sub : {"linux-64", "noarch"})
        for (const char* f : {"repodata.json", "repodata.json.zst"}) stdfs::remove(ch / sub / f);
}

void only_repodata(const stdfs::path& ch) {
    for (const char* sub : {"linux-64", "noarch"}) {
        stdfs::remove(ch / sub / "repodata_shards.msgpack.zst");
        stdfs::remove_all(ch / sub / "shards");
    }
}

int count(const std::vector<Nginx::Hit>& hits, const std::string& needle, int status) {
    int n = 0;
    for (const auto& h : hits) n += h.path.find(needle) != std::string::npos && h.status == status;
    return n;
}

std::vector<std::string> args(const stdfs::path& prefix, const std::string& channel, const stdfs::path& pkgs) {
    return {"install", "-p", prefix.string(), "-c", channel, "--pkgs-dir", pkgs.string(), "pytorch-cpu"};
}

}  // namespace

TEST_CASE("http shards: a shards-only channel installs, reading the shards its names reach, and a warm run fetches nothing with 200") {
    sf::fs::TempDir tmp("sf-shards-http");
    only_shards(make_channel(tmp.path() / "www/ch"));
    Nginx server(tmp.path() / "www");
    const stdfs::path pkgs = tmp.path() / "pkgs";
    auto r = run_cli(tmp.path(), args(tmp.path() / "p1", server.url("/ch"), pkgs));
    INFO(r.err);
    INFO(server.access_log());
    REQUIRE(r.exit == 0);
    CHECK(sf::test::slurp(tmp.path() / "p1/share/pytorch-cpu.txt") == "cpu\n");
    // The highest libtorch that pytorch's constrains allow.
    CHECK(sf::test::slurp(tmp.path() / "p1/lib/libtorch.txt") == "libtorch 2\n");
    CHECK(!stdfs::exists(tmp.path() / "p1/share/unrelated.txt"));
    auto cold = server.hits();
    CHECK(count(cold, "/ch/linux-64/repodata_shards.msgpack.zst", 200) == 1);
    CHECK(count(cold, "/ch/noarch/repodata_shards.msgpack.zst", 200) == 1);
    // pytorch-cpu, pytorch, libtorch: never the unrelated package's shard.
    CHECK(count(cold, "/ch/linux-64/shards/", 200) == 3);
    CHECK(count(cold, "repodata.json", 404) + count(cold, "repodata.json", 200) == 0);
    CHECK(count(cold, ".tar.bz2", 200) == 3);
    CHECK(r.err.find("downloaded 3 packages") != std::string::npos);

    // A second prefix, the same cache: the shard indexes revalidated (304),
    // no shard and no package asked for.
    auto warm = run_cli(tmp.path(), args(tmp.path() / "p2", server.url("/ch"), pkgs));
    INFO(warm.err);
    REQUIRE(warm.exit == 0);
    CHECK(sf::test::slurp(tmp.path() / "p2/lib/libtorch.txt") == "libtorch 2\n");
    auto all = server.hits();
    std::vector<Nginx::Hit> second(all.begin() + static_cast<long>(cold.size()), all.end());
    INFO(server.access_log());
    CHECK(count(second, "/ch/linux-64/repodata_shards.msgpack.zst", 304) == 1);
    CHECK(count(second, "/shards/", 200) + count(second, "/shards/", 304) == 0);
    for (const auto& h : second) CHECK(h.status != 200);

    // Offline: the cache alone answers; an empty cache says what is missing.
    auto off = run_cli(tmp.path(), {"install", "-p", (tmp.path() / "p3").string(), "-c", server.url("/ch"),
                                    "--pkgs-dir", pkgs.string(), "--offline", "pytorch-cpu"});
    INFO(off.err);
    CHECK(off.exit == 0);
    CHECK(server.hits().size() == all.size());
    auto cold_off = run_cli(tmp.path(), {"install", "-p", (tmp.path() / "p4").string(), "-c", server.url("/ch"),
                                         "--pkgs-dir", (tmp.path() / "empty").string(), "--offline", "pytorch-cpu"});
    check_one_line(cold_off);
    CHECK(cold_off.err.find("offline") != std::string::npos);
}

TEST_CASE("http shards: a solve through the shards gives what the same channel's repodata.json gives") {
    sf::fs::TempDir tmp("sf-shards-http");
    const stdfs::path sharded = make_channel(tmp.path() / "www/sharded");
    stdfs::copy(sharded, tmp.path() / "www/full", stdfs::copy_options::recursive);
    only_shards(sharded);
    only_repodata(tmp.path() / "www/full");
    Nginx server(tmp.path() / "www");
    std::string installed[2];
    int i = 0;
    for (const char* ch : {"/sharded", "/full"}) {
        auto a = args(tmp.path() / ("p" + std::to_string(i)), server.url(ch), tmp.path() / ("pkgs" + std::to_string(i)));
        a.push_back("--json");
        auto r = run_cli(tmp.path(), a);
        INFO(r.err);
        REQUIRE(r.exit == 0);
        auto names = json::parse(r.out)["installed"].get<std::vector<std::string>>();
        std::sort(names.begin(), names.end());
        installed[i++] = json(names).dump();
    }
    INFO(server.access_log());
    CHECK(installed[0] == installed[1]);
    CHECK(installed[0].find("libtorch-2.0-0") != std::string::npos);
    CHECK(count(server.hits(), "/full/linux-64/repodata_shards.msgpack.zst", 404) == 1);
    CHECK(count(server.hits(), "/full/linux-64/repodata.json", 200) == 1);
}

TEST_CASE("http shards: a shard whose content does not match its hash is one line and is not cached") {
    sf::fs::TempDir tmp("sf-shards-http");
    const stdfs::path ch = make_channel(tmp.path() / "www/ch");
    only_shards(ch);
    // Every shard's bytes replaced under its old name: whichever the solve
    // reads first, its hash cannot match.
    for (const auto& e : stdfs::directory_iterator(ch / "linux-64/shards"))
        std::ofstream(e.path(), std::ios::binary | std::ios::trunc) << "not the shard " << e.path().filename().string();
    sf::test::FaultyHttp server(tmp.path() / "www", tmp.path());
    const stdfs::path pkgs = tmp.path() / "pkgs";
    auto r = run_cli(tmp.path(), args(tmp.path() / "p", server.url("ok", "/ch"), pkgs));
    check_one_line(r);
    CHECK(r.err.find("does not match its hash") != std::string::npos);
    CHECK(r.err.find("/ok/ch/linux-64/shards/") != std::string::npos);
    CHECK(!stdfs::exists(tmp.path() / "p/share/pytorch-cpu.txt"));
    // Nothing of a shard in the cache.
    std::error_code ec;
    int cached = 0;
    for (auto it = stdfs::recursive_directory_iterator(pkgs / "cache/shards", ec); !ec && it != stdfs::recursive_directory_iterator(); ++it)
        ++cached;
    CHECK(cached == 0);
}

TEST_CASE("http shards: conda's pkgs_dirs (CONDA_PKGS_DIRS) share package archives both ways") {
    sf::fs::TempDir tmp("sf-shards-http");
    only_shards(make_channel(tmp.path() / "www/ch"));
    Nginx server(tmp.path() / "www");
    const stdfs::path conda_pkgs = tmp.path() / "conda-pkgs";
    stdfs::create_directories(conda_pkgs);
    const std::vector<std::pair<std::string, std::string>> env = {{"CONDA_PKGS_DIRS", conda_pkgs.string()}};
    auto r = sf::test::run_splitforge(tmp.path(), args(tmp.path() / "p1", server.url("/ch"), tmp.path() / "pkgs1"), env);
    INFO(r.err);
    REQUIRE(r.exit == 0);
    // What we downloaded, conda now has as it keeps them: <pkgs_dir>/<fn>, no .partial left.
    for (const char* fn : {"pytorch-cpu-1.0-0.tar.bz2", "pytorch-1.0-0.tar.bz2", "libtorch-2.0-0.tar.bz2"}) {
        INFO(fn);
        CHECK(sf::test::slurp(conda_pkgs / fn) == sf::test::slurp(tmp.path() / "www/ch/linux-64" / fn));
        CHECK(!stdfs::exists(conda_pkgs / (std::string(fn) + ".partial")));
    }
    // A cache of our own that is empty: the archives come from conda's, none from the server.
    const auto before = server.hits().size();
    auto again = sf::test::run_splitforge(tmp.path(), args(tmp.path() / "p2", server.url("/ch"), tmp.path() / "pkgs2"), env);
    INFO(again.err);
    REQUIRE(again.exit == 0);
    CHECK(sf::test::slurp(tmp.path() / "p2/lib/libtorch.txt") == "libtorch 2\n");
    auto hits = server.hits();
    std::vector<Nginx::Hit> second(hits.begin() + static_cast<long>(before), hits.end());
    INFO(server.access_log());
    CHECK(count(second, ".tar.bz2", 200) == 0);
}
