// binary/artifact: which kind of binary a file is, and wheel file names.
#include <catch2/catch.hpp>

#include "binary/artifact.hpp"

using namespace sf::binary;

TEST_CASE("binary: artifact kinds come from the file name") {
    CHECK(artifact_kind("pytorch-0.3.0-cpu_generic_py312_h0_0.conda") == ArtifactKind::conda);
    CHECK(artifact_kind("zlib-1.2.13-h0_0.tar.bz2") == ArtifactKind::tar_bz2);
    CHECK(artifact_kind("torch-0.3.0-cp312-cp312-manylinux_2_28_x86_64.whl") == ArtifactKind::wheel);
    CHECK(artifact_kind("libtorch-0.3.0+cpu.zip") == ArtifactKind::libtorch_zip);
    CHECK_FALSE(artifact_kind("notes.txt"));
    CHECK_FALSE(artifact_kind("x.bz2"));
    CHECK(kind_name(ArtifactKind::wheel) == "wheel");
}

TEST_CASE("binary: wheel names parse as PEP 427 writes them") {
    auto w = parse_wheel_name("torch-0.3.0+cpu-cp312-cp312-manylinux_2_17_x86_64.manylinux2014_x86_64.whl");
    REQUIRE(w);
    CHECK(w->distribution == "torch");
    CHECK(w->version == "0.3.0+cpu");
    CHECK(w->build.empty());
    CHECK(w->python_tag == "cp312");
    CHECK(w->abi_tag == "cp312");
    CHECK(w->platform_tag == "manylinux_2_17_x86_64.manylinux2014_x86_64");
    CHECK(w->str() == "torch-0.3.0+cpu-cp312-cp312-manylinux_2_17_x86_64.manylinux2014_x86_64.whl");

    auto b = parse_wheel_name("pkg-1.0-1-py3-none-any.whl");
    REQUIRE(b);
    CHECK(b->build == "1");
    CHECK(b->str() == "pkg-1.0-1-py3-none-any.whl");

    for (const char* bad : {"torch.whl", "torch-1.0-cp312-cp312.whl", "a-1-x-py3-none-any.whl", "a--py3-none-any.whl",
                            "a-1-py3-none-any.zip"}) {
        INFO(bad);
        auto r = parse_wheel_name(bad);
        REQUIRE_FALSE(r);
        CHECK(r.error().str().find("not a wheel file name") != std::string::npos);
    }
    CHECK(wheel_escape("my-package_name") == "my_package_name");
    CHECK(wheel_escape("a..b--c") == "a..b_c");
}
