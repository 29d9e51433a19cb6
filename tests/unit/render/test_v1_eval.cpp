// recipe.yaml evaluation (render/v1_eval.cpp): how values become text.
#include <catch2/catch.hpp>

#include "recipe/v1_recipe.hpp"
#include "render/render.hpp"
#include "render/v1_render.hpp"
#include "testutil.hpp"
#include "util/fs.hpp"

using namespace sf;
using namespace sf::render;

namespace {

RenderedRecipe render_text(const std::string& text, std::vector<std::pair<std::string, std::string>> overrides = {}) {
    auto r = recipe::parse_v1_recipe(text, "recipe.yaml");
    REQUIRE(r);
    auto sel = variant::select("linux-64", {}, {});
    REQUIRE(sel);
    sel->overrides = std::move(overrides);
    auto rr = render_v1(*r, *sel);
    INFO((rr ? std::string() : rr.error().str()));
    REQUIRE(rr);
    return *rr;
}

// The recipe in a directory with one variant file beside it.
RenderedRecipe render_with(const std::string& recipe, const std::string& variant_file, const std::string& variants) {
    fs::TempDir tmp("sf-v1-eval");
    REQUIRE(fs::write_file_atomic(tmp.path() / "recipe.yaml", recipe));
    REQUIRE(fs::write_file_atomic(tmp.path() / variant_file, variants));
    auto sel = variant::select("linux-64", {}, {});
    REQUIRE(sel);
    auto rr = render_dir(tmp.path(), *sel);
    INFO((rr ? std::string() : rr.error().str()));
    REQUIRE(rr);
    return *rr;
}

}  // namespace

TEST_CASE("v1 text: values print as minijinja prints them") {
    auto rr = render_text(R"(package:
  name: foo
  version: 1.0
about:
  summary: '${{ [1, "a", none, true, 1.0] }}'
  description: 'd ${{ {"k": [2.5]} }} ${{ 4 / 2 }} ${{ true }} ${{ none }} ${{ "x" ~ 1.0 ~ false }}'
build:
  string: ${{ true }}
)");
    REQUIRE(rr.outputs.size() == 1);
    const auto& about = rr.outputs[0].about;
    CHECK(about.at("summary") == "[1, \"a\", None, True, 1.0]");
    CHECK(about.at("description") == "d {\"k\": [2.5]} 2.0 True None x1.0False");
    // A whole `${{ }}` is a typed value: rattler-build's Variable prints a
    // boolean as Rust does.
    CHECK(rr.outputs[0].build_string == "true");
}
