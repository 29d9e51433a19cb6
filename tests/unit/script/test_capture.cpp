#include <catch2/catch.hpp>

#include "script/capture.hpp"
#include "script/ninja_log.hpp"
#include "testutil.hpp"

using namespace sf;
namespace stdfs = std::filesystem;

namespace {
void touch(const stdfs::path& p, const std::string& text = "x") {
    stdfs::create_directories(p.parent_path());
    REQUIRE(fs::write_file_atomic(p, text));
}
}  // namespace

TEST_CASE("capture: new files since the snapshot, symlinks included", "[build][capture]") {
    fs::TempDir tmp("sf-capture");
    stdfs::path pfx = tmp.path() / "prefix";
    touch(pfx / "bin/python");
    touch(pfx / "lib/python3.12/os.py");
    auto before = script::snapshot(pfx);
    CHECK(before == std::set<std::string>{"bin/python", "lib/python3.12/os.py"});
    touch(pfx / "lib/libtorch.so.0.3");
    stdfs::create_symlink("libtorch.so.0.3", pfx / "lib/libtorch.so");
    touch(pfx / "include/torch/torch.h");
    touch(pfx / "lib/python3.12/os.py", "modified");  // changed, not new: not captured
    stdfs::create_directories(pfx / "share/empty");
    auto files = script::new_files(pfx, before);
    CHECK(files == std::vector<std::string>{"include/torch/torch.h", "lib/libtorch.so", "lib/libtorch.so.0.3"});

    stdfs::path out = tmp.path() / "payload";
    REQUIRE(script::copy_files(pfx, files, out));
    CHECK(stdfs::is_symlink(out / "lib/libtorch.so"));
    CHECK(stdfs::read_symlink(out / "lib/libtorch.so") == "libtorch.so.0.3");
    CHECK(stdfs::is_regular_file(out / "include/torch/torch.h"));
    CHECK_FALSE(stdfs::exists(out / "bin/python"));
}

TEST_CASE("capture: files: paths, directories and globs", "[build][capture]") {
    std::vector<std::string> files = {"lib/libc10.so", "lib/libtorch.so", "lib/cmake/Torch/TorchConfig.cmake",
                                      "include/torch/torch.h", "include/c10/Core.h", "bin/torch_shm_manager"};
    CHECK(script::select_files(files, {"lib/*.so"}) == std::vector<std::string>{"lib/libc10.so", "lib/libtorch.so"});
    CHECK(script::select_files(files, {"include/"}) ==
          std::vector<std::string>{"include/torch/torch.h", "include/c10/Core.h"});
    CHECK(script::select_files(files, {"include/torch"}) == std::vector<std::string>{"include/torch/torch.h"});
    CHECK(script::select_files(files, {"lib/**.cmake"}) ==
          std::vector<std::string>{"lib/cmake/Torch/TorchConfig.cmake"});
    CHECK(script::select_files(files, {"bin/torch_shm_manager"}) ==
          std::vector<std::string>{"bin/torch_shm_manager"});
    CHECK(script::select_files(files, {"share/*"}).empty());
    CHECK(script::matches_any("lib/cmake/Torch/x.cmake", {"lib/cmake/*"}));  // a glob naming a directory
    CHECK_FALSE(script::matches_any("lib/libtorch.so", {"lib/*.a"}));
}

TEST_CASE("ninja log: the edges appended during a step", "[build][capture]") {
    fs::TempDir tmp("sf-ninja");
    stdfs::path log = tmp.path() / "build/.ninja_log";
    touch(log, "# ninja log v5\n1\t2\t3\tCMakeFiles/c10.dir/Core.cpp.o\tabc\n4\t5\t6\tlibc10.so\tdef\n");
    auto snap = script::snapshot_ninja_logs(tmp.path());
    CHECK(script::ninja_edges_since(tmp.path(), snap).empty());
    touch(log, test::slurp(log) + "7\t8\t9\tpython/CMakeFiles/_C.dir/stub.c.o\t123\n");
    CHECK(script::ninja_edges_since(tmp.path(), snap) == std::vector<std::string>{"build/python/CMakeFiles/_C.dir/stub.c.o"});
    // Recompacted by CMake (surviving entries keep their text), then appended.
    touch(log, "# ninja log v5\n4\t5\t6\tlibc10.so\tdef\n1\t2\t3\tCMakeFiles/c10.dir/Core.cpp.o\tabc\n"
               "10\t11\t12\tx.o\t456\n10\t11\t13\tx.o\t457\n");
    CHECK(script::ninja_edges_since(tmp.path(), snap) == std::vector<std::string>{"build/x.o", "build/x.o"});
    CHECK(script::ninja_edges_since(tmp.path(), script::NinjaLogs{}).size() == 4);  // no snapshot: everything
}

TEST_CASE("capture: what conda-build's filter_files drops never becomes a package file", "[build][capture]") {
    for (const char* dropped : {"lib/libyaml.la", ".git/config", "src/.git/HEAD", "pkg/.git", "share/.DS_Store",
                                "a/.DS_Store_x", "conda-meta/history", "conda-meta", "lib/x.conda_trash",
                                "lib/x.conda_trash_1_22"})
        CHECK(script::conda_build_drops(dropped));
    for (const char* kept : {"lib/libyaml.so", "lib/libla.so", "share/x.git", ".gitignore", "lib/.github/x",
                             "etc/conda-meta.txt/x", "lib/x.conda_trash_a", "lib/lab"})
        CHECK_FALSE(script::conda_build_drops(kept));

    fs::TempDir tmp("sf-capture-drop");
    stdfs::create_directories(tmp.path() / "lib");
    auto before = script::snapshot(tmp.path());
    for (const char* f : {"lib/libyaml.la", "lib/libyaml.so", "lib/libyaml.a"}) touch(tmp.path() / f);
    auto all = script::new_files(tmp.path(), before);
    CHECK(all == std::vector<std::string>{"lib/libyaml.a", "lib/libyaml.la", "lib/libyaml.so"});
    CHECK(script::package_files(all) == std::vector<std::string>{"lib/libyaml.a", "lib/libyaml.so"});
}
