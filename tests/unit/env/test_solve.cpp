#include <catch2/catch.hpp>

#include "env/solve.hpp"
#include "testutil.hpp"
#include "util/fs.hpp"

using namespace sf::env;
namespace stdfs = std::filesystem;
using sf::types::MatchSpec;

namespace {

Candidate cand(const std::string& name, const std::string& version, const std::string& build,
               std::vector<std::string> depends = {}, std::vector<std::string> constrains = {}, int bn = 0,
               const std::string& ext = ".conda") {
    nlohmann::json j = {{"name", name}, {"version", version}, {"build", build}, {"build_number", bn},
                        {"depends", depends}, {"constrains", constrains}, {"subdir", "linux-64"}};
    Candidate c;
    c.record = *sf::types::PackageRecord::from_json(j, "test");
    c.record.fn = name + "-" + version + "-" + build + ext;
    for (const auto& d : depends) c.depends.push_back(*MatchSpec::parse(d));
    for (const auto& d : constrains) c.constrains.push_back(*MatchSpec::parse(d));
    return c;
}

SolveRequest req(std::vector<std::string> specs) {
    SolveRequest r;
    for (const auto& s : specs) r.specs.push_back(*MatchSpec::parse(s));
    return r;
}

std::vector<std::string> names(const std::vector<Candidate>& cs) {
    std::vector<std::string> out;
    for (const auto& c : cs) out.push_back(c.record.dist_name());
    std::sort(out.begin(), out.end());
    return out;
}

}  // namespace

TEST_CASE("solve: the fixture channel", "[solve]") {
    auto ch = sf::test::data_dir() / "env/fixtures/valid";
    auto idx = load_channels({ch}, *sf::types::Platform::parse("linux-64"));
    REQUIRE(idx);
    CHECK(idx->packages.size() == 2);
    auto r = solve(*idx, req({"demo-tool"}));
    REQUIRE(r);
    REQUIRE(r->size() == 2);
    CHECK((*r)[0].record.name == "demolib");  // dependencies first
    CHECK((*r)[1].record.name == "demo-tool");
    CHECK((*r)[0].file == ch / "linux-64/demolib-1.2.0-h0_0.tar.bz2");
    CHECK((*r)[0].record.url == "file://" + (ch / "linux-64/demolib-1.2.0-h0_0.tar.bz2").string());
}

TEST_CASE("solve: unsatisfiable dependencies name the culprit", "[solve]") {
    auto ch = sf::test::data_dir() / "env/fixtures/unsat-dep";
    auto idx = load_channels({ch}, *sf::types::Platform::parse("linux-64"));
    REQUIRE(idx);
    auto r = solve(*idx, req({"demo-tool"}));
    REQUIRE_FALSE(r);
    CHECK(r.error().str() == "cannot satisfy 'demolib >=2' (required by demo-tool-0.1.0-0): no matching version in "
                             "channels " + ch.string() + " (available: 1.2.0 h0_0)");

    auto none = solve(*idx, req({"nosuch >=1"}));
    REQUIRE_FALSE(none);
    CHECK(none.error().str() == "cannot satisfy 'nosuch >=1' (requested): no such package in channels " + ch.string());
}

TEST_CASE("solve: an invalid repodata record is left out with a warning, not the whole channel", "[solve]") {
    sf::fs::TempDir tmp("sf-test-solve");
    const auto ch = tmp.path() / "ch";
    stdfs::copy(sf::test::data_dir() / "env/fixtures/valid", ch, stdfs::copy_options::recursive);
    auto rd = nlohmann::json::parse(sf::test::slurp(ch / "linux-64/repodata.json"));
    rd["packages"]["broken-1.0-0.tar.bz2"] = {{"name", "broken"}, {"version", "1.0"}, {"build", "0"},
                                              {"build_number", "zero"}};
    REQUIRE(sf::fs::write_file_atomic(ch / "linux-64/repodata.json", rd.dump()));
    auto idx = load_channels({ch}, *sf::types::Platform::parse("linux-64"));
    REQUIRE(idx);
    CHECK(idx->packages.size() == 2);
    REQUIRE(idx->warnings.size() == 1);
    CHECK(idx->warnings[0].find("linux-64/repodata.json: broken-1.0-0.tar.bz2: 'build_number'") != std::string::npos);
    CHECK(solve(*idx, req({"demo-tool"})));  // the rest of the channel is used
    auto r = solve(*idx, req({"broken"}));  // a solve that needs it says why it is not there
    REQUIRE_FALSE(r);
    CHECK(r.error().message.find("no such package in channels " + ch.string() +
                                 "; a record of it was left out as invalid: ") != std::string::npos);
    CHECK(r.error().message.find("broken-1.0-0.tar.bz2: 'build_number'") != std::string::npos);
}

