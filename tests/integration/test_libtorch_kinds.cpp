// The four libtorch archive kinds on crafted packages (the demo's real ones
// are in test_build_e2e): a libtorch whose libtorch.so NEEDs libdep.so.1
// from its run dependency `libdep`, and a libtorch-static beside it.
//   with-deps     bundles libdep.so.1;
//   without-deps  leaves it out and names it in libtorch/dependencies.json,
//                 which is what `check` accepts it by: an archive whose
//                 document does not name it fails;
//   static-*      only from libtorch-static; a kind no package makes is exit 2.
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "archive/write.hpp"
#include "archive/zip_read.hpp"
#include "binary/check_elf.hpp"
#include "binary/libtorch.hpp"
#include "process/process.hpp"
#include "security/craft.hpp"
#include "testproc.hpp"
#include "testutil.hpp"
#include "util/fs.hpp"

using namespace sf::test::craft;
namespace binary = sf::binary;

namespace {

using sf::test::run;

std::string tool(const std::string& name) {
    auto p = sf::process::find_executable(name, sf::process::current_env()["PATH"]);
    INFO(name << " is missing: scripts/deps.sh installs it");
    REQUIRE(p);
    return p->string();
}

// libdep.so.1 (SONAME libdep.so.1) and libtorch.so NEEDing it, RUNPATH $ORIGIN.
std::pair<std::string, std::string> libraries(const stdfs::path& dir) {
    const std::string cc = tool("cc");
    stdfs::create_directories(dir);
    REQUIRE(sf::fs::write_file_atomic(dir / "dep.c", "int dep(void) { return 1; }\n"));
    REQUIRE(sf::fs::write_file_atomic(dir / "torch.c", "int dep(void);\nint torch(void) { return dep() + 1; }\n"));
    REQUIRE(run({cc, "-shared", "-fPIC", "-Wl,-soname,libdep.so.1", "-o", (dir / "libdep.so.1").string(),
                 (dir / "dep.c").string()}).rc == 0);
    REQUIRE(run({cc, "-shared", "-fPIC", "-Wl,-rpath,$ORIGIN", "-o", (dir / "libtorch.so").string(),
                 (dir / "torch.c").string(), (dir / "libdep.so.1").string()}).rc == 0);
    return {sf::test::slurp(dir / "libdep.so.1"), sf::test::slurp(dir / "libtorch.so")};
}

std::vector<Pkg> packages(const stdfs::path& dir) {
    auto [dep, torch] = libraries(dir);
    Pkg libdep = pkg_with("libdep", {{"lib/libdep.so.1", 'f', dep, "", 0755}});
    Pkg lt = pkg_with("libtorch",
                      {{"lib/libtorch.so", 'f', torch, "", 0755},
                       {"include/torch/torch.h", 'f', "#pragma once\n", "", 0644},
                       {"share/cmake/Torch/TorchConfig.cmake", 'f', "# shared\n", "", 0644}},
                      {"libdep"});
    lt.version = "0.3.0", lt.build = "cpu_generic_0";
    Pkg st = pkg_with("libtorch-static",
                      {{"lib/libtorch.a", 'f', "!<arch>\n", "", 0644},
                       {"share/cmake/TorchStatic/TorchConfig.cmake", 'f', "# static\n", "", 0644}},
                      {"libtorch 0.3.0 cpu_generic_0"});
    st.version = "0.3.0", st.build = "cpu_generic_0";
    return {libdep, lt, st};
}

std::string member(const stdfs::path& zip, const std::string& name, const stdfs::path& scratch) {
    REQUIRE(sf::archive::extract_zip(zip, scratch));
    return sf::test::slurp(scratch / name);
}

// `zip`'s members rewritten into `to`, `name` replaced by `text`.
void rewrite_zip(const stdfs::path& zip, const stdfs::path& scratch, const std::string& name, const std::string& text,
                 const stdfs::path& to) {
    REQUIRE(sf::archive::extract_zip(zip, scratch));
    auto out = sf::archive::OutputFile::create(to);
    REQUIRE(out);
    sf::archive::ZipWriter w(**out, 0);
    for (const auto& rel : binary::list_tree(scratch))
        REQUIRE(w.add(rel, rel == name ? text : sf::test::slurp(scratch / rel)));
    REQUIRE(w.finish());
    REQUIRE((*out)->commit());
}

}  // namespace

TEST_CASE("libtorch kinds: names parse both ways", "[libtorch][kinds]") {
    for (const char* k : {"shared-with-deps", "shared-without-deps", "static-with-deps", "static-without-deps"}) {
        auto kind = binary::parse_libtorch_kind(k);
        REQUIRE(kind);
        CHECK(binary::kind_name(*kind) == k);
        const std::string name = binary::libtorch_archive_name("2.6.0", "cu130", *kind);
        CHECK(name == std::string("libtorch-cxx11-abi-") + k + "-2.6.0+cu130.zip");
        CHECK(binary::libtorch_archive_kind(name) == kind);
    }
    CHECK_FALSE(binary::parse_libtorch_kind("shared"));
    CHECK_FALSE(binary::libtorch_archive_kind("libtorch-cxx11-abi-shared-0.3.0+cpu.zip"));
    CHECK_FALSE(binary::libtorch_archive_kind("torch-0.3.0.zip"));
    CHECK(binary::is_static(binary::LibtorchKind::static_without_deps));
    CHECK_FALSE(binary::with_deps(binary::LibtorchKind::shared_without_deps));
}

