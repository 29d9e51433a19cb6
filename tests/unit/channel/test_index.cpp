#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>
#include <algorithm>
#include <thread>

#include "channel/index.hpp"
#include "package/writer.hpp"
#include "testutil.hpp"
#include "unit/package/fixture.hpp"
#include "util/hash.hpp"

using namespace sf;
namespace stdfs = std::filesystem;
using nlohmann::json;

namespace {

// Writes demo packages named <base>-<i> into `out`; returns their paths.
std::vector<stdfs::path> make_packages(const stdfs::path& work, const std::string& base, int n,
                                       package::Format fmt = package::Format::conda) {
    const stdfs::path files = work / ("files-" + base);
    if (!stdfs::exists(files)) test::make_payload(files, "/opt/prefix");
    std::vector<stdfs::path> out;
    for (int i = 0; i < n; ++i) {
        auto m = test::demo_meta(base + "-" + std::to_string(i));
        package::WriteOptions o;
        o.format = fmt;
        o.zstd_level = 1;
        auto w = package::write_package({files, m, {}}, work / "out", o);
        REQUIRE(w);
        out.insert(out.end(), w->begin(), w->end());
    }
    return out;
}

json repodata(const stdfs::path& channel, const std::string& subdir) {
    auto text = fs::read_file(channel / subdir / "repodata.json");
    REQUIRE(text);
    return json::parse(*text);
}

}  // namespace

TEST_CASE("an empty channel gets an empty noarch/repodata.json") {
    fs::TempDir tmp("sf-chan");
    auto stats = channel::index_channel(tmp.path());
    REQUIRE(stats);
    CHECK(stats->subdirs == 1);
    json r = repodata(tmp.path(), "noarch");
    CHECK(r == json{{"info", {{"subdir", "noarch"}}},
                    {"packages", json::object()},
                    {"packages.conda", json::object()},
                    {"removed", json::array()},
                    {"repodata_version", 1}});
    CHECK_FALSE(channel::index_channel(tmp.path() / "missing"));
}

TEST_CASE("index records are index.json plus md5, sha256 and size") {
    fs::TempDir tmp("sf-chan");
    auto pkgs = make_packages(tmp.path(), "lib", 1, package::Format::both);
    const stdfs::path ch = tmp.path() / "channel";
    stdfs::create_directories(ch / "linux-64");
    for (const auto& p : pkgs) stdfs::copy_file(p, ch / "linux-64" / p.filename());
    auto stats = channel::index_channel(ch);
    REQUIRE(stats);
    CHECK(stats->packages == 2);
    CHECK(stats->hashed == 2);
    json r = repodata(ch, "linux-64");
    CHECK(r["info"]["subdir"] == "linux-64");
    REQUIRE(r["packages.conda"].contains("lib-0-1.0-h0_0.conda"));
    REQUIRE(r["packages"].contains("lib-0-1.0-h0_0.tar.bz2"));
    const json& rec = r["packages.conda"]["lib-0-1.0-h0_0.conda"];
    auto d = hash::file_digests(ch / "linux-64/lib-0-1.0-h0_0.conda");
    REQUIRE(d);
    CHECK(rec["sha256"] == d->sha256);
    CHECK(rec["md5"] == d->md5);
    CHECK(rec["size"] == d->size);
    CHECK(rec["name"] == "lib-0");
    CHECK(rec["timestamp"] == 1700000000000);
    CHECK(stdfs::exists(ch / "noarch/repodata.json"));
}

TEST_CASE("indexing is incremental") {
    fs::TempDir tmp("sf-chan");
    auto pkgs = make_packages(tmp.path(), "inc", 3);
    const stdfs::path ch = tmp.path() / "channel";
    stdfs::create_directories(ch / "linux-64");
    for (const auto& p : pkgs) stdfs::copy_file(p, ch / "linux-64" / p.filename());
    auto first = channel::index_channel(ch);
    REQUIRE(first);
    CHECK(first->hashed == 3);
    CHECK(first->cached == 0);
    const json before = repodata(ch, "linux-64");

    auto second = channel::index_channel(ch);
    REQUIRE(second);
    CHECK(second->hashed == 0);
    CHECK(second->cached == 3);
    CHECK(repodata(ch, "linux-64") == before);

    SECTION("a replaced file is hashed again, a removed one drops out") {
        auto m = test::demo_meta("inc-0");
        m.timestamp = 1800000000000;
        package::WriteOptions o;
        o.zstd_level = 1;
        auto w = package::write_package({tmp.path() / "files-inc", m, {}}, tmp.path() / "new", o);
        REQUIRE(w);
        stdfs::copy_file(w->front(), ch / "linux-64/.tmp-copy");
        stdfs::rename(ch / "linux-64/.tmp-copy", ch / "linux-64/inc-0-1.0-h0_0.conda");
        stdfs::remove(ch / "linux-64/inc-2-1.0-h0_0.conda");
        auto third = channel::index_channel(ch);
        REQUIRE(third);
        CHECK(third->hashed == 1);
        CHECK(third->cached == 1);
        json r = repodata(ch, "linux-64");
        CHECK(r["packages.conda"].size() == 2);
        CHECK(r["packages.conda"]["inc-0-1.0-h0_0.conda"]["timestamp"] == 1800000000000);
        CHECK_FALSE(r["packages.conda"].contains("inc-2-1.0-h0_0.conda"));
    }
    SECTION("a damaged cache is rebuilt") {
        test::put(ch / "linux-64/.cache/index-cache.json", "{not json");
        auto again = channel::index_channel(ch);
        REQUIRE(again);
        CHECK(again->hashed == 3);
        CHECK(repodata(ch, "linux-64") == before);
    }
}

