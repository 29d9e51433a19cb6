// about.license_file through symlinks: a git or path source keeps its links,
// and a licence read through one that leads outside the source and recipe
// folders would ship someone else's file in info/licenses. Such a file is
// warned about ([license-file-outside]) and left out; a link that stays
// inside is packaged as before.
#include <catch2/catch.hpp>

#include <algorithm>
#include <fstream>
#include <map>

#include "engine/engine_detail.hpp"
#include "process/process.hpp"
#include "testutil.hpp"
#include "util/fs.hpp"

namespace stdfs = std::filesystem;
using namespace sf;

namespace {

struct Tree {
    fs::TempDir tmp{"sf-sec-license"};
    engine::detail::Staging st;
    stdfs::path outside = tmp.path() / "outside";
    Tree() {
        st.src_dir = tmp.path() / "work";
        st.recipe_dir = tmp.path() / "recipe";
        put("outside/secret", "secret");
        put("work/COPYING", "copying");
        put("work/real/NOTICE", "notice");
        put("work/LICENSES/a.txt", "a");
        put("recipe/RECIPE_LICENSE", "recipe");
        // Links that leave: a file, a folder, a file in a licence folder, a recipe file.
        link(outside / "secret", "work/LICENSE");
        link(outside, "work/LIC");
        link(outside / "secret", "work/LICENSES/b.txt");
        link(outside, "work/LINKDIR");
        link(outside / "secret", "recipe/EVIL");
        // Links that stay inside: relative, into a folder, across to the recipe.
        link("COPYING", "work/INSIDE");
        link("real", "work/LIC2");
        link(st.recipe_dir / "RECIPE_LICENSE", "work/ACROSS");
    }
    void put(const std::string& rel, const std::string& text) {
        stdfs::create_directories((tmp.path() / rel).parent_path());
        std::ofstream(tmp.path() / rel) << text;
    }
    void link(const stdfs::path& target, const std::string& rel) { stdfs::create_symlink(target, tmp.path() / rel); }
};

struct Got {
    std::map<std::string, std::string> files;  // dest -> content
    std::vector<std::string> warnings;
};

Got licenses(Tree& t, nlohmann::json entries, render::RecipeFormat format) {
    t.st.format = format;
    render::RenderedOutput o;
    o.about["license_file"] = std::move(entries);
    Got g;
    auto r = engine::detail::license_files(t.st, o, g.warnings);
    INFO((r ? std::string() : r.error().str()));
    REQUIRE(r);
    for (const auto& f : *r) g.files[f.dest] = test::slurp(f.source);
    return g;
}

bool all_outside_warnings(const Got& g, size_t n) {
    return g.warnings.size() == n && std::all_of(g.warnings.begin(), g.warnings.end(), [](const std::string& w) {
               return w.find("leads outside the source and recipe folders; not packaged [license-file-outside]") !=
                      std::string::npos;
           });
}

}  // namespace

TEST_CASE("security: meta.yaml licence files through symlinks that leave are not packaged", "[security][license]") {
    Tree t;
    const auto meta = render::RecipeFormat::meta_yaml;
    SECTION("a symlinked file, a file under a symlinked folder, a symlinked folder") {
        auto g = licenses(t, {"LICENSE", "LIC/secret", "LINKDIR/", "EVIL"}, meta);
        CHECK(g.files.empty());
        CHECK(all_outside_warnings(g, 4));
    }
    SECTION("a link inside a licence folder is left out, its sibling kept") {
        auto g = licenses(t, {"LICENSES/"}, meta);
        CHECK(g.files == std::map<std::string, std::string>{{"LICENSES/a.txt", "a"}});
        CHECK(all_outside_warnings(g, 1));
    }
    SECTION("benign twins: links that stay inside the folders are packaged") {
        auto g = licenses(t, {"INSIDE", "LIC2/NOTICE", "LIC2/", "ACROSS", "COPYING"}, meta);
        CHECK(g.files == std::map<std::string, std::string>{{"INSIDE", "copying"},
                                                           {"LIC2/NOTICE", "notice"},
                                                           {"ACROSS", "recipe"},
                                                           {"COPYING", "copying"}});
        CHECK(g.warnings.empty());
    }
}

TEST_CASE("security: recipe.yaml licence files through symlinks that leave are not packaged", "[security][license]") {
    Tree t;
    const auto v1 = render::RecipeFormat::recipe_yaml;
    SECTION("names and globs") {
        auto g = licenses(t, {"LICENSE", "LIC/secret", "LICENSES/*", "EVIL"}, v1);
        CHECK(g.files == std::map<std::string, std::string>{{"LICENSES/a.txt", "a"}});
        CHECK(all_outside_warnings(g, 4));
    }
    SECTION("benign twins") {
        auto g = licenses(t, {"INSIDE", "LIC2/NOTICE", "ACROSS", "RECIPE_LICENSE"}, v1);
        CHECK(g.files == std::map<std::string, std::string>{{"INSIDE", "copying"},
                                                           {"LIC2/NOTICE", "notice"},
                                                           {"ACROSS", "recipe"},
                                                           {"RECIPE_LICENSE", "recipe"}});
        CHECK(g.warnings.empty());
    }
}

namespace {

struct Built {
    int rc = -1;
    std::string err;
};

// `splitforge build` of a recipe whose path source has LICENSE -> `target`.
Built build_with_license_link(const stdfs::path& root, const stdfs::path& target, bool strict) {
    stdfs::create_directories(root / "recipe/src");
    std::ofstream(root / "recipe/src/COPYING") << "copying\n";
    if (!stdfs::exists(stdfs::symlink_status(root / "recipe/src/LICENSE")))
        stdfs::create_symlink(target, root / "recipe/src/LICENSE");
    std::ofstream(root / "recipe/meta.yaml")
        << "package:\n  name: sf-sec-lic\n  version: 1.0\nsource:\n  path: src\nbuild:\n  number: 0\n"
           "  script: mkdir -p $PREFIX/share && echo x > $PREFIX/share/sf-sec-lic\n"
           "about:\n  license: MIT\n  license_file: LICENSE\n";
    std::vector<std::string> args = {test::binary().string(), "build", (root / "recipe").string(), "--output-folder",
                                     (root / "out").string(), "-q"};
    if (strict) args.push_back("--strict");
    process::Command c{args, {}, process::current_env(), {}, {}, {}};
    auto r = process::capture(c);
    REQUIRE(r);
    return {r->exit_code, r->err};
}

}  // namespace

TEST_CASE("security: a build warns about a licence symlink that leaves, and --strict refuses it", "[security][license]") {
    fs::TempDir tmp("sf-sec-license-build");
    std::ofstream(tmp.path() / "secret") << "secret\n";
    auto warned = build_with_license_link(tmp.path() / "a", tmp.path() / "secret", false);
    INFO(warned.err);
    CHECK(warned.rc == 0);
    CHECK(warned.err.find("leads outside the source and recipe folders; not packaged [license-file-outside]") !=
          std::string::npos);
    auto strict = build_with_license_link(tmp.path() / "b", tmp.path() / "secret", true);
    INFO(strict.err);
    CHECK(strict.rc == 2);
    CHECK(strict.err.find(": license: about/license_file entry 'LICENSE'") != std::string::npos);
    // The benign twin: the link stays inside the source.
    auto inside = build_with_license_link(tmp.path() / "c", "COPYING", true);
    INFO(inside.err);
    CHECK(inside.rc == 0);
    CHECK(inside.err.find("license-file-outside") == std::string::npos);
}