TEST_CASE("solve: channel errors", "[solve]") {
    auto missing = load_channels({"/nonexistent/channel"}, sf::types::Platform::current());
    REQUIRE_FALSE(missing);
    CHECK(missing.error().str() == "channel /nonexistent/channel: no such directory");
    sf::fs::TempDir empty("sf-test-solve");
    auto bare = load_channels({empty.path()}, *sf::types::Platform::parse("linux-64"));
    REQUIRE_FALSE(bare);
    CHECK(bare.error().message == "channel " + empty.path().string() +
                                      ": no linux-64/repodata.json or noarch/repodata.json");
}

TEST_CASE("solve: highest version, then build number, then .conda", "[solve]") {
    ChannelIndex idx;
    idx.channels = {"mem"};
    idx.packages = {cand("foo", "1.9", "0"), cand("foo", "1.10", "0", {}, {}, 0, ".tar.bz2"),
                    cand("foo", "1.10", "1", {}, {}, 1, ".tar.bz2"), cand("foo", "1.10", "1", {}, {}, 1, ".conda"),
                    cand("foo", "2.0a1", "0")};
    // 2.0a1 < 2 in conda order, which is why pins say <2.0a0.
    auto r = solve(idx, req({"foo <2.0a0"}));
    REQUIRE(r);
    REQUIRE(r->size() == 1);
    CHECK((*r)[0].record.dist_name() == "foo-1.10-1");
    CHECK((*r)[0].record.fn == "foo-1.10-1.conda");
}

TEST_CASE("solve: backtracks out of a dead end", "[solve]") {
    ChannelIndex idx;
    idx.channels = {"mem"};
    idx.packages = {cand("a", "2.0", "0", {"b >=2"}), cand("a", "1.0", "0", {"b 1.*"}), cand("b", "2.0", "0"),
                    cand("b", "1.5", "0"), cand("c", "1.0", "0", {"b <2"})};
    auto r = solve(idx, req({"a", "c"}));
    REQUIRE(r);
    CHECK(names(*r) == std::vector<std::string>{"a-1.0-0", "b-1.5-0", "c-1.0-0"});
}

TEST_CASE("solve: constrains limit later choices", "[solve]") {
    ChannelIndex idx;
    idx.channels = {"mem"};
    idx.packages = {cand("x", "1.0", "0", {}, {"y <2"}), cand("y", "2.0", "0"), cand("y", "1.0", "0")};
    auto r = solve(idx, req({"x", "y"}));
    REQUIRE(r);
    CHECK(names(*r) == std::vector<std::string>{"x-1.0-0", "y-1.0-0"});

    auto clash = solve(idx, req({"x", "y >=2"}));
    REQUIRE_FALSE(clash);
    CHECK(clash.error().str() == "cannot satisfy 'y >=2' (requested): excluded by constraint 'y <2' of x-1.0-0");
}

TEST_CASE("solve: virtual packages are treated as present", "[solve]") {
    ChannelIndex idx;
    idx.channels = {"mem"};
    idx.packages = {cand("gpu", "1.0", "0", {"__cuda >=12", "__glibc >=2.17"})};
    auto r = solve(idx, req({"gpu"}));
    REQUIRE(r);
    CHECK(names(*r) == std::vector<std::string>{"gpu-1.0-0"});
}

TEST_CASE("solve: conflicts between requirements", "[solve]") {
    ChannelIndex idx;
    idx.channels = {"mem"};
    idx.packages = {cand("p", "1.0", "0", {"q 1.*"}), cand("q", "1.0", "0"), cand("q", "2.0", "0")};
    auto r = solve(idx, req({"q 2.*", "p"}));
    REQUIRE_FALSE(r);
    CHECK(r.error().str() == "cannot satisfy 'q 1.*' (required by p-1.0-0): conflicts with q-2.0-0 (requested)");
}

