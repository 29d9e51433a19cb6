// about.license_file -> info/licenses/: conda-build's generic_copy for
// meta.yaml, rattler-build's copy_license_files for recipe.yaml.
#include <catch2/catch.hpp>

#include <map>

#include "engine/engine_detail.hpp"
#include "testutil.hpp"
#include "util/fs.hpp"

using namespace sf;
namespace stdfs = std::filesystem;

namespace {

struct Dirs {
    fs::TempDir tmp{"sf-licenses"};
    engine::detail::Staging st;
    Dirs() {
        st.src_dir = tmp.path() / "work";
        st.recipe_dir = tmp.path() / "recipe";
        put("work/LICENSE", "work license");
        put("work/LICENSES/a.txt", "a");
        put("work/LICENSES/sub/b.txt", "b");
        put("work/COPYING.md", "copying");
        put("recipe/LICENSE", "recipe license");
        put("recipe/NOTICE.txt", "notice");
    }
    void put(const std::string& rel, const std::string& text) {
        stdfs::create_directories((tmp.path() / rel).parent_path());
        REQUIRE(fs::write_file_atomic(tmp.path() / rel, text));
    }
};

render::RenderedOutput with_licenses(nlohmann::json lf) {
    render::RenderedOutput o;
    o.about["license_file"] = std::move(lf);
    return o;
}

// dest -> the source's path below the temp dir
std::map<std::string, std::string> placed(const Dirs& d, const std::vector<package::ExtraFile>& files) {
    std::map<std::string, std::string> out;
    for (const auto& f : files) out[f.dest] = stdfs::relative(f.source, d.tmp.path()).generic_string();
    return out;
}

}  // namespace

TEST_CASE("license files (meta.yaml): the source dir first, then the recipe dir, folders end with '/'", "[engine]") {
    Dirs d;
    std::vector<std::string> warnings;
    auto r = engine::detail::license_files(d.st, with_licenses({"LICENSE", "NOTICE.txt", "LICENSES/"}), warnings);
    REQUIRE(r);
    CHECK(placed(d, *r) == std::map<std::string, std::string>{{"LICENSE", "work/LICENSE"},
                                                             {"NOTICE.txt", "recipe/NOTICE.txt"},
                                                             {"LICENSES/a.txt", "work/LICENSES/a.txt"},
                                                             {"LICENSES/sub/b.txt", "work/LICENSES/sub/b.txt"}});
    CHECK(warnings.empty());

    SECTION("a single string, an empty entry skipped") {
        auto one = engine::detail::license_files(d.st, with_licenses("COPYING.md"), warnings);
        REQUIRE(one);
        CHECK(placed(d, *one) == std::map<std::string, std::string>{{"COPYING.md", "work/COPYING.md"}});
        auto empty = engine::detail::license_files(d.st, with_licenses({""}), warnings);
        REQUIRE(empty);
        CHECK(empty->empty());
    }
    SECTION("paths starting with '.' or absolute become LICENSE<n>.txt, with a warning") {
        auto r2 = engine::detail::license_files(
            d.st, with_licenses({"./LICENSE", (d.tmp.path() / "recipe/NOTICE.txt").string()}), warnings);
        REQUIRE(r2);
        CHECK(placed(d, *r2) == std::map<std::string, std::string>{{"LICENSE0.txt", "work/LICENSE"},
                                                                  {"LICENSE1.txt", "recipe/NOTICE.txt"}});
        REQUIRE(warnings.size() == 2);
        CHECK(warnings[0].find("[license-file-outside]") != std::string::npos);
    }
    SECTION("a folder without '/' and a missing file are errors naming the entry") {
        auto dir = engine::detail::license_files(d.st, with_licenses("LICENSES"), warnings);
        REQUIRE_FALSE(dir);
        CHECK(dir.error().message.find("'LICENSES' is a directory but does not end with '/'") != std::string::npos);
        auto missing = engine::detail::license_files(d.st, with_licenses({"LICENSE", "NOPE"}), warnings);
        REQUIRE_FALSE(missing);
        CHECK(missing.error().message.find("'NOPE' does not exist") != std::string::npos);
    }
}

TEST_CASE("license files (recipe.yaml): globs over the work and recipe dirs, the recipe's copy wins", "[engine]") {
    Dirs d;
    d.st.format = render::RecipeFormat::recipe_yaml;
    std::vector<std::string> warnings;
    auto r = engine::detail::license_files(d.st, with_licenses({"LICENSE", "LICENSES/*", "*.md"}), warnings);
    REQUIRE(r);
    // globset's `*` crosses '/': LICENSES/* takes sub/b.txt too.
    CHECK(placed(d, *r) == std::map<std::string, std::string>{{"LICENSE", "recipe/LICENSE"},
                                                             {"LICENSES/a.txt", "work/LICENSES/a.txt"},
                                                             {"LICENSES/sub/b.txt", "work/LICENSES/sub/b.txt"},
                                                             {"COPYING.md", "work/COPYING.md"}});
    REQUIRE(warnings.size() == 1);
    CHECK(warnings[0].find("overwritten by the one from the recipe folder (LICENSE)") != std::string::npos);

    SECTION("a glob matching nothing, a path above the dirs, and an absolute path are errors") {
        auto none = engine::detail::license_files(d.st, with_licenses({"LICENSE", "NOPE*", "../work/LICENSE"}), warnings);
        REQUIRE_FALSE(none);
        CHECK(none.error().message == "the following license files were not found: NOPE*, ../work/LICENSE");
        auto abs = engine::detail::license_files(d.st, with_licenses((d.tmp.path() / "work/LICENSE").string()), warnings);
        REQUIRE_FALSE(abs);
        CHECK(abs.error().message.find("absolute paths in license_file are not allowed") == 0);
    }
}
