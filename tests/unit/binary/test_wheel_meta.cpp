// binary/wheel_meta: RECORD, METADATA, WHEEL, versions, tags, hashed names.
#include <catch2/catch.hpp>

#include "binary/wheel_meta.hpp"
#include "util/hash.hpp"

using namespace sf;
using namespace sf::binary;

TEST_CASE("wheel_meta: urlsafe base64 without padding") {
    CHECK(urlsafe_b64_nopad("") == "");
    CHECK(urlsafe_b64_nopad("f") == "Zg");
    CHECK(urlsafe_b64_nopad("fo") == "Zm8");
    CHECK(urlsafe_b64_nopad("foo") == "Zm9v");
    CHECK(urlsafe_b64_nopad("foob") == "Zm9vYg");
    // '+' and '/' of plain base64 become '-' and '_'.
    CHECK(urlsafe_b64_nopad(std::string("\xfb\xff\xbf", 3)) == "-_-_");
}

TEST_CASE("wheel_meta: RECORD hashes are pip's") {
    // pip: base64.urlsafe_b64encode(hashlib.sha256(b"hello\n").digest()).rstrip(b"=")
    auto h = record_hash_from_hex(hash::sha256("hello\n"));
    REQUIRE(h);
    CHECK(*h == "sha256=WJG1tSLV3whtD_CxEPvZ0hu0_HFjrzTQgoai6Eb2vgM");
    auto empty = record_hash_from_hex(hash::sha256(""));
    REQUIRE(empty);
    CHECK(*empty == "sha256=47DEQpj8HBSa-_TImW-5JCeuQeRkm5NMpJWZG3hSuFU");
    CHECK_FALSE(record_hash_from_hex("abc"));
    CHECK_FALSE(record_hash_from_hex(std::string(64, 'z')));
}

TEST_CASE("wheel_meta: RECORD lines, quoting and its own line") {
    std::vector<RecordEntry> e = {{"torch/__init__.py", "sha256=abc", 12}, {"torch/a,b.py", "sha256=def", 3},
                                  {"torch/q\"uote.py", "sha256=ghi", 0}};
    CHECK(record_text(e, "torch-0.3.0.dist-info/RECORD") ==
          "torch/__init__.py,sha256=abc,12\n"
          "\"torch/a,b.py\",sha256=def,3\n"
          "\"torch/q\"\"uote.py\",sha256=ghi,0\n"
          "torch-0.3.0.dist-info/RECORD,,\n");
}

TEST_CASE("wheel_meta: METADATA and WHEEL") {
    WheelMetadata m;
    m.name = "torch";
    m.version = "0.3.0+cpu";
    m.summary = "A tiny PyTorch-shaped project,\nthe demo.";
    m.requires_python = ">=3.12,<3.13";
    m.license = "BSD-3-Clause";
    CHECK(metadata_text(m) ==
          "Metadata-Version: 2.1\nName: torch\nVersion: 0.3.0+cpu\n"
          "Summary: A tiny PyTorch-shaped project, the demo.\nLicense: BSD-3-Clause\n"
          "Requires-Python: >=3.12,<3.13\n");
    CHECK(wheel_text("splitforge 0.1.0", {"cp312-cp312-manylinux_2_17_x86_64", "cp312-cp312-manylinux2014_x86_64"}) ==
          "Wheel-Version: 1.0\nGenerator: splitforge 0.1.0\nRoot-Is-Purelib: false\n"
          "Tag: cp312-cp312-manylinux_2_17_x86_64\nTag: cp312-cp312-manylinux2014_x86_64\n");
}