TEST_CASE("libtorch kinds: with-deps bundles the run dependency's library, without-deps names it, check accepts each",
          "[libtorch][kinds]") {
    sf::fs::TempDir tmp("sf-lt-kinds");
    const std::string bin = sf::test::binary().string();
    write_channel(tmp.path() / "ch", packages(tmp.path() / "src"));
    const std::string lt = (tmp.path() / "ch/linux-64/libtorch-0.3.0-cpu_generic_0.tar.bz2").string();
    const std::string st = (tmp.path() / "ch/linux-64/libtorch-static-0.3.0-cpu_generic_0.tar.bz2").string();
    const stdfs::path out = tmp.path() / "out";
    auto r = run({bin, "libtorch-archive", lt, st, "--kind", "shared-with-deps", "--kind", "shared-without-deps",
                  "--kind", "static-with-deps", "--kind", "static-without-deps", "-o", out.string(), "--json"});
    INFO(r.out << r.err);
    REQUIRE(r.rc == 0);
    const auto made = nlohmann::json::parse(r.out);
    REQUIRE(made["archives"].size() == 4);
    const auto zip = [&](const char* kind) { return out / ("libtorch-cxx11-abi-" + std::string(kind) + "-0.3.0+cpu.zip"); };

    CHECK(member(zip("shared-with-deps"), "libtorch/lib/libdep.so.1", tmp.path() / "x1").size() > 0);
    const std::string deps_text = member(zip("shared-without-deps"), "libtorch/dependencies.json", tmp.path() / "x2");
    CHECK_FALSE(stdfs::exists(tmp.path() / "x2/libtorch/lib/libdep.so.1"));
    const auto deps = nlohmann::json::parse(deps_text);
    CHECK(deps["kind"] == "shared-without-deps");
    CHECK(deps["libraries"] == nlohmann::json{{"libdep.so.1", "libdep"}});
    CHECK(deps["run_dependencies"] == nlohmann::json::array({"libdep"}));
    // static: libtorch-static's libraries and CMake package (renamed to Torch), libtorch's headers.
    CHECK(member(zip("static-without-deps"), "libtorch/share/cmake/Torch/TorchConfig.cmake", tmp.path() / "x3") == "# static\n");
    CHECK(stdfs::exists(tmp.path() / "x3/libtorch/lib/libtorch.a"));
    CHECK(stdfs::exists(tmp.path() / "x3/libtorch/include/torch/torch.h"));
    CHECK_FALSE(stdfs::exists(tmp.path() / "x3/libtorch/lib/libtorch.so"));
    CHECK_FALSE(stdfs::exists(tmp.path() / "x3/libtorch/lib/libdep.so.1"));
    CHECK(stdfs::exists(tmp.path() / "x3/libtorch/build-hash"));

    for (const char* kind : {"shared-with-deps", "shared-without-deps", "static-with-deps", "static-without-deps"}) {
        auto c = run({bin, "check", zip(kind).string()});
        INFO(kind << ": " << c.out << c.err);
        CHECK(c.rc == 0);
    }

    SECTION("a without-deps archive whose document does not name the library fails check") {
        auto j = deps;
        j["libraries"] = nlohmann::json::object();
        const stdfs::path bad = tmp.path() / "libtorch-cxx11-abi-shared-without-deps-0.3.0+cpu.zip";
        rewrite_zip(zip("shared-without-deps"), tmp.path() / "x4", "libtorch/dependencies.json", j.dump(), bad);
        auto c = run({bin, "check", bad.string()});
        INFO(c.out << c.err);
        CHECK(c.rc == 1);
        CHECK(c.out.find("libdep.so.1") != std::string::npos);
    }
    SECTION("a without-deps archive with no document fails check, naming it") {
        const stdfs::path bad = tmp.path() / "libtorch-cxx11-abi-static-without-deps-0.3.0+cpu.zip";
        rewrite_zip(zip("static-without-deps"), tmp.path() / "x5", "libtorch/dependencies.json", "not json", bad);
        auto c = run({bin, "check", bad.string()});
        INFO(c.out << c.err);
        CHECK(c.rc == 1);
        CHECK(c.out.find("libtorch/dependencies.json") != std::string::npos);
    }
    SECTION("a static kind from a libtorch package alone is exit 2, nothing written") {
        const stdfs::path none = tmp.path() / "none";
        auto c = run({bin, "libtorch-archive", lt, "--kind", "static-with-deps", "-o", none.string()});
        CHECK(c.rc == 2);
        CHECK(c.err.find("makes only shared-* archives") != std::string::npos);
        CHECK_FALSE(stdfs::exists(none));
        c = run({bin, "libtorch-archive", lt, "--kind", "static", "-o", none.string()});
        CHECK(c.rc == 2);
    }
}