TEST_CASE("solve: among builds that tie on every key, the one that adds the fewest packages", "[solve]") {
    ChannelIndex idx;
    idx.channels = {"mem"};
    // Same version, build number, dependency versions and timestamp; "a_0"
    // comes first in the channel, so only the package count can prefer "b_0".
    idx.packages = {cand("t", "1.0", "a_0", {"b", "c"}), cand("t", "1.0", "b_0", {"b"}), cand("b", "1.0", "0"),
                    cand("c", "1.0", "0")};
    auto r = solve(idx, req({"t"}));
    REQUIRE(r);
    CHECK(names(*r) == std::vector<std::string>{"b-1.0-0", "t-1.0-b_0"});

    SECTION("a package required anyway is not new") {
        auto both = solve(idx, req({"t", "c"}));
        REQUIRE(both);
        CHECK(names(*both) == std::vector<std::string>{"b-1.0-0", "c-1.0-0", "t-1.0-a_0"});
    }
    SECTION("a newer timestamp still wins over fewer packages") {
        idx.packages[0].record.timestamp = 1700000000000;
        auto newer = solve(idx, req({"t"}));
        REQUIRE(newer);
        CHECK(names(*newer) == std::vector<std::string>{"b-1.0-0", "c-1.0-0", "t-1.0-a_0"});
    }
}

// `install pytorch-cpu` on the demo channel: the metapackage's builds tie on
// everything of their own (version, build number, one exact pin of pytorch
// each, all of one version), so only one level down, where each pinned
// pytorch build needs its python, do they differ. conda takes the newest
// python (classic: versions of every package maximised; libmamba the same
// here), as it does for `install pytorch`; splitforge once took the first
// build, python 3.10.
TEST_CASE("solve: a metapackage pinning builds of one version takes the one whose build reaches the newest python",
          "[solve]") {
    ChannelIndex idx;
    idx.channels = {"mem"};
    for (const char* py : {"3.10", "3.11", "3.12", "3.13"}) {
        std::string tag = std::string("py3") + (py + 2);  // py310 ... py313
        std::string next = std::string(py).substr(0, 2) + std::to_string(std::stoi(std::string(py).substr(2)) + 1);
        idx.packages.push_back(cand("python", std::string(py) + ".0", "h0_0"));
        idx.packages.push_back(cand("pytorch", "2.5.1", "cpu_" + tag + "_h1_0",
                                    {"python >=" + std::string(py) + ",<" + next + ".0a0", "libtorch 2.5.1 cpu_h2_0"}));
        idx.packages.push_back(cand("pytorch-cpu", "2.5.1", "cpu_" + tag + "_h3_0", {"pytorch 2.5.1 cpu_" + tag + "_h1_0"}));
    }
    idx.packages.push_back(cand("libtorch", "2.5.1", "cpu_h2_0"));
    auto meta = solve(idx, req({"pytorch-cpu"}));
    REQUIRE(meta);
    CHECK(names(*meta) == std::vector<std::string>{"libtorch-2.5.1-cpu_h2_0", "python-3.13.0-h0_0",
                                                   "pytorch-2.5.1-cpu_py313_h1_0", "pytorch-cpu-2.5.1-cpu_py313_h3_0"});
    auto direct = solve(idx, req({"pytorch"}));  // the benign twin: one level less
    REQUIRE(direct);
    CHECK(names(*direct) == std::vector<std::string>{"libtorch-2.5.1-cpu_h2_0", "python-3.13.0-h0_0",
                                                     "pytorch-2.5.1-cpu_py313_h1_0"});
    SECTION("a python pinned by the request still wins") {
        auto pinned = solve(idx, req({"pytorch-cpu", "python 3.11.*"}));
        REQUIRE(pinned);
        CHECK(names(*pinned) == std::vector<std::string>{"libtorch-2.5.1-cpu_h2_0", "python-3.11.0-h0_0",
                                                         "pytorch-2.5.1-cpu_py311_h1_0",
                                                         "pytorch-cpu-2.5.1-cpu_py311_h3_0"});
    }
    SECTION("a dependency cycle two levels down ties instead of recursing") {
        idx.packages.push_back(cand("cyc", "1.0", "a_0", {"cyd 1.0 a_0"}));
        idx.packages.push_back(cand("cyc", "1.0", "b_0", {"cyd 1.0 b_0"}));
        idx.packages.push_back(cand("cyd", "1.0", "a_0", {"cyc 1.0 a_0"}));
        idx.packages.push_back(cand("cyd", "1.0", "b_0", {"cyc 1.0 b_0"}));
        auto cyc = solve(idx, req({"cyc"}));
        REQUIRE(cyc);
        CHECK(names(*cyc) == std::vector<std::string>{"cyc-1.0-a_0", "cyd-1.0-a_0"});
    }
}