TEST_CASE("wheel_meta: the local version names the variant as PyTorch does") {
    CHECK(local_version("cpu_generic_py312_ha3471ff_0") == "cpu");
    CHECK(local_version("cuda130_generic_py313_h6663867_200") == "cu130");
    CHECK(local_version("cuda126_mkl_py312_h0_0") == "cu126.mkl");
    CHECK(local_version("cpu_mkl_py312_h0_0") == "cpu.mkl");
    CHECK(local_version("py312_h0_0").empty());
    CHECK(local_version("cudaXY_generic").empty());
    auto v = wheel_version("0.3.0", "cu130");
    REQUIRE(v);
    CHECK(*v == "0.3.0+cu130");
    CHECK(*wheel_version("2.5.1", "") == "2.5.1");
    CHECK(*wheel_version("2.5.1rc1", "cpu") == "2.5.1rc1+cpu");
    CHECK_FALSE(wheel_version("2.5.1_x", "cpu"));
    CHECK_FALSE(wheel_version("", "cpu"));
}

TEST_CASE("wheel_meta: Python tags from the conda python dependency") {
    CHECK(python_minor({"libtorch 0.3.0 h0_0", "python >=3.12,<3.13.0a0"}) == "3.12");
    CHECK(python_minor({"python 3.9.*"}) == "3.9");
    CHECK(python_minor({"python_abi 3.12.* *_cp312"}).empty());
    CHECK(python_minor({"libtorch"}).empty());
    CHECK(cpython_tag("3.12") == "cp312");
    CHECK(cpython_tag("3.9") == "cp39");
    CHECK(requires_python_for("3.12") == ">=3.12,<3.13");
    CHECK(requires_python_for("3.9") == ">=3.9,<3.10");
}

TEST_CASE("wheel_meta: bundled libraries get auditwheel's hashed names") {
    const std::string h = "1a2b3c4d5e6f";
    CHECK(hashed_library_name("libminimagma.so.2.8.0", h) == "libminimagma-1a2b3c4d.so.2.8.0");
    CHECK(hashed_library_name("libgfortran.so.5", h) == "libgfortran-1a2b3c4d.so.5");
    CHECK(hashed_library_name("libfoo-1a2b3c4d.so.1", h) == "libfoo-1a2b3c4d.so.1");
    CHECK(hashed_library_name("weird", h) == "weird-1a2b3c4d");
}

TEST_CASE("wheel_meta: where a conda package's files go in the wheel") {
    const std::string site = "lib/python3.12/site-packages/";
    auto at = [&](std::string_view p) { return wheel_member_path(p, site, "torch"); };
    CHECK(at("lib/python3.12/site-packages/torch/__init__.py") == "torch/__init__.py");
    CHECK(at("lib/python3.12/site-packages/torch/_C.cpython-312-x86_64-linux-gnu.so") ==
          "torch/_C.cpython-312-x86_64-linux-gnu.so");
    CHECK(at("lib/libtorch_cpu.so") == "torch/lib/libtorch_cpu.so");
    CHECK(at("lib/libc10.so.2.5") == "torch/lib/libc10.so.2.5");
    CHECK(at("lib/cmake/Caffe2/Caffe2Config.cmake") == "torch/share/cmake/Caffe2/Caffe2Config.cmake");
    CHECK(at("share/cmake/Torch/TorchConfig.cmake") == "torch/share/cmake/Torch/TorchConfig.cmake");
    CHECK(at("include/torch/torch.h") == "torch/include/torch/torch.h");
    CHECK(at("bin/torch_shm_manager") == "torch/bin/torch_shm_manager");
    SECTION("no place in a wheel") {
        CHECK(at("lib/python3.12/site-packages/torch-2.5.1.dist-info/RECORD").empty());
        CHECK(at("lib/python3.12/site-packages/torch.egg-info/PKG-INFO").empty());
        CHECK(at("lib/python3.12/site-packages/torch/__pycache__/__init__.cpython-312.pyc").empty());
        CHECK(at("lib/python3.13/site-packages/torch/__init__.py").empty());
        CHECK(at("lib/pkgconfig/torch.pc").empty());
        CHECK(at("lib/libtorch.a").empty());
        CHECK(at("etc/conda/activate.d/x.sh").empty());
    }
}
