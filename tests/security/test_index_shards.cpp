// What `splitforge index` writes for fast clients (issue 32, item 6):
// repodata.json.zst and CEP-16 shards, read back by an independent reader
// (tests/data/channel/check_shards.py: Debian's python3-msgpack and the zstd
// CLI) and compared record for record with repodata.json; conda-check still
// passes. Then what lives in the channel and could be planted: the shard
// cache, a shard file, a digest in the index cache, a symlinked shards/.
#include <catch2/catch.hpp>

#include <algorithm>
#include <fstream>
#include <iterator>

#include "craft.hpp"
#include "oracle.hpp"
#include "package/writer.hpp"
#include "process/process.hpp"
#include "testproc.hpp"
#include "testutil.hpp"
#include "unit/package/fixture.hpp"
#include "util/fs.hpp"

using namespace sf::test::craft;

namespace {

struct Run {
    int rc = -1;
    std::string out;
};

Run run(std::vector<std::string> argv) {
    sf::process::Command c;
    c.argv = std::move(argv);
    c.env = sf::process::current_env();
    auto r = sf::process::capture(c);
    REQUIRE(r);
    return {r->exit_code, r->out + r->err};
}

Member file(std::string name, std::string data = "x\n") { return {std::move(name), 'f', std::move(data)}; }

Run index(const stdfs::path& ch) { return run({sf::test::binary().string(), "index", ch.string()}); }

// The reader needs Debian's python3 with python3-msgpack and the zstd CLI;
// scripts/deps.sh installs all three, so one missing is a failure.
std::string python() { return stdfs::exists("/usr/bin/python3") ? "/usr/bin/python3" : "python3"; }

Run check_shards(const stdfs::path& ch, const std::vector<std::string>& subdirs = {"linux-64", "noarch"}) {
    INFO("needs python3, python3-msgpack and zstd: bash scripts/deps.sh");
    REQUIRE(run({python(), "-c", "import msgpack"}).rc == 0);
    REQUIRE(sf::test::have_tool("zstd"));
    std::vector<std::string> argv{python(), (sf::test::data_dir() / "channel/check_shards.py").string(), ch.string()};
    argv.insert(argv.end(), subdirs.begin(), subdirs.end());
    return run(argv);
}

// A channel of crafted .tar.bz2 packages (a 1.0, a 2.0, b with a dependency)
// plus .conda ones written by splitforge (c-0, and a .conda of `a`).
stdfs::path make_channel(const stdfs::path& root) {
    const stdfs::path ch = root / "channel";
    Pkg a1 = pkg_with("a", {file("share/a.txt")});
    Pkg a2 = pkg_with("a", {file("share/a.txt", "two\n")});
    a2.version = "2.0";
    write_channel(ch, {a1, a2, pkg_with("b", {file("share/b.txt")}, {"a >=1"})});
    sf::test::make_payload(root / "files", "/opt/prefix");
    for (auto meta : {sf::test::demo_meta("c"), sf::test::demo_meta("a", "3.0")}) {
        sf::package::WriteOptions o;
        o.format = sf::package::Format::conda;
        o.zstd_level = 1;
        auto w = sf::package::write_package({root / "files", meta, {}}, ch / "linux-64", o);
        REQUIRE(w);
    }
    return ch;
}

std::set<std::string> shard_files(const stdfs::path& ch) {
    std::set<std::string> out;
    for (const auto& e : stdfs::directory_iterator(ch / "linux-64/shards")) out.insert(e.path().filename().string());
    return out;
}

void write(const stdfs::path& p, const std::string& s) { std::ofstream(p, std::ios::binary) << s; }

}  // namespace

TEST_CASE("security: index writes shards an independent reader matches to repodata.json", "[security][channel]") {
    sf::fs::TempDir tmp("sf-shards");
    const stdfs::path ch = make_channel(tmp.path());
    auto r = index(ch);
    INFO(r.out);
    REQUIRE(r.rc == 0);
    auto c = check_shards(ch);
    INFO(c.out);
    CHECK(c.rc == 0);
    CHECK(c.out.find("OK linux-64: 5 records in 3 shards") != std::string::npos);
    CHECK(c.out.find("OK noarch: 0 records in 0 shards") != std::string::npos);
    CHECK(sf::test::oracle::conda_check(ch) == "");
}

