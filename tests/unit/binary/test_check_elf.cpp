// binary/check_elf and libtorch's names: RPATH entries, where NEEDED
// resolves, the allow-lists' soname rules.
#include <catch2/catch.hpp>

#include "binary/check_elf.hpp"
#include "binary/libtorch.hpp"
#include "package/elf.hpp"
#include "process/process.hpp"
#include "testutil.hpp"

using namespace sf;
using namespace sf::binary;
namespace stdfs = std::filesystem;

namespace {

void compile_so(const stdfs::path& out, const std::vector<std::string>& flags) {
    auto gxx = process::find_executable("g++", process::current_env()["PATH"]);
    if (!gxx) test::skip("g++ not found");
    stdfs::create_directories(out.parent_path());
    stdfs::path src = out.string() + ".cpp";
    REQUIRE(fs::write_file_atomic(src, "int f() { return 1; }\n"));
    std::vector<std::string> argv = {gxx->string(), "-shared", "-fPIC", "-o", out.string(), src.string()};
    argv.insert(argv.end(), flags.begin(), flags.end());
    auto r = process::capture({argv, {}, process::current_env()});
    REQUIRE(r);
    REQUIRE(r->exit_code == 0);
    stdfs::remove(src);
}

ElfTree tree_of(const stdfs::path& root) {
    ElfTree t;
    t.artifact = "a.conda";
    t.root = root;
    t.files = list_tree(root);
    t.available.insert(t.files.begin(), t.files.end());
    t.prefix = root.string();
    t.allowed = [](std::string_view so) { return is_glibc_library(so) || libtorch_platform_library(so); };
    return t;
}

}  // namespace

TEST_CASE("check_links: $ORIGIN/../lib finds a sibling dir and an absolute path inside the prefix is inside") {
    fs::TempDir tmp;
    compile_so(tmp.path() / "lib/libdep.so", {});
    compile_so(tmp.path() / "lib/python/ext.so",
               {"-L" + (tmp.path() / "lib").string(), "-Wl,--no-as-needed", "-ldep", "-Wl,-rpath,$ORIGIN/..:" + (tmp.path() / "lib").string()});
    auto elf = package::read_elf(tmp.path() / "lib/python/ext.so");
    REQUIRE(elf);
    REQUIRE(!elf->needed.empty());
    CHECK(elf->needed.front() == "libdep.so");
    auto r = check_links(tree_of(tmp.path()));
    REQUIRE(r);
    CHECK(r->empty());
    stdfs::remove(tmp.path() / "lib/libdep.so");
    auto t = tree_of(tmp.path());
    auto gone = check_links(t);
    REQUIRE(gone);
    REQUIRE(gone->size() == 1);
    CHECK((*gone)[0].member == "lib/python/ext.so");
}

TEST_CASE("check_links: an RPATH leaving the artifact or relative to the working directory is named") {
    fs::TempDir tmp;
    compile_so(tmp.path() / "lib/a.so", {"-Wl,-rpath,$ORIGIN/../../outside"});
    compile_so(tmp.path() / "lib/b.so", {"-Wl,-rpath,lib"});
    auto r = check_links(tree_of(tmp.path()));
    REQUIRE(r);
    REQUIRE(r->size() == 2);
    CHECK((*r)[0].line() == "a.conda: lib/a.so: RPATH entry '$ORIGIN/../../outside' points outside the artifact");
    CHECK((*r)[1].line() == "a.conda: lib/b.so: RPATH entry 'lib' is relative to the working directory (use $ORIGIN)");
}

TEST_CASE("check_links: a NEEDED only the loader's default dirs would find is missing") {
    fs::TempDir tmp;
    compile_so(tmp.path() / "elsewhere/libdep.so", {});
    compile_so(tmp.path() / "lib/a.so", {"-L" + (tmp.path() / "elsewhere").string(), "-Wl,--no-as-needed", "-ldep"});
    stdfs::rename(tmp.path() / "elsewhere", tmp.path() / "../" / (tmp.path().filename().string() + "-gone"));
    auto t = tree_of(tmp.path());
    t.not_found_hint = ", its dependencies";
    auto r = check_links(t);
    REQUIRE(r);
    REQUIRE(r->size() == 1);
    CHECK((*r)[0].problem == "NEEDED libdep.so not found (no RPATH, LD_LIBRARY_PATH unset; not in the artifact, its "
                             "dependencies nor on the platform allow-list)");
    stdfs::remove_all(tmp.path() / "../" / (tmp.path().filename().string() + "-gone"));
}

TEST_CASE("soname rules: glibc, the libtorch platform, stems with version suffixes") {
    CHECK(is_glibc_library("libc.so.6"));
    CHECK(is_glibc_library("ld-linux-x86-64.so.2"));
    CHECK(is_glibc_library("libpthread.so.0"));
    CHECK_FALSE(is_glibc_library("libcrypto.so.3"));
    CHECK_FALSE(is_glibc_library("libstdc++.so.6"));
    CHECK(soname_matches("libopenblas.so.0", "libopenblas.so"));
    CHECK(soname_matches("libopenblas.so", "libopenblas.so"));
    CHECK_FALSE(soname_matches("libopenblas64_.so.0", "libopenblas.so"));
    CHECK_FALSE(soname_matches("libopenblas.so.0x", "libopenblas.so"));
    CHECK(libtorch_platform_library("libstdc++.so.6"));
    CHECK(libtorch_platform_library("libgcc_s.so.1"));
    CHECK(libtorch_platform_library("libcuda.so.1"));
    CHECK_FALSE(libtorch_platform_library("libopenblas.so.0"));
}

TEST_CASE("libtorch archive names: PyTorch's with-deps name, the variant from the build string") {
    CHECK(libtorch_variant("cpu_generic_h4f3769d_0") == "cpu");
    CHECK(libtorch_variant("cuda130_mkl_h0a59c3d_300") == "cu130.mkl");
    CHECK(libtorch_variant("rocm6_generic_h0a59c3d_0") == "rocm6_generic");
    CHECK(libtorch_variant("custom") == "custom");
    CHECK(libtorch_archive_name("0.3.0", "cpu") == "libtorch-cxx11-abi-shared-with-deps-0.3.0+cpu.zip");
}