TEST_CASE("broken or misplaced package files are skipped with a warning") {
    fs::TempDir tmp("sf-chan");
    auto pkgs = make_packages(tmp.path(), "ok", 1);
    const stdfs::path ch = tmp.path() / "channel";
    stdfs::create_directories(ch / "linux-64");
    stdfs::create_directories(ch / "osx-64");
    stdfs::copy_file(pkgs[0], ch / "linux-64" / pkgs[0].filename());
    stdfs::copy_file(pkgs[0], ch / "osx-64" / pkgs[0].filename());  // subdir mismatch
    test::put(ch / "linux-64/garbage-1.0-0.conda", "this is not a zip");
    std::string renamed = "wrongname-1.0-0.conda";
    stdfs::copy_file(pkgs[0], ch / "linux-64" / renamed);
    auto stats = channel::index_channel(ch);
    REQUIRE(stats);
    CHECK(stats->packages == 1);
    REQUIRE(stats->warnings.size() == 3);
    // The renamed one is refused by the reader, as conda refuses it: its
    // inner tarballs keep the old name.
    CHECK(std::count_if(stats->warnings.begin(), stats->warnings.end(), [&](const std::string& w) {
              return w.find(renamed + ": '") != std::string::npos &&
                     w.find("does not match the file name") != std::string::npos;
          }) == 1);
    json r = repodata(ch, "linux-64");
    CHECK(r["packages.conda"].size() == 1);
    CHECK(repodata(ch, "osx-64")["packages.conda"].empty());
}

TEST_CASE("add_package places a package and indexes it") {
    fs::TempDir tmp("sf-chan");
    auto pkgs = make_packages(tmp.path(), "add", 1, package::Format::both);
    const stdfs::path ch = tmp.path() / "channel";
    for (const auto& p : pkgs) {
        auto dest = channel::add_package(ch, p);
        REQUIRE(dest);
        CHECK(*dest == ch / "linux-64" / p.filename());
    }
    json r = repodata(ch, "linux-64");
    CHECK(r["packages.conda"].size() == 1);
    CHECK(r["packages"].size() == 1);
    CHECK(stdfs::exists(ch / "noarch/repodata.json"));
    for (const auto& e : stdfs::directory_iterator(ch / "linux-64")) {
        std::string n = e.path().filename().string();
        CHECK(n.find(".tmp-") == std::string::npos);
        CHECK(n.find(".sftmp-") == std::string::npos);
    }
    CHECK_FALSE(channel::add_package(ch, tmp.path() / "missing-1-0.conda"));
}

TEST_CASE("concurrent add_package calls never lose a record") {
    fs::TempDir tmp("sf-chan");
    const int per_thread = 6;
    auto a = make_packages(tmp.path() / "a", "alpha", per_thread);
    auto b = make_packages(tmp.path() / "b", "beta", per_thread);
    const stdfs::path ch = tmp.path() / "channel";
    std::vector<std::string> errors[2];
    auto worker = [&](const std::vector<stdfs::path>& list, std::vector<std::string>& errs) {
        for (const auto& p : list) {
            auto r = channel::add_package(ch, p);
            if (!r) errs.push_back(r.error().str());
        }
    };
    std::thread t1(worker, std::cref(a), std::ref(errors[0]));
    std::thread t2(worker, std::cref(b), std::ref(errors[1]));
    t1.join();
    t2.join();
    CHECK(errors[0].empty());
    CHECK(errors[1].empty());
    json r = repodata(ch, "linux-64");
    CHECK(r["packages.conda"].size() == 2 * per_thread);
    for (const auto& p : a) CHECK(r["packages.conda"].contains(p.filename().string()));
    for (const auto& p : b) CHECK(r["packages.conda"].contains(p.filename().string()));
}
