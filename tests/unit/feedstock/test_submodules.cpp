#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "feedstock/submodules.hpp"
#include "golden.hpp"
#include "process/process.hpp"
#include "testutil.hpp"
#include "util/fs.hpp"

using namespace sf;
using namespace sf::feedstock;
namespace stdfs = std::filesystem;

namespace {

stdfs::path data() { return test::data_dir() / "feedstock/submodules"; }

// The throwaway upstream checkout (built once per test run).
const stdfs::path& fixture() {
    static fs::TempDir tmp("sf-submodules");
    static stdfs::path repo = [] {
        process::Command c;
        c.argv = {"bash", (data() / "make_fixture.sh").string(), (tmp.path() / "fx").string()};
        c.env = process::minimal_env();
        auto r = process::capture(c);
        REQUIRE(r);
        INFO(r->out << r->err);
        REQUIRE(r->exit_code == 0);
        return tmp.path() / "fx/pytorch";
    }();
    return repo;
}

SubmoduleOptions full_options() {
    SubmoduleOptions o;
    o.source = fixture();
    o.recipe_dir = data() / "recipe";
    o.repodata = {data() / "channel"};
    o.wheel = data() / "wheel/torch-2.5.1-cp312-none-linux_x86_64.whl";
    o.map_files = {data() / "map.yaml"};
    return o;
}

}  // namespace

TEST_CASE("apply_describe: tag, tag+N, hash") {
    Submodule s;
    s.commit = "a6bfc237255a6bac1513f7c1ebde6d8aed6b5191";
    SECTION("exact tag") {
        apply_describe(s, "v3.1.0\n");
        CHECK(s.describe() == "v3.1.0");
    }
    SECTION("past a tag") {
        apply_describe(s, "v2.1.0-705-ga6bfc23\n");
        CHECK(s.tag == "v2.1.0");
        CHECK(s.past_tag == 705);
        CHECK(s.describe() == "v2.1.0+705");
    }
    SECTION("a tag with dashes, past it") {
        apply_describe(s, "release-1.10.0-3-ga6bfc23");
        CHECK(s.describe() == "release-1.10.0+3");
    }
    SECTION("no tag: --always printed the hash") {
        apply_describe(s, "a6bfc23\n");
        CHECK(s.tag.empty());
        CHECK(s.describe() == "a6bfc23");
    }
}

TEST_CASE("read_submodules: real submodules, nested ones included") {
    auto subs = read_submodules(fixture());
    REQUIRE(subs);
    std::map<std::string, std::string> d;
    for (const auto& s : *subs) d[s.path] = s.describe();
    CHECK(d.size() == 6);
    CHECK(d["third_party/NVTX"] == "v3.1.0");                       // tagged commit
    CHECK(d["third_party/sleef"] == "3.6+2");                       // past a tag
    CHECK(d["third_party/FP16"].size() == 7);                       // untagged: short hash
    CHECK(d["third_party/protobuf"] == "v3.7.0rc2+1");
    CHECK(d["third_party/protobuf/third_party/googletest"] == "release-1.10.0");  // nested
}

TEST_CASE("submodules: the table (Markdown and JSON golden)") {
    auto rep = submodule_report(full_options());
    REQUIRE(rep);
    test::check_golden(data() / "expected.md", report_markdown(*rep));
    test::check_golden(data() / "expected.json", report_json(*rep).dump(2) + "\n");
    std::map<std::string, DepRow> rows;
    for (const auto& r : rep->rows) rows[r.package] = r;
    CHECK(rows["sleef"].mismatch);         // >=3.7 excludes 3.6(+2)
    CHECK(rows["sleef"].channel == "3.7");  // newest over .tar.bz2 and .conda
    CHECK(rows["libprotobuf"].recipe == "3.7.*");  // bare host dep: pinned by the variant config
    CHECK(!rows["libprotobuf"].mismatch);
    CHECK(rows["libprotobuf"].channel == "5.28.2");  // 5.28.2 > 5.9.0 by version order
    CHECK(rows["sympy"].upstream == "==1.13.1");
    CHECK(!rows["sympy"].mismatch);
    CHECK(rows["typing_extensions"].source == "(wheel metadata)");  // mapped from typing-extensions
    CHECK(rows.count("nvidia-cuda-runtime-cu12") == 0);             // mapped to ~
    CHECK(rows.count("opt-einsum") == 0);                           // behind an extra
    CHECK(rep->unmapped == std::vector<std::string>{"third_party/unmapped"});
}

TEST_CASE("submodules: a recipe pin that excludes the tagged version is a mismatch") {
    fs::TempDir tmp("sf-sub");
    auto o = full_options();
    REQUIRE(fs::write_file_atomic(tmp.path() / "recipe/meta.yaml",
                                  "package:\n  name: x\n  version: 1\nrequirements:\n  host:\n    - nvtx-c >=3.2\n"));
    o.recipe_dir = tmp.path() / "recipe";
    o.wheel.reset();
    auto rep = submodule_report(o);
    REQUIRE(rep);
    int mismatches = 0;
    for (const auto& r : rep->rows) mismatches += r.mismatch;
    CHECK(mismatches == 1);
}

TEST_CASE("read_wheel_requirements: .whl, unpacked dir and METADATA agree") {
    auto whl = read_wheel_requirements(data() / "wheel/torch-2.5.1-cp312-none-linux_x86_64.whl");
    auto dir = read_wheel_requirements(data() / "wheel");
    auto meta = read_wheel_requirements(data() / "wheel/torch-2.5.1.dist-info/METADATA");
    REQUIRE(whl);
    REQUIRE(dir);
    REQUIRE(meta);
    CHECK(*whl == *dir);
    CHECK(*whl == *meta);
    CHECK(whl->size() == 5);
    CHECK(whl->at(1) == std::pair<std::string, std::string>{"typing-extensions", ">=4.8.0"});
}

TEST_CASE("submodules: bad input") {
    fs::TempDir tmp("sf-sub");
    SECTION("a source dir that is not a git checkout") {
        auto o = full_options();
        o.source = tmp.path();
        auto r = submodule_report(o);
        REQUIRE(!r);
        CHECK(r.error().str() == tmp.path().string() +
                                     ": not a git repository (point --source at a git checkout, e.g. from `git clone --recursive`)");
    }
    SECTION("a missing source dir") {
        auto o = full_options();
        o.source = tmp.path() / "nope";
        CHECK(!submodule_report(o));
    }
    SECTION("malformed repodata") {
        auto r = newest_versions({data() / "malformed-repodata.json"});
        REQUIRE(!r);
        CHECK(r.error().message.find("malformed repodata") != std::string::npos);
        CHECK(r.error().str().find('\n') == std::string::npos);
    }
    SECTION("a channel dir without repodata") {
        auto r = newest_versions({tmp.path()});
        REQUIRE(!r);
        CHECK(r.error().message == "no repodata.json in the channel directory");
    }
    SECTION("a wheel that is not a zip") {
        REQUIRE(fs::write_file_atomic(tmp.path() / "x.whl", "not a zip"));
        CHECK(!read_wheel_requirements(tmp.path() / "x.whl"));
    }
    SECTION("a name map that is not a mapping") {
        REQUIRE(fs::write_file_atomic(tmp.path() / "m.yaml", "submodules: [a, b]\n"));
        NameMap m;
        auto r = read_name_map(tmp.path() / "m.yaml", m);
        REQUIRE(!r);
        CHECK(r.error().loc.line == 1);
    }
}