// The search once recursed per chosen package: a 20,000-long chain (3 MB of
// repodata) overflowed the stack. It keeps its choice points in a vector now.
TEST_CASE("solve: a 20,000-long dependency chain solves", "[solve]") {
    ChannelIndex idx;
    idx.channels = {"mem"};
    const int n = 20'000;
    for (int i = 0; i < n; ++i) {
        std::vector<std::string> dep;
        if (i + 1 < n) dep.push_back("p" + std::to_string(i + 1));
        idx.packages.push_back(cand("p" + std::to_string(i), "1.0", "0", dep));
    }
    auto r = solve(idx, req({"p0"}));
    REQUIRE(r);
    REQUIRE(r->size() == static_cast<size_t>(n));
    CHECK(r->front().record.name == "p19999");  // dependencies first
    CHECK(r->back().record.name == "p0");

    SECTION("past the memory budget it stops with an error naming it") {
        SolveRequest small = req({"p0"});
        small.limits.max_memory = 1 << 20;
        auto over = solve(idx, small);
        REQUIRE_FALSE(over);
        CHECK(over.error().str() ==
              "the solver gave up: its search state passed 1 MiB (pin some versions to narrow the search)");
    }
}

namespace {

// x0 is pinned to 2.0; x1..x(n-1) have two versions each, and the last
// requires y, which wants x0 1.0: every combination fails, and only after
// trying them all (2^(n-1) dead ends) does the search know.
ChannelIndex exponential(int n) {
    ChannelIndex idx;
    idx.channels = {"mem"};
    for (int i = 0; i < n; ++i)
        for (const char* v : {"1.0", "2.0"})
            idx.packages.push_back(cand("x" + std::to_string(i), v, "0", {i + 1 < n ? "x" + std::to_string(i + 1) : "y"}));
    idx.packages.push_back(cand("y", "1.0", "0", {"x0 1.0"}));
    return idx;
}

}  // namespace

TEST_CASE("solve: an exponential search stops at its budget with an error naming it", "[solve]") {
    auto idx = exponential(6);
    auto small = solve(idx, req({"x0 2.0"}));
    REQUIRE_FALSE(small);
    CHECK(small.error().str() == "cannot satisfy 'x0 1.0' (required by y-1.0-0): conflicts with x0-2.0-0 (requested)");

    auto big = exponential(40);  // 2^39 dead ends
    SolveRequest work = req({"x0 2.0"});
    work.limits.max_work = 10'000;
    auto r = solve(big, work);
    REQUIRE_FALSE(r);
    CHECK(r.error().str() == "the solver gave up after 10000 units of work (requirements taken and candidates "
                             "compared) (pin some versions to narrow the search)");

    SolveRequest time = req({"x0 2.0"});
    time.limits.max_time = std::chrono::milliseconds(0);
    auto t = solve(big, time);
    REQUIRE_FALSE(t);
    CHECK(t.error().str() == "the solver gave up after 0 ms (pin some versions to narrow the search)");
}

TEST_CASE("solve: a package nothing can satisfy is never tried, and the error is the same", "[solve]") {
    ChannelIndex idx;
    idx.channels = {"mem"};
    idx.packages = {cand("a", "2.0", "0", {"nosuch"}), cand("a", "1.5", "0", {"b >=9"}), cand("a", "1.0", "0"),
                    cand("b", "0.5", "0"), cand("b", "1.0", "0")};
    auto r = solve(idx, req({"a"}));
    REQUIRE(r);
    CHECK(names(*r) == std::vector<std::string>{"a-1.0-0"});
    auto only = solve(idx, req({"a >=1.5"}));
    REQUIRE_FALSE(only);
    CHECK(only.error().str() == "cannot satisfy 'b >=9' (required by a-1.5-0): no matching version in channels mem "
                                "(available: 1.0 0, 0.5 0)");
}

