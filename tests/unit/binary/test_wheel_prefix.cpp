// binary/wheel_prefix: a file holding the conda prefix placeholder in a
// wheel: CMake paths to what the wheel ships become relative to the file;
// everything else is refused, naming the package and the file.
#include <catch2/catch.hpp>

#include <set>

#include "binary/wheel_prefix.hpp"

using namespace sf;
using namespace sf::binary;

namespace {

const std::string kPh = "/opt/anaconda1anaconda2anaconda3";
const std::string kSite = "lib/python3.12/site-packages/";

// What the wheel ships: these files and their directories.
bool ships(const std::string& rel) {
    static const std::set<std::string> shipped = {
        "",                  "torch",       "torch/include", "torch/include/torch", "torch/include/torch/torch.h",
        "torch/lib",         "torch/lib/libtorch.so",        "torch/share",         "torch/share/cmake",
        "torch/share/cmake/Torch", "torch/share/cmake/Torch/TorchConfig.cmake"};
    return shipped.count(rel) > 0;
}

PlaceholderFile cmake_file() {
    return {"libtorch-0.3.0-cpu_h0_0.conda", "share/cmake/Torch/TorchConfig.cmake",
            "torch/share/cmake/Torch/TorchConfig.cmake", kPh, false};
}

Result<std::string> relocate(const PlaceholderFile& f, const std::string& text) {
    return relocate_placeholder_text(f, text, kSite, "torch", ships);
}

}  // namespace

TEST_CASE("wheel_prefix: a CMake file's prefix paths become relative to the file") {
    auto r = relocate(cmake_file(), "set(TORCH_INCLUDE_DIRS \"" + kPh + "/include\" \"" + kPh +
                                        "/include/torch\")\nset(TORCH_LIBRARY " + kPh + "/lib/libtorch.so)\n"
                                        "set(SITE " + kPh + "/" + kSite + "torch)\nset(ROOT " + kPh + "/lib/python3.12/site-packages)\n"
                                        "set(I " + kPh + "/include/;x)\n");
    REQUIRE(r);
    CHECK(*r == "set(TORCH_INCLUDE_DIRS \"${CMAKE_CURRENT_LIST_DIR}/../../../include\" "
                "\"${CMAKE_CURRENT_LIST_DIR}/../../../include/torch\")\n"
                "set(TORCH_LIBRARY ${CMAKE_CURRENT_LIST_DIR}/../../../lib/libtorch.so)\n"
                "set(SITE ${CMAKE_CURRENT_LIST_DIR}/../../..)\nset(ROOT ${CMAKE_CURRENT_LIST_DIR}/../../../..)\n"
                "set(I ${CMAKE_CURRENT_LIST_DIR}/../../../include/;x)\n");
    SECTION("a file with no placeholder use left is unchanged") {
        CHECK(*relocate(cmake_file(), "# nothing here\n") == "# nothing here\n");
    }
}

TEST_CASE("wheel_prefix: what cannot be named relative to the file is refused, naming the file and the path") {
    SECTION("a dependency's library the wheel does not ship there") {
        auto r = relocate(cmake_file(), "set(L \"" + kPh + "/lib/libcudart.so\")\n");
        REQUIRE_FALSE(r);
        CHECK(r.error().str() ==
              "libtorch-0.3.0-cpu_h0_0.conda: share/cmake/Torch/TorchConfig.cmake: uses the conda prefix as '" + kPh +
              "/lib/libcudart.so', which the wheel does not ship at a place it can name relative to the file (make the "
              "file relocatable in the recipe: paths relative to the file)");
    }
    SECTION("the bare prefix") {
        CHECK_FALSE(relocate(cmake_file(), "set(P \"" + kPh + "\")\n"));
    }
    SECTION("lib/ as a whole: only its libraries have a place in the wheel") {
        CHECK_FALSE(relocate(cmake_file(), "link_directories(" + kPh + "/lib)\n"));
    }
    SECTION("a path through ..") {
        CHECK_FALSE(relocate(cmake_file(), "set(I " + kPh + "/lib/../include)\n"));
    }
    SECTION("a text file that is no CMake file (a script's shebang)") {
        PlaceholderFile f{"pytorch-0.3.0-py312_0.conda", "bin/torchrun", "torch/bin/torchrun", kPh, false};
        auto r = relocate(f, "#!" + kPh + "/bin/python\n");
        REQUIRE_FALSE(r);
        CHECK(r.error().loc.file == "pytorch-0.3.0-py312_0.conda: bin/torchrun");
        CHECK(r.error().message.find("only CMake files under torch/share/cmake/") != std::string::npos);
    }
    SECTION("a binary placeholder, even in a CMake directory") {
        PlaceholderFile f = cmake_file();
        f.binary = true;
        auto r = relocate(f, "");
        REQUIRE_FALSE(r);
        CHECK(r.error().message ==
              "holds the conda prefix placeholder in binary mode, which a wheel cannot replace at install time");
    }
}

TEST_CASE("wheel_prefix: which files may be relocated is decided before their text is read") {
    CHECK(placeholder_file_allowed(cmake_file(), "torch"));
    PlaceholderFile data = cmake_file();
    data.rel = "share/torch/huge.txt";
    data.dest = "torch/share/torch/huge.txt";
    auto r = placeholder_file_allowed(data, "torch");
    REQUIRE(!r);
    CHECK(r.error().loc.file == "libtorch-0.3.0-cpu_h0_0.conda: share/torch/huge.txt");
    PlaceholderFile bin = cmake_file();
    bin.binary = true;
    REQUIRE(!placeholder_file_allowed(bin, "torch"));
    CHECK(kMaxPlaceholderText == 16u << 20);
}
