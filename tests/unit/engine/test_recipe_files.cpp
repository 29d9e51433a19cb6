// info/recipe/: conda-build's copy_recipe (meta.yaml) and rattler-build's
// write_recipe_folder (recipe.yaml).
#include <catch2/catch.hpp>

#include <set>

#include "engine/engine_detail.hpp"
#include "testutil.hpp"
#include "util/fs.hpp"

using namespace sf;
namespace stdfs = std::filesystem;

namespace {

struct Recipe {
    fs::TempDir tmp{"sf-recipe-files"};
    engine::BuildOptions opts;
    engine::detail::Ctx ctx{opts};
    engine::detail::Staging st;
    Recipe() {
        st.recipe_dir = tmp.path() / "recipe";
        for (const char* f : {"meta.yaml", "conda_build_config.yaml", "build.sh", "install-lib.sh", "patches/fix.patch",
                              "lib.la", ".git/HEAD", ".hidden", "out/linux-64/x.conda"})
            put(f);
        REQUIRE(fs::write_file_atomic(tmp.path() / "elsewhere", "x"));
        stdfs::create_symlink(tmp.path() / "elsewhere", st.recipe_dir / "link");
        ctx.output = st.recipe_dir / "out";  // an output folder inside the recipe is left out
        ctx.work = ctx.output / ".splitforge-work";
    }
    void put(const std::string& rel) {
        stdfs::create_directories((st.recipe_dir / rel).parent_path());
        REQUIRE(fs::write_file_atomic(st.recipe_dir / rel, rel + "\n"));
    }
};

std::set<std::string> dests(const std::vector<package::ExtraFile>& files) {
    std::set<std::string> out;
    for (const auto& f : files) out.insert(f.dest);
    return out;
}

render::RenderedOutput output(bool top) {
    render::RenderedOutput o;
    o.name = "lib";
    o.version = "1.0";
    o.build_string = "h0_0";
    o.is_staging = top;
    if (!top) o.script = "install-lib.sh";
    o.variant.set("python", "3.12");
    o.about["license"] = "MIT";
    return o;
}

}  // namespace

TEST_CASE("recipe files (meta.yaml): the recipe, the template and its rendering, an output's under parent/", "[engine]") {
    Recipe r;
    auto top = engine::detail::recipe_files(r.ctx, r.st, output(true));
    CHECK(dests(top) == std::set<std::string>{"build.sh", "conda_build_config.yaml", "install-lib.sh", "meta.yaml",
                                              "meta.yaml.template", "patches/fix.patch", ".hidden"});
    for (const auto& f : top) {
        if (f.dest == "meta.yaml") {
            CHECK(f.content.find("# meta.yaml template originally from:\n# recipe/meta.yaml\n") != std::string::npos);
            CHECK(f.content.find("  string: h0_0\n") != std::string::npos);
            CHECK(f.content.find("about:\n  license: MIT\n") != std::string::npos);
        }
        if (f.dest == "conda_build_config.yaml") CHECK(f.content == "python: 3.12\n");
        if (f.dest == "meta.yaml.template") CHECK(f.source == r.st.recipe_dir / "meta.yaml");
    }
    auto out = engine::detail::recipe_files(r.ctx, r.st, output(false));
    CHECK(dests(out) == std::set<std::string>{"conda_build_config.yaml", "install-lib.sh", "meta.yaml", "parent/.hidden",
                                              "parent/build.sh", "parent/conda_build_config.yaml",
                                              "parent/install-lib.sh", "parent/meta.yaml", "parent/patches/fix.patch"});
}

TEST_CASE("recipe files (recipe.yaml): the folder without dot-files, the variant and the rendering", "[engine]") {
    Recipe r;
    r.st.format = render::RecipeFormat::recipe_yaml;
    auto o = output(true);
    o.used = {{"python", "3.12"}};
    auto files = engine::detail::recipe_files(r.ctx, r.st, o);
    CHECK(dests(files) == std::set<std::string>{"build.sh", "conda_build_config.yaml", "install-lib.sh", "lib.la",
                                                "meta.yaml", "patches/fix.patch", "rendered_recipe.yaml",
                                                "variant_config.yaml"});
    for (const auto& f : files)
        if (f.dest == "variant_config.yaml") CHECK(f.content == "python: 3.12\n");
}