TEST_CASE("security: index shards are reproducible and incremental", "[security][channel]") {
    sf::fs::TempDir tmp("sf-shards");
    const stdfs::path ch = make_channel(tmp.path());
    REQUIRE(index(ch).rc == 0);
    const std::string index1 = sf::test::slurp(ch / "linux-64/repodata_shards.msgpack.zst");
    const auto files1 = shard_files(ch);
    const auto scan1 = scan(ch / "linux-64/shards");
    SECTION("an unchanged channel: the same bytes, no shard rewritten") {
        REQUIRE(index(ch).rc == 0);
        CHECK(sf::test::slurp(ch / "linux-64/repodata_shards.msgpack.zst") == index1);
        CHECK(scan(ch / "linux-64/shards") == scan1);  // same files, same mtimes
    }
    SECTION("a new build of b: only b's shard is new, its old one is gone") {
        Pkg b2 = pkg_with("b", {file("share/b.txt")}, {"a >=2"});
        b2.version = "2.0";
        write_pkg(ch / "linux-64", b2);
        REQUIRE(index(ch).rc == 0);
        const auto files2 = shard_files(ch);
        std::vector<std::string> gone, added;
        std::set_difference(files1.begin(), files1.end(), files2.begin(), files2.end(), std::back_inserter(gone));
        std::set_difference(files2.begin(), files2.end(), files1.begin(), files1.end(), std::back_inserter(added));
        CHECK(gone.size() == 1);
        CHECK(added.size() == 1);
        auto scan2 = scan(ch / "linux-64/shards");
        for (const auto& [k, v] : scan1)  // the shards of a and c: untouched
            if (k != gone[0]) CHECK(scan2[k] == v);
        auto c = check_shards(ch);
        INFO(c.out);
        CHECK(c.rc == 0);
        // A fresh index of the same files gives the same bytes as the incremental one.
        stdfs::remove_all(ch / "linux-64/shards");
        stdfs::remove_all(ch / "linux-64/.cache");
        const std::string incremental = sf::test::slurp(ch / "linux-64/repodata_shards.msgpack.zst");
        REQUIRE(index(ch).rc == 0);
        CHECK(sf::test::slurp(ch / "linux-64/repodata_shards.msgpack.zst") == incremental);
        CHECK(shard_files(ch) == files2);
    }
}

TEST_CASE("security: a planted shard cache or shard file never makes the index lie", "[security][channel]") {
    sf::fs::TempDir tmp("sf-shards");
    const stdfs::path ch = make_channel(tmp.path());
    REQUIRE(index(ch).rc == 0);
    const stdfs::path cache = ch / "linux-64/.cache/shards-cache.json";
    json j = json::parse(sf::test::slurp(cache));
    const std::string a = j["shards"]["a"], b = j["shards"]["b"];
    SECTION("benign twin: the cache as written, every shard kept") {
        const auto before = scan(ch / "linux-64/shards");
        REQUIRE(index(ch).rc == 0);
        CHECK(scan(ch / "linux-64/shards") == before);
    }
    SECTION("the cache names b's (valid) shard for a") {
        j["shards"]["a"] = b;
        write(cache, j.dump());
        REQUIRE(index(ch).rc == 0);
    }
    SECTION("a's shard file is altered under its name") {
        const stdfs::path f = ch / "linux-64/shards" / (a + ".msgpack.zst");
        std::string bytes = sf::test::slurp(f);
        bytes.back() ^= 1;
        stdfs::remove(f);
        write(f, bytes);
        REQUIRE(index(ch).rc == 0);
    }
    auto c = check_shards(ch);
    INFO(c.out);
    CHECK(c.rc == 0);
    CHECK(c.out.find("OK linux-64: 5 records in 3 shards") != std::string::npos);
}

TEST_CASE("security: a cached record whose sha256 is not hex is skipped, not sharded", "[security][channel]") {
    sf::fs::TempDir tmp("sf-shards");
    const stdfs::path ch = make_channel(tmp.path());
    REQUIRE(index(ch).rc == 0);
    const stdfs::path cache = ch / "linux-64/.cache/index-cache.json";
    json j = json::parse(sf::test::slurp(cache));
    const std::string fn = "b-1.0-0.tar.bz2";
    REQUIRE(j["files"].contains(fn));
    SECTION("benign twin: the cache as written") {
        auto r = index(ch);
        CHECK(r.rc == 0);
        CHECK(r.out.find("not lowercase hex") == std::string::npos);
        auto c = check_shards(ch);
        INFO(c.out);
        CHECK(c.out.find("OK linux-64: 5 records in 3 shards") != std::string::npos);
    }
    SECTION("the record's sha256 made not hex") {
        j["files"][fn]["record"]["sha256"] = std::string(64, 'z');
        write(cache, j.dump());
        auto r = index(ch);
        CHECK(r.rc == 0);
        CHECK(r.out.find(fn + ": skipped: its md5 or sha256 is not lowercase hex") != std::string::npos);
        auto c = check_shards(ch);
        INFO(c.out);
        CHECK(c.rc == 0);
        CHECK(c.out.find("OK linux-64: 4 records in 2 shards") != std::string::npos);
    }
}

TEST_CASE("security: index never writes shards through a symlinked shards/", "[security][channel]") {
    sf::fs::TempDir tmp("sf-shards");
    const stdfs::path ch = make_channel(tmp.path()), outside = tmp.path() / "outside";
    stdfs::create_directories(outside);
    write(outside / "victim.txt", "precious\n");
    SECTION("benign twin: a real shards/ directory") {
        stdfs::create_directories(ch / "linux-64/shards");
        CHECK(index(ch).rc == 0);
        CHECK(shard_files(ch).size() == 3);
    }
    SECTION("shards/ is a symlink out of the channel") {
        stdfs::create_directory_symlink(outside, ch / "linux-64/shards");
        auto r = index(ch);
        CHECK(r.rc == 2);
        CHECK(r.out.find("shards: is a symlink; refusing to write through it") != std::string::npos);
    }
    CHECK(scan(outside).size() == 1);
}
