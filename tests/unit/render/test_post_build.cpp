// The build/ keys conda-build's post.py reads (rpaths, binary_relocation,
// error_overlinking, ...), as render carries them to the packager.
#include <catch2/catch.hpp>

#include <fstream>

#include "render/render.hpp"
#include "testutil.hpp"

using namespace sf;
namespace stdfs = std::filesystem;

namespace {

render::RenderedRecipe render_text(const fs::TempDir& tmp, const std::string& meta) {
    std::ofstream(tmp.path() / "meta.yaml") << meta;
    auto sel = variant::select("linux-64", {}, {});
    REQUIRE(sel);
    auto r = render::render_dir(tmp.path(), *sel);
    INFO((r ? "" : r.error().str()));
    REQUIRE(r);
    return *r;
}

}  // namespace

TEST_CASE("render: post.py's build/ keys, with conda-build's defaults") {
    fs::TempDir tmp("sf-postbuild");
    SECTION("defaults: rpaths [lib], relocation on, the error_* keys unset") {
        auto r = render_text(tmp, "package: {name: a, version: '1'}\n");
        REQUIRE(r.outputs.size() == 1);
        const auto& k = r.outputs[0].post_build;
        CHECK(k.rpaths == std::vector<std::string>{"lib"});
        CHECK(k.binary_relocation);
        CHECK(k.relocate_only.empty());
        CHECK_FALSE(k.error_overlinking);
        CHECK_FALSE(k.error_overdepending);
    }
    SECTION("as the recipe gives them; a plain `false` is YAML's boolean") {
        auto r = render_text(tmp,
                             "package: {name: a, version: '1'}\n"
                             "build:\n  rpaths:\n    - lib\n    - lib/sub\n  binary_relocation: false\n"
                             "  error_overlinking: true\n  error_overdepending: false\n"
                             "  missing_dso_whitelist:\n    - '*/libcuda.so*'\n  runpath_whitelist:\n    - lib/x.so\n"
                             "  overlinking_ignore_patterns:\n    - bin/*\n");
        const auto& k = r.outputs[0].post_build;
        CHECK(k.rpaths == std::vector<std::string>{"lib", "lib/sub"});
        CHECK_FALSE(k.binary_relocation);
        CHECK(k.error_overlinking == std::optional<bool>(true));
        CHECK(k.error_overdepending == std::optional<bool>(false));
        CHECK(k.missing_dso_whitelist == std::vector<std::string>{"*/libcuda.so*"});
        CHECK(k.runpath_whitelist == std::vector<std::string>{"lib/x.so"});
        CHECK(k.overlinking_ignore_patterns == std::vector<std::string>{"bin/*"});
    }
    SECTION("binary_relocation as a list of globs; anything else is an error") {
        auto r = render_text(tmp, "package: {name: a, version: '1'}\nbuild:\n  binary_relocation:\n    - lib/*.so\n");
        CHECK(r.outputs[0].post_build.relocate_only == std::vector<std::string>{"lib/*.so"});
        std::ofstream(tmp.path() / "meta.yaml") << "package: {name: a, version: '1'}\nbuild:\n  binary_relocation: sometimes\n";
        auto bad = render::render_dir(tmp.path(), *variant::select("linux-64", {}, {}));
        REQUIRE_FALSE(bad);
        CHECK(bad.error().str().find("build/binary_relocation should be boolean or a list of paths") != std::string::npos);
    }
    SECTION("the top level's error_overlinking holds for every output; an output's own wins") {
        auto r = render_text(tmp,
                             "package: {name: top, version: '1'}\nbuild:\n  error_overlinking: true\n"
                             "outputs:\n  - name: b\n    build:\n      error_overlinking: false\n  - name: c\n");
        std::map<std::string, std::optional<bool>> by_name;
        for (const auto& o : r.outputs) by_name[o.name] = o.post_build.error_overlinking;
        CHECK(by_name["b"] == std::optional<bool>(false));
        CHECK(by_name["c"] == std::optional<bool>(true));
    }
}

TEST_CASE("render: on Windows, build paths at the start of a value still parse (jax, pyarrow)") {
    // conda-build's values are absolute paths; "%PREFIX%" would open a plain
    // YAML scalar with '%', a directive.
    fs::TempDir tmp("sf-postbuild-win");
    std::ofstream(tmp.path() / "meta.yaml") << "package: {name: a, version: '1'}\nbuild:\n"
                                               "  script: {{ PYTHON }} -m pip install .\n"
                                               "  rpaths:\n    - {{ SP_DIR }}/a\n";
    auto sel = variant::select("win-64", {}, {});
    REQUIRE(sel);
    auto r = render::render_dir(tmp.path(), *sel);
    INFO((r ? "" : r.error().str()));
    REQUIRE(r);
    REQUIRE(r->outputs.size() == 1);
    CHECK(r->outputs[0].post_build.rpaths == std::vector<std::string>{"$PREFIX\\Lib\\site-packages/a"});
}
