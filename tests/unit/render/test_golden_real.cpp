// Real conda-forge feedstocks (../shared/golden-real): every config renders
// the packages conda-build 24.11.2 renders, hash for hash, with the same
// non-finalized requirement lists.
#include <catch2/catch.hpp>

#include <fstream>

#include "golden_compare.hpp"
#include "render/render.hpp"
#include "util/strings.hpp"

using namespace sf;
namespace stdfs = std::filesystem;

namespace {

struct RealCase {
    std::string feedstock, config;
};

std::vector<RealCase> manifest() {
    std::vector<RealCase> out;
    std::ifstream in(test::shared_dir() / "golden-real" / "MANIFEST.tsv");
    std::string line;
    std::getline(in, line);  // header
    while (std::getline(in, line)) {
        auto cols = str::split(line, '\t');
        if (cols.size() >= 3) out.push_back({cols[0], cols[2]});
    }
    return out;
}

}  // namespace

TEST_CASE("golden-real: real feedstocks render as conda-build renders them") {
    auto cases = manifest();
    if (cases.empty()) test::skip("../shared/golden-real is not here");
    REQUIRE(cases.size() >= 59);
    auto root = test::shared_dir() / "golden-real";
    int failed = 0;
    for (const auto& c : cases) {
        std::string stem = c.config.substr(0, c.config.size() - 5);
        std::string name = c.feedstock + "--" + stem;
        auto sel = variant::select("linux-64", {root / "recipes" / c.feedstock / ".ci_support" / c.config}, {});
        REQUIRE(sel);
        auto rr = render::render_dir(root / "recipes" / c.feedstock / "recipe", *sel);
        std::string diff;
        if (!rr) {
            diff = rr.error().str();
        } else {
            diff = test::diff_builds(*rr, test::slurp(root / "expected" / (name + ".builds.tsv")));
            diff += test::diff_packages(*rr, root / "expected" / (name + ".requirements.json"));
        }
        if (!diff.empty()) ++failed;
        INFO(name << "\n" << diff);
        CHECK(diff.empty());
    }
    CHECK(failed == 0);
}