TEST_CASE("solve: a failure lists the first ten builds available, not all", "[solve]") {
    ChannelIndex idx;
    idx.channels = {"mem"};
    for (int i = 0; i < 30; ++i) idx.packages.push_back(cand("bad", "1." + std::to_string(i), "0"));
    auto r = solve(idx, req({"bad >=99"}));
    REQUIRE_FALSE(r);
    CHECK(r.error().str() == "cannot satisfy 'bad >=99' (requested): no matching version in channels mem (available: "
                             "1.29 0, 1.28 0, 1.27 0, 1.26 0, 1.25 0, 1.24 0, 1.23 0, 1.22 0, 1.21 0, 1.20 0, and 20 "
                             "more)");
}

TEST_CASE("solve: host-provided names are met by the host unless a channel has them", "[solve]") {
    ChannelIndex idx;
    idx.channels = {"mem"};
    idx.packages = {cand("fmt", "9.1.0", "h924138e_0", {"libgcc-ng >=12", "libstdcxx-ng >=12"})};
    auto bare = solve(idx, req({"fmt"}));
    REQUIRE_FALSE(bare);
    CHECK(bare.error().str().find("libgcc-ng >=12") != std::string::npos);

    auto r = req({"fmt"});
    r.host_provided = {"libgcc-ng", "libstdcxx-ng"};
    auto ok = solve(idx, r);
    REQUIRE(ok);
    CHECK(names(*ok) == std::vector<std::string>{"fmt-9.1.0-h924138e_0"});

    idx.packages.push_back(cand("libgcc-ng", "13.2.0", "h807b86a_0"));  // a channel's copy wins
    auto chan = solve(idx, r);
    REQUIRE(chan);
    CHECK(names(*chan) == std::vector<std::string>{"fmt-9.1.0-h924138e_0", "libgcc-ng-13.2.0-h807b86a_0"});
}

// python 3.12 and 3.13, each over 12 libraries of 30 versions; setuptools
// built for both (its py313 build ranks first, as conda ranks them).
ChannelIndex python_pins() {
    ChannelIndex idx;
    idx.channels = {"mem"};
    std::vector<std::string> libs;
    for (int i = 0; i < 12; ++i) {
        libs.push_back("lib" + std::to_string(i));
        for (int v = 1; v <= 30; ++v) idx.packages.push_back(cand(libs.back(), std::to_string(v) + ".0", "0"));
    }
    for (const char* py : {"3.12.1", "3.13.1"}) idx.packages.push_back(cand("python", py, "0", libs));
    idx.packages.push_back(cand("setuptools", "70.0", "py313_0", {"python >=3.13,<3.14.0a0"}));
    idx.packages.push_back(cand("setuptools", "70.0", "py312_0", {"python >=3.12,<3.13.0a0"}));
    return idx;
}

TEST_CASE("solve: a build for another python is ruled out when chosen, not after every library's versions", "[solve]") {
    auto idx = python_pins();
    for (auto order : {std::vector<std::string>{"python 3.12.*", "setuptools"},
                       std::vector<std::string>{"setuptools", "python 3.12.*"}}) {
        INFO(order[0]);
        SolveRequest r = req(order);
        r.limits.max_work = 200'000;  // 30^12 dead ends without the check
        auto s = solve(idx, r);
        REQUIRE(s);
        auto got = names(*s);
        CHECK(std::count(got.begin(), got.end(), "setuptools-70.0-py312_0") == 1);
        CHECK(std::count(got.begin(), got.end(), "python-3.12.1-0") == 1);
        CHECK(std::count(got.begin(), got.end(), "lib0-30.0-0") == 1);
    }
    // With no python 3.12 build the error names the pin, as before.
    idx.packages.pop_back();
    SolveRequest r = req({"python 3.12.*", "setuptools"});
    r.limits.max_work = 200'000;
    auto s = solve(idx, r);
    REQUIRE_FALSE(s);
    CHECK(s.error().str() == "cannot satisfy 'python >=3.13,<3.14.0a0' (required by setuptools-70.0-py313_0): "
                             "conflicts with python-3.12.1-0 (requested)");
}
