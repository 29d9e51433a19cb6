#include <catch2/catch.hpp>

#include "render/hash.hpp"
#include "render/pins.hpp"

using namespace sf::render;

TEST_CASE("pkg_hash: the reference test vector from conda-formats.md") {
    nlohmann::json d = {
        {"CONDA_BUILD_SYSROOT",
         "/Applications/Xcode_13.2.1.app/Contents/Developer/Platforms/MacOSX.platform/Developer/SDKs/MacOSX11.0.sdk"},
        {"build_platform", "osx-64"},
        {"c_compiler", "clang"},
        {"c_compiler_version", "14"},
        {"channel_targets", "conda-forge main"},
        {"openssl", "3"},
        {"python", "3.11.* *_cpython"},
        {"rust_compiler", "rust"},
        {"target_platform", "osx-arm64"}};
    CHECK(pkg_hash(d) == "h507f6e9");
}

TEST_CASE("pkg_hash: empty input means no hash") { CHECK(pkg_hash(nlohmann::json::object()).empty()); }

TEST_CASE("python_json_dumps: Python's separators, sorted keys and ensure_ascii") {
    SECTION("separators and order") {
        CHECK(python_json_dumps({{"b", "2"}, {"a", "1"}}) == R"({"a": "1", "b": "2"})");
    }
    SECTION("non-ASCII becomes \\uXXXX, astral planes become surrogate pairs") {
        CHECK(python_json_dumps({{"k", "caf\xc3\xa9"}}) == R"({"k": "caf\u00e9"})");
        CHECK(python_json_dumps({{"k", "\xf0\x9f\x98\x80"}}) == R"({"k": "\ud83d\ude00"})");
    }
    SECTION("control characters and quotes") {
        CHECK(python_json_dumps({{"k", "a\"b\\c\n\x01"}}) == R"({"k": "a\"b\\c\n\u0001"})");
    }
}

TEST_CASE("apply_pin_expressions: conda-build's bounds") {
    CHECK(apply_pin_expressions("2.13.0", "x.x.x.x.x.x", "x.x") == ">=2.13.0,<2.14.0a0");
    CHECK(apply_pin_expressions("2.13.0", "x.x", "x") == ">=2.13,<3.0a0");
    CHECK(apply_pin_expressions("0.3.0", "x.x.x.x.x.x", "x.x") == ">=0.3.0,<0.4.0a0");
    CHECK(apply_pin_expressions("3.12", "x.x", "x.x") == ">=3.12,<3.13.0a0");
    CHECK(apply_pin_expressions("2.13.0", "x.x.x.x.x.x", "") == ">=2.13.0");
    CHECK(apply_pin_expressions("1.1.1q", "x.x.x", "x.x.x") == ">=1.1.1q,<1.1.2a");
}

// Expected values from conda-build 24.11.2's utils.ensure_valid_spec (../shared/peer).
TEST_CASE("ensure_valid_spec: conda-build's results by hand and by its regex") {
    const std::pair<const char*, const char*> cases[] = {
        {"gxx_linux-64 13", "gxx_linux-64 13.*"}, {"python 3.12.* *_cpython", "python 3.12.* *_cpython"},
        {"numpy x.x", "numpy x.x"}, {"python x.x", "python x.x"}, {"foo x.x", "foo x.x.*"},
        {"foo >=1.2", "foo >=1.2"}, {"foo 1.2 h123_0", "foo 1.2 h123_0"}, {"foo 1.2 h-1", "foo 1.2 h-1"},
        {"foo 1.2*", "foo 1.2*"}, {"foo 1.2 *", "foo 1.2 *"}, {"foo 1.2\n", "foo 1.2.*\n"},
        {"foo 1.2 \n", "foo 1.2 \n"}, {"foo 1.2 b\n", "foo 1.2 b\n"}, {"foo  \t 1.2", "foo 1.2.*"},
        {"foo\x1c" "1.2", "foo 1.2.*"}, {"foo", "foo"}, {"foo ", "foo "}, {" foo 1.2", " foo 1.2"},
        {"foo 1.2 b c", "foo 1.2 b c"}, {"foo 1,2", "foo 1,2"}, {"foo 1.2,<2", "foo 1.2,<2"},
        {"foo =1.2", "foo =1.2"}, {"a.b-c_d 1_2-3", "a.b-c_d 1_2-3.*"}, {"foo 1.2\n\n", "foo 1.2\n\n"},
        {"foo\n1.2", "foo 1.2.*"}, {"foo 1.2 b*", "foo 1.2 b*"}, {"foo 1.2 b.c_d", "foo 1.2 b.c_d"},
        {"foo 1.*2", "foo 1.*2"}, {"python x.x\n", "python x.x\n"}};
    for (const auto& [spec, want] : cases) {
        INFO(spec);
        CHECK(ensure_valid_spec(spec) == want);
        CHECK(ensure_valid_spec_by_regex(spec) == want);
    }
}

TEST_CASE("ensure_valid_spec: a bare version gets .*") {
    CHECK(ensure_valid_spec("gxx_linux-64 13") == "gxx_linux-64 13.*");
    CHECK(ensure_valid_spec("cuda-nvcc_linux-64 12.6") == "cuda-nvcc_linux-64 12.6.*");
    CHECK(ensure_valid_spec("python 3.12.* *_cpython") == "python 3.12.* *_cpython");
    CHECK(ensure_valid_spec("numpy x.x") == "numpy x.x");
    CHECK(ensure_valid_spec("foo >=1.2") == "foo >=1.2");
    CHECK(ensure_valid_spec("foo 1.2 h123_0") == "foo 1.2 h123_0");
}
