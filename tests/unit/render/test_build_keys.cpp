// The build/ keys conda-build's packaging reads (render/build_keys.hpp):
// prefix keys, always_include_files, no_link, link script names, and the
// keys a build refuses (the output is unbuildable; render still succeeds).
#include <catch2/catch.hpp>

#include <fstream>

#include "render/render.hpp"
#include "testutil.hpp"

using namespace sf;

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

const render::RenderedOutput& named(const render::RenderedRecipe& r, const std::string& name) {
    for (const auto& o : r.outputs)
        if (o.name == name) return o;
    FAIL("no output " << name);
    return r.outputs.front();
}

using V = std::vector<std::string>;

}  // namespace

TEST_CASE("render: the prefix keys, always_include_files and no_link as given") {
    fs::TempDir tmp("sf-buildkeys");
    auto r = render_text(tmp,
                         "package: {name: a, version: '1'}\n"
                         "build:\n  has_prefix_files:\n    - etc/a.cfg\n  binary_has_prefix_files: lib/x.so\n"
                         "  ignore_prefix_files:\n    - share/*\n  detect_binary_files_with_prefix: false\n"
                         "  always_include_files:\n    - lib/libz.a\n  no_link: bin/tool\n");
    const auto& k = r.outputs[0].post_build;
    CHECK(k.has_prefix_files == V{"etc/a.cfg"});
    CHECK(k.binary_has_prefix_files == V{"lib/x.so"});  // ensure_list
    CHECK(k.ignore_prefix_files == V{"share/*"});
    CHECK_FALSE(k.ignore_prefix_all);
    CHECK(k.detect_binary_files_with_prefix == std::optional<bool>(false));
    CHECK(k.always_include_files == V{"lib/libz.a"});
    CHECK(k.no_link == V{"bin/tool"});
    CHECK(r.outputs[0].unbuildable.empty());
    SECTION("ignore_prefix_files: true; anything but a bool or a list makes the output unbuildable") {
        auto all = render_text(tmp, "package: {name: a, version: '1'}\nbuild:\n  ignore_prefix_files: true\n");
        CHECK(all.outputs[0].post_build.ignore_prefix_all);
        auto bad = render_text(tmp, "package: {name: a, version: '1'}\nbuild:\n  ignore_prefix_files: {a: 1}\n");
        CHECK(bad.outputs[0].unbuildable.find("should be boolean or a list") != std::string::npos);
    }
}

TEST_CASE("render: link script names as conda-build's create_post_scripts picks them") {
    fs::TempDir tmp("sf-buildkeys");
    auto r = render_text(tmp,
                         "package: {name: top, version: '1'}\n"
                         "build:\n  post-link: ignored-for-the-package\n"
                         "outputs:\n"
                         "  - name: top\n"
                         "  - name: lib\n    build:\n      pre-link: custom\n");
    const auto& top = named(r, "top").post_build.link_scripts;
    CHECK(top.at("post-link") == "post-link.sh");  // the package's own: no build/<kind> override
    CHECK(top.at("pre-unlink") == "pre-unlink.sh");
    const auto& lib = named(r, "lib").post_build.link_scripts;
    CHECK(lib.at("pre-link") == "custom.sh");
    CHECK(lib.at("post-link") == "lib-post-link.sh");
}

TEST_CASE("render: merge_build_host: true renders, and the output is unbuildable at its line") {
    fs::TempDir tmp("sf-buildkeys");
    auto r = render_text(tmp, "package: {name: a, version: '1'}\nbuild:\n  number: 0\n  merge_build_host: true\n");
    CHECK(r.outputs[0].unbuildable.find("meta.yaml:4: a: build/merge_build_host: true is not supported") !=
          std::string::npos);
    auto off = render_text(tmp, "package: {name: a, version: '1'}\nbuild:\n  merge_build_host: false\n");
    CHECK(off.outputs[0].unbuildable.empty());
}

TEST_CASE("render: index.json's keys from build/ (info_index)") {
    fs::TempDir tmp("sf-buildkeys");
    auto r = render_text(tmp,
                         "package: {name: a, version: '1'}\n"
                         "build:\n  features:\n    - f1\n    - f2\n  track_features:\n    - tf\n"
                         "  provides_features:\n    blas: mkl\n  python_site_packages_path: lib/py/sp\n"
                         "  requires_features: {}\n");
    const auto& k = r.outputs[0].post_build;
    CHECK(k.track_features == V{"tf"});
    CHECK(k.index_extra == nlohmann::json{{"features", "f1 f2"},
                                          {"provides_features", {{"blas", "mkl"}}},
                                          {"python_site_packages_path", "lib/py/sp"}});  // an empty dict is left out
}

TEST_CASE("render: preferred_env and pin_depends make the output unbuildable at their line") {
    fs::TempDir tmp("sf-buildkeys");
    auto r = render_text(tmp, "package: {name: a, version: '1'}\nbuild:\n  pin_depends: strict\n");
    CHECK(r.outputs[0].unbuildable.find("meta.yaml:3: a: build/pin_depends is not supported") != std::string::npos);
}
