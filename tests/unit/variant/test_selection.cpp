#include <catch2/catch.hpp>

#include <fstream>

#include "util/fs.hpp"
#include "variant/selection.hpp"

using namespace sf;
namespace stdfs = std::filesystem;

namespace {
stdfs::path write(const stdfs::path& p, const std::string& text) {
    std::ofstream(p) << text;
    return p;
}
}  // namespace

TEST_CASE("select: the platform is decided once", "[variant][selection]") {
    fs::TempDir tmp("sf-selection");
    SECTION("--platform wins over the -m files") {
        auto f = write(tmp.path() / "a.yaml", "target_platform:\n- osx-arm64\n");
        auto s = variant::select("linux-aarch64", {f}, {});
        REQUIRE(s);
        CHECK(s->platform.name() == "linux-aarch64");
        CHECK(s->variant_files == std::vector<stdfs::path>{f});
    }
    SECTION("else the -m files' target_platform, the last one set") {
        auto a = write(tmp.path() / "a.yaml", "target_platform:\n- osx-arm64\n");
        auto b = write(tmp.path() / "b.yaml", "python:\n- 3.12\n");
        auto s = variant::select("", {a, b}, {});
        REQUIRE(s);
        CHECK(s->platform.name() == "osx-arm64");
    }
    SECTION("else this machine") {
        auto s = variant::select("", {}, {});
        REQUIRE(s);
        CHECK(s->platform == types::Platform::current());
        CHECK(s->build_platform == types::Platform::current());
    }
    SECTION("an unknown --platform is an error") {
        auto s = variant::select("linux-65", {}, {});
        REQUIRE_FALSE(s);
        CHECK(s.error().message == "--platform: unknown platform 'linux-65'");
    }
    SECTION("an unknown target_platform names the file and line") {
        auto f = write(tmp.path() / "bad.yaml", "python:\n- 3.12\ntarget_platform:\n- ../../etc\n");
        auto s = variant::select("", {f}, {});
        REQUIRE_FALSE(s);
        CHECK(s.error().loc.str() == f.lexically_normal().string() + ":3");
        CHECK(s.error().message == "target_platform: unknown platform '../../etc'");
    }
    SECTION("a missing -m file is an error") {
        auto s = variant::select("", {tmp.path() / "missing.yaml"}, {});
        REQUIRE_FALSE(s);
        CHECK(s.error().message == "variant config file not found");
    }
}

TEST_CASE("select: --variant overrides", "[variant][selection]") {
    SECTION("KEY=VALUE pairs, values kept whole") {
        auto s = variant::select("linux-64", {}, {"python=3.12,3.13", "blas_impl=mkl"});
        REQUIRE(s);
        REQUIRE(s->overrides.size() == 2);
        CHECK(s->overrides[0] == std::pair<std::string, std::string>{"python", "3.12,3.13"});
        CHECK(s->overrides[1] == std::pair<std::string, std::string>{"blas_impl", "mkl"});
    }
    SECTION("a malformed one is an error naming it") {
        for (const char* bad : {"python", "=3.12"}) {
            auto s = variant::select("linux-64", {}, {bad});
            REQUIRE_FALSE(s);
            CHECK(s.error().message == std::string("--variant ") + bad + ": expected KEY=VALUE");
        }
    }
}
