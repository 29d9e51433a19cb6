// binary/wheel_inputs: which packages a wheel is made of.
#include <catch2/catch.hpp>

#include "binary/wheel_inputs.hpp"

using namespace sf;
using namespace sf::binary;

namespace {

PackageFile pkg(std::string name, std::string version, std::string build, int number,
                std::vector<std::string> depends = {}) {
    PackageFile p;
    p.record.name = name;
    p.record.version = *types::Version::parse(version);
    p.record.build = build;
    p.record.build_number = number;
    p.record.depends = std::move(depends);
    p.file = name + "-" + version + "-" + build + ".conda";
    return p;
}

std::vector<std::string> names(const std::vector<const PackageFile*>& ps) {
    std::vector<std::string> out;
    for (const auto* p : ps) out.push_back(p->file.string());
    return out;
}

}  // namespace

TEST_CASE("dependency_closure: one package per name, as a solver would choose") {
    std::vector<PackageFile> all = {
        pkg("pytorch", "0.3.0", "cuda130_py312_h1_200",
            200, {"libtorch 0.3.0 cuda130_h2_200", "libtorch >=0.3.0,<0.4.0a0", "python >=3.12,<3.13.0a0",
                  "libgcc-ng >=12", "__glibc >=2.17"}),
        pkg("libtorch", "0.3.0", "cpu_h3_0", 0),
        pkg("libtorch", "0.3.0", "cuda130_h2_200", 200, {"libtorch-cuda-linalg 0.3.0", "minimagma >=2.8"}),
        pkg("libtorch-cuda-linalg", "0.3.0", "cuda130_nomagma_h4_200", 200),
        pkg("libtorch-cuda-linalg", "0.3.0", "cuda130_magma_h5_250", 250, {"minimagma"}),
        pkg("minimagma", "2.7.0", "h6_0", 0),
        pkg("minimagma", "2.8.0", "h7_0", 0),
        pkg("python", "3.12.1", "0_system", 0, {"libpython-stuff"}),
    };
    auto c = dependency_closure(all, all[0], {"python"});
    REQUIRE(c);
    CHECK(names(*c) == std::vector<std::string>{"pytorch-0.3.0-cuda130_py312_h1_200.conda",
                                                 "libtorch-0.3.0-cuda130_h2_200.conda",
                                                 "libtorch-cuda-linalg-0.3.0-cuda130_magma_h5_250.conda",
                                                 "minimagma-2.8.0-h7_0.conda"});
}

TEST_CASE("dependency_closure: a dependency whose name is there but no version matches is an error") {
    std::vector<PackageFile> all = {pkg("pytorch", "0.3.0", "cpu_py312_h1_0", 0, {"libtorch 0.3.0 cpu_h9_0"}),
                                    pkg("libtorch", "0.3.0", "cpu_h3_0", 0)};
    auto c = dependency_closure(all, all[0], {});
    REQUIRE_FALSE(c);
    CHECK(c.error().loc.file == "pytorch-0.3.0-cpu_py312_h1_0.conda");
    CHECK(c.error().message.find("libtorch 0.3.0 cpu_h9_0") != std::string::npos);
}

TEST_CASE("scan_packages: a folder that is not there is an error naming it") {
    auto r = scan_packages("/nonexistent/sf-wheel-input");
    REQUIRE_FALSE(r);
    CHECK(r.error().loc.file == "/nonexistent/sf-wheel-input");
}
