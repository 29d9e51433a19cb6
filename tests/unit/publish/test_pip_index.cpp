// The pip index of a folder of wheels: PEP 503 pages, #sha256 links,
// data-requires-python, PEP 658/714 metadata, --keep, and the folder rule.
#include <catch2/catch.hpp>

#include <fstream>
#include <regex>

#include "publish/pip_index.hpp"
#include "testutil.hpp"
#include "unit/publish/wheel_fixture.hpp"
#include "util/hash.hpp"

using namespace sf;
namespace stdfs = std::filesystem;

TEST_CASE("pip index: pages, hashes, Requires-Python and the PEP 658 metadata", "[pip_index]") {
    fs::TempDir tmp("sf-pipidx");
    const auto d = tmp.path() / "cpu";
    const auto w = test::write_wheel(d, "Friendly_Bard", "1.0", "Requires-Python: >=3.9,<4\n");
    test::write_wheel(d, "torch", "0.3.0+cpu");
    auto stats = publish::index_wheels(d);
    REQUIRE(stats);
    CHECK(stats->projects == 2);
    CHECK(stats->wheels == 2);
    CHECK(stats->warnings.empty());
    const std::string root = test::slurp(d / "simple/index.html");
    CHECK(root.find("<a href=\"friendly-bard/\">friendly-bard</a>") != std::string::npos);
    CHECK(root.find("<a href=\"torch/\">torch</a>") != std::string::npos);
    CHECK(root.find("pypi:repository-version") != std::string::npos);
    const std::string page = test::slurp(d / "simple/friendly-bard/index.html");
    const std::string meta = test::slurp(d / "Friendly_Bard-1.0-py3-none-any.whl.metadata");
    CHECK(meta.rfind("Metadata-Version: 2.1\nName: Friendly_Bard\n", 0) == 0);
    const std::string msha = hash::sha256(meta);
    CHECK(page.find("<a href=\"../../Friendly_Bard-1.0-py3-none-any.whl#sha256=" + *hash::file_sha256(w) +
                    "\" data-requires-python=\"&gt;=3.9,&lt;4\" data-dist-info-metadata=\"sha256=" + msha +
                    "\" data-core-metadata=\"sha256=" + msha + "\">Friendly_Bard-1.0-py3-none-any.whl</a>") !=
          std::string::npos);
    // A local version's '+' is percent-encoded in the link; no Requires-Python, no attribute.
    const std::string torch = test::slurp(d / "simple/torch/index.html");
    CHECK(torch.find("href=\"../../torch-0.3.0%2Bcpu-py3-none-any.whl#sha256=") != std::string::npos);
    CHECK(torch.find("data-requires-python") == std::string::npos);
}

TEST_CASE("pip index: a wheel gone takes its page and its metadata file with it", "[pip_index]") {
    fs::TempDir tmp("sf-pipidx");
    const auto d = tmp.path();
    test::write_wheel(d, "a", "1.0");
    const auto b = test::write_wheel(d, "b", "1.0");
    REQUIRE(publish::index_wheels(d));
    REQUIRE(stdfs::exists(d / "simple/b/index.html"));
    stdfs::remove(b);
    REQUIRE(publish::index_wheels(d));
    CHECK(!stdfs::exists(d / "simple/b/index.html"));
    CHECK(!stdfs::exists(d / "b-1.0-py3-none-any.whl.metadata"));
    CHECK(test::slurp(d / "simple/index.html").find("b/") == std::string::npos);
    CHECK(stdfs::exists(d / "a-1.0-py3-none-any.whl.metadata"));
}

TEST_CASE("pip index: --keep lists the newest N dev versions in PEP 440 order and every release", "[pip_index]") {
    fs::TempDir tmp("sf-pipidx");
    const auto d = tmp.path();
    // Lexical order would keep dev9 over dev10; PEP 440 keeps dev10 and dev11.
    for (const char* v : {"0.3.0.dev9", "0.3.0.dev10", "0.3.0.dev11", "0.2.0", "0.3.0rc1"})
        test::write_wheel(d, "torch", std::string(v) + "+cpu");
    auto stats = publish::index_wheels(d, {2});
    REQUIRE(stats);
    CHECK(stats->hidden == 1);
    const std::string page = test::slurp(d / "simple/torch/index.html");
    CHECK(page.find("0.3.0.dev9%2Bcpu") == std::string::npos);
    for (const char* v : {"0.3.0.dev10", "0.3.0.dev11", "0.2.0", "0.3.0rc1"}) CHECK(page.find(std::string(v) + "%2Bcpu") != std::string::npos);
    CHECK(stdfs::exists(d / "torch-0.3.0.dev9+cpu-py3-none-any.whl"));  // left off the page, not deleted
    // Listed oldest first.
    CHECK(page.find("0.2.0%2B") < page.find("dev10%2B"));
    CHECK(page.find("dev10%2B") < page.find("dev11%2B"));
    CHECK(page.find("dev11%2B") < page.find("rc1%2B"));
    CHECK(!publish::index_wheels(d, {0}));
}

TEST_CASE("pip index: a wheel whose METADATA disagrees with its name is skipped with a warning", "[pip_index]") {
    fs::TempDir tmp("sf-pipidx");
    test::write_wheel(tmp.path(), "torch", "1.0", "", "other");
    std::ofstream(tmp.path() / "junk-1.whl") << "not a zip";
    auto stats = publish::index_wheels(tmp.path());
    REQUIRE(stats);
    CHECK(stats->wheels == 0);
    REQUIRE(stats->warnings.size() == 2);
    CHECK(stats->warnings[1].find("torch-1.0-py3-none-any.whl: skipped: ") == 0);
    CHECK(stats->warnings[1].find("its METADATA names other 1.0") != std::string::npos);
}

TEST_CASE("pip index: which folders are wheel folders", "[pip_index]") {
    fs::TempDir tmp("sf-pipidx");
    const auto w = tmp.path() / "w", c = tmp.path() / "c", both = tmp.path() / "both";
    test::write_wheel(w, "a", "1.0");
    stdfs::create_directories(c / "linux-64");
    test::write_wheel(both, "a", "1.0");
    stdfs::create_directories(both / "noarch");
    CHECK(*publish::folder_kind(w) == publish::FolderKind::wheel_folder);
    CHECK(*publish::folder_kind(c) == publish::FolderKind::conda_channel);
    auto r = publish::folder_kind(both);
    REQUIRE(!r);
    CHECK(r.error().message == "holds wheels (a-1.0-py3-none-any.whl) and a conda subdir (noarch/)");
}

TEST_CASE("pip index: METADATA fields", "[pip_index]") {
    const std::string m = "Name: x\nrequires-python: >=3.8,\n  <4\nSummary: s\n\nRequires-Python: no\n";
    CHECK(publish::metadata_field(m, "Requires-Python") == ">=3.8, <4");
    CHECK(publish::metadata_field(m, "Summary") == "s");
    CHECK(publish::metadata_field(m, "Author").empty());
    CHECK(publish::html_escape("<a href='x'>&\"") == "&lt;a href=&#39;x&#39;&gt;&amp;&quot;");
}
