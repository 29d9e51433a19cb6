#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "feedstock/ci_matrix.hpp"
#include "golden.hpp"
#include "testutil.hpp"
#include "util/fs.hpp"

using namespace sf;
using namespace sf::feedstock;

namespace {
std::filesystem::path variants() { return test::data_dir() / "feedstock/rerender/perpython/expected"; }
}  // namespace

TEST_CASE("ci-matrix --format github: one line of JSON, an include list (golden)") {
    auto out = ci_matrix(variants(), MatrixFormat::github);
    REQUIRE(out);
    CHECK(out->find('\n') == out->size() - 1);
    auto j = nlohmann::json::parse(*out);
    REQUIRE(j["include"].is_array());
    CHECK(j["include"].size() == 9);
    CHECK(j["include"][0]["config"] == "linux_64_blas_implgeneric");
    CHECK(j["include"][0]["runs-on"] == "cirun-large-cpu");
    CHECK(j["include"][0]["timeout-minutes"] == 900);
    CHECK(j["include"][8]["runs-on"] == "macos-14-xlarge");
    test::check_golden(test::data_dir() / "feedstock/ci-matrix/github.json", *out);
}

TEST_CASE("ci-matrix --format json: the jobs with the keys each one loops over (golden)") {
    auto out = ci_matrix(variants(), MatrixFormat::json);
    REQUIRE(out);
    auto j = nlohmann::json::parse(*out);
    REQUIRE(j.is_array());
    CHECK(j[0]["multi_valued"]["python"].size() == 2);  // the Linux megabuild job
    CHECK(!j[8]["multi_valued"].contains("python"));    // osx: one Python per job
    test::check_golden(test::data_dir() / "feedstock/ci-matrix/jobs.json", *out);
}

TEST_CASE("ci-matrix: bad input") {
    fs::TempDir tmp("sf-matrix");
    SECTION("missing variants dir") {
        auto r = ci_matrix(tmp.path() / "variants", MatrixFormat::github);
        REQUIRE(!r);
        CHECK(r.error().str() == (tmp.path() / "variants").string() +
                                     ": variants directory does not exist (run `splitforge rerender` to create it, "
                                     "or pass --variants-dir)");
    }
    SECTION("empty variants dir") {
        auto r = ci_matrix(tmp.path(), MatrixFormat::github);
        REQUIRE(!r);
        CHECK(r.error().message.find("no variant files") != std::string::npos);
    }
    SECTION("a malformed variant file") {
        REQUIRE(fs::write_file_atomic(tmp.path() / "x.yaml", "target_platform: [linux-64\n"));
        auto r = ci_matrix(tmp.path(), MatrixFormat::json);
        REQUIRE(!r);
        CHECK(r.error().loc.file == (tmp.path() / "x.yaml").string());
    }
}
