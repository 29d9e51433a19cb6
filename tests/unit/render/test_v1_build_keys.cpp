// recipe.yaml's build keys the build refuses (render/v1_build_keys.hpp):
// render succeeds, the output is unbuildable at the key's line and column.
#include <catch2/catch.hpp>

#include "recipe/v1_recipe.hpp"
#include "render/v1_render.hpp"
#include "variant/selection.hpp"

using namespace sf;

namespace {

render::RenderedRecipe render_text(const std::string& text) {
    auto r = recipe::parse_v1_recipe(text, "recipe.yaml");
    REQUIRE(r);
    auto sel = variant::select("linux-64", {}, {});
    REQUIRE(sel);
    auto rr = render::render_v1(*r, *sel);
    INFO((rr ? std::string() : rr.error().str()));
    REQUIRE(rr);
    return *rr;
}

const std::string kHead = "package:\n  name: foo\n  version: 1.0\nbuild:\n  number: 0\n";

}  // namespace

TEST_CASE("v1 build keys that change the package are refused where they stand") {
    SECTION("prefix_detection") {
        auto rr = render_text(kHead + "  prefix_detection:\n    ignore_binary_files: true\n");
        CHECK(rr.outputs[0].unbuildable.find("recipe.yaml:6:3: build.prefix_detection is not supported") == 0);
    }
    SECTION("merge_build_and_host_envs: true, but not false") {
        auto on = render_text(kHead + "  merge_build_and_host_envs: true\n");
        CHECK(on.outputs[0].unbuildable.find("build.merge_build_and_host_envs") != std::string::npos);
        auto off = render_text(kHead + "  merge_build_and_host_envs: false\n");
        CHECK(off.outputs[0].unbuildable.empty());
    }
    SECTION("an empty list changes nothing") {
        auto rr = render_text(kHead + "  always_include_files: []\n");
        CHECK(rr.outputs[0].unbuildable.empty());
    }
    SECTION("build.files") {
        auto rr = render_text(kHead + "  files:\n    - lib/*.so\n");
        CHECK(rr.outputs[0].unbuildable.find("recipe.yaml:6:3: build.files") == 0);
    }
}
