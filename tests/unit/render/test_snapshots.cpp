// Snapshot tests: tests/data/render/good/<case>/expected.yaml is the rendered
// recipe (warnings.txt its warnings, if any), tests/data/render/bad/<case>/
// expected.txt the exact error line. An `args` file holds --platform, -m, -e
// and --strict.
// Regenerate with SF_UPDATE_SNAPSHOTS=1 and review the diff.
#include <catch2/catch.hpp>

#include <sstream>

#include "render/format.hpp"
#include "render/render.hpp"
#include "testutil.hpp"
#include "util/fs.hpp"
#include "util/strings.hpp"

using namespace sf;
namespace stdfs = std::filesystem;

namespace {

std::vector<stdfs::path> case_dirs(const stdfs::path& root) {
    std::vector<stdfs::path> out;
    for (const auto& d : stdfs::directory_iterator(root))
        if (d.is_directory()) out.push_back(d.path());
    std::sort(out.begin(), out.end());
    return out;
}

variant::Selection options_for(const stdfs::path& dir) {
    std::istringstream args(test::slurp(dir / "args"));
    std::string flag, value, platform = "linux-64";
    std::vector<stdfs::path> files, exclusive;
    bool strict = false;
    while (args >> flag) {
        if (flag == "--strict") {
            strict = true;
            continue;
        }
        if (!(args >> value)) break;
        if (flag == "--platform") platform = value;
        if (flag == "-m") files.push_back(dir / value);
        if (flag == "-e") exclusive.push_back(dir / value);
    }
    auto sel = variant::select(platform, files, {}, exclusive);
    REQUIRE(sel);
    sel->strict = strict;
    return *sel;
}

std::string relative_to_data(std::string s) {
    return str::replace_all(std::move(s), test::data_dir().string() + "/", "");
}

void compare_snapshot(const stdfs::path& file, const std::string& actual) {
    if (test::update_snapshots()) {
        REQUIRE(fs::write_file_atomic(file, actual));
        return;
    }
    REQUIRE(stdfs::exists(file));
    CHECK(test::slurp(file) == actual);
}

}  // namespace

TEST_CASE("render: good recipes match their snapshots") {
    auto dirs = case_dirs(test::data_dir() / "render" / "good");
    REQUIRE(dirs.size() >= 25);
    for (const auto& dir : dirs) {
        SECTION(dir.filename().string()) {
            auto rr = render::render_dir(dir, options_for(dir));
            INFO((rr ? std::string() : rr.error().str()));
            REQUIRE(rr);
            compare_snapshot(dir / "expected.yaml", render::to_yaml(*rr));
            // What conda-build accepts but we warn about: the exact lines.
            std::string warnings;
            for (const auto& w : rr->warnings) warnings += relative_to_data(w.str()) + "\n";
            if (!warnings.empty() || stdfs::exists(dir / "warnings.txt"))
                compare_snapshot(dir / "warnings.txt", warnings);
        }
    }
}

TEST_CASE("render: bad recipes fail with their exact one-line error") {
    auto dirs = case_dirs(test::data_dir() / "render" / "bad");
    REQUIRE(dirs.size() >= 15);
    for (const auto& dir : dirs) {
        SECTION(dir.filename().string()) {
            auto rr = render::render_dir(dir, options_for(dir));
            REQUIRE_FALSE(rr);
            std::string msg = relative_to_data(rr.error().str()) + "\n";
            CHECK(msg.find('\n') == msg.size() - 1);
            compare_snapshot(dir / "expected.txt", msg);
        }
    }
}

TEST_CASE("render: the PyTorch recipe renders cleanly on every platform") {
    for (const char* platform : {"linux-64", "linux-aarch64", "osx-64", "osx-arm64", "win-64"}) {
        SECTION(platform) {
            auto sel = variant::select(platform, {}, {});
            REQUIRE(sel);
            auto rr = render::render_dir(test::source_dir() / "recipe", *sel);
            INFO((rr ? std::string() : rr.error().str()));
            REQUIRE(rr);
            compare_snapshot(test::data_dir() / "render" / "pytorch" / (std::string(platform) + ".builds.tsv"),
                             render::builds_tsv(*rr));
        }
    }
}

TEST_CASE("render: every variants/ config of the PyTorch recipe renders") {
    auto dir = test::source_dir() / "variants";
    REQUIRE(stdfs::exists(dir));  // the repository ships variants/
    for (const auto& f : stdfs::directory_iterator(dir)) {
        if (f.path().extension() != ".yaml") continue;
        SECTION(f.path().stem().string()) {
            // The files name their platform in target_platform.
            auto sel = variant::select("", {f.path()}, {});
            REQUIRE(sel);
            auto rr = render::render_dir(test::source_dir() / "recipe", *sel);
            INFO((rr ? std::string() : rr.error().str()));
            REQUIRE(rr);
            CHECK(!rr->outputs.empty());
            compare_snapshot(test::data_dir() / "render" / "pytorch" / "variants" /
                                 (f.path().stem().string() + ".builds.tsv"),
                             render::builds_tsv(*rr));
        }
    }
}

TEST_CASE("variants: the report for the demo recipe (staging split, first use of each key)") {
    auto raw = recipe::RawRecipe::load(test::source_dir() / "demo" / "minitorch" / "recipe");
    REQUIRE(raw);
    auto rr = render::render(*raw, {});
    REQUIRE(rr);
    rr->key_uses = render::key_uses(*raw, *rr);
    std::string report = str::replace_all(render::variants_report(*rr), test::source_dir().string() + "/", "");
    CHECK(report.find("staging builds split by: cuda_compiler_version, blas_impl") != std::string::npos);
    CHECK(report.find("with_magma") != std::string::npos);
    compare_snapshot(test::data_dir() / "render" / "variants-minitorch.txt", report);
    auto j = render::variants_json(*rr);
    CHECK(j["staging_builds"].size() == 4);
}

TEST_CASE("render: each source remembers its recipe line (a missing source's error names it)") {
    auto raw = recipe::RawRecipe::from_text("package:\n  name: x\n  version: 1\n"
                                            "source:\n"
                                            "  # a comment\n"
                                            "  - url: file:///a.tar.gz\n"
                                            "    sha256: " + std::string(64, 'a') + "\n"
                                            "  - path: ../src\n"
                                            "    folder: b\n"
                                            "build:\n  number: 0\n",
                                            "r/meta.yaml");
    REQUIRE(raw);
    auto rr = render::render(*raw, {});
    REQUIRE(rr);
    REQUIRE(rr->tops.size() == 1);
    const auto& srcs = rr->tops[0].sources;
    REQUIRE(srcs.size() == 2);
    CHECK(srcs[0].where.str() == "r/meta.yaml:6");
    CHECK(srcs[1].where.str() == "r/meta.yaml:8");

    // A selector drops an entry: the lines no longer pair up, so each names `source:`.
    auto sel = recipe::RawRecipe::from_text("package:\n  name: x\n  version: 1\n"
                                            "source:\n"
                                            "  - path: ../win  # [win]\n"
                                            "  - path: ../src\n",
                                            "r/meta.yaml");
    REQUIRE(sel);
    auto rs = render::render(*sel, {});
    REQUIRE(rs);
    REQUIRE(rs->tops[0].sources.size() == 1);
    CHECK(rs->tops[0].sources[0].where.str() == "r/meta.yaml:4");
}
