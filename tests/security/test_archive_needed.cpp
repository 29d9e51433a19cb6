// A libtorch package whose libtorch.so NEEDs an absolute host path: the
// archive would load that host file wherever it is unpacked. libtorch-archive
// refuses it with one line naming the library, and `check` reports it; the
// twin NEEDs the same library by name, shipped beside it, and passes both.
#include <catch2/catch.hpp>

#include "craft.hpp"
#include "process/process.hpp"
#include "testproc.hpp"
#include "testutil.hpp"
#include "util/fs.hpp"

using namespace sf::test::craft;

namespace {

using sf::test::run;

std::string tool(const std::string& name) {
    auto p = sf::process::find_executable(name, sf::process::current_env()["PATH"]);
    INFO(name << " is missing: scripts/deps.sh installs it");
    REQUIRE(p);
    return p->string();
}

// libdep.so (no SONAME) and libtorch.so NEEDing it as `needed`.
std::pair<std::string, std::string> libraries(const stdfs::path& dir, const std::string& needed) {
    const std::string cc = tool("cc"), patchelf = tool("patchelf");
    stdfs::create_directories(dir);
    REQUIRE(sf::fs::write_file_atomic(dir / "dep.c", "int dep(void) { return 1; }\n"));
    REQUIRE(sf::fs::write_file_atomic(dir / "torch.c", "int torch(void) { return 2; }\n"));
    REQUIRE(run({cc, "-shared", "-fPIC", "-o", (dir / "libdep.so").string(), (dir / "dep.c").string()}).rc == 0);
    REQUIRE(run({cc, "-shared", "-fPIC", "-o", (dir / "libtorch.so").string(), (dir / "torch.c").string()}).rc == 0);
    REQUIRE(run({patchelf, "--add-needed", needed, (dir / "libtorch.so").string()}).rc == 0);
    REQUIRE(run({patchelf, "--set-rpath", "$ORIGIN", (dir / "libtorch.so").string()}).rc == 0);
    return {sf::test::slurp(dir / "libdep.so"), sf::test::slurp(dir / "libtorch.so")};
}

Pkg libtorch(const std::string& dep, const std::string& torch) {
    Pkg p;
    p.name = "libtorch";
    p.version = "0.3.0";
    p.build = "cpu_generic_0";
    p.members = {{"lib/libdep.so", 'f', dep, "", 0755}, {"lib/libtorch.so", 'f', torch, "", 0755}};
    return p;
}

}  // namespace

TEST_CASE("security: a libtorch.so NEEDing an absolute host path is refused by libtorch-archive and check",
          "[security][libtorch]") {
    sf::fs::TempDir tmp("sf-sec-needed");
    const stdfs::path host = tmp.path() / "host";  // where the absolute NEEDED points: it exists on this host
    const std::string bin = sf::test::binary().string();
    SECTION("the twin: NEEDED libdep.so, shipped in lib/") {
        auto [dep, torch] = libraries(host, "libdep.so");
        write_channel(tmp.path() / "ch", {libtorch(dep, torch)});
        const std::string pkg = (tmp.path() / "ch/linux-64/libtorch-0.3.0-cpu_generic_0.tar.bz2").string();
        auto r = run({bin, "libtorch-archive", pkg, "-o", (tmp.path() / "out").string()});
        INFO(r.out << r.err);
        CHECK(r.rc == 0);
        r = run({bin, "check", pkg});
        INFO(r.out << r.err);
        CHECK(r.rc == 0);
    }
    SECTION("NEEDED /abs/libdep.so") {
        auto [dep, torch] = libraries(host, (host / "libdep.so").string());
        write_channel(tmp.path() / "ch", {libtorch(dep, torch)});
        const std::string pkg = (tmp.path() / "ch/linux-64/libtorch-0.3.0-cpu_generic_0.tar.bz2").string();
        auto r = run({bin, "libtorch-archive", pkg, "-o", (tmp.path() / "out").string()});
        CHECK(r.rc == 2);
        CHECK(r.err.find("libtorch-0.3.0-cpu_generic_0.tar.bz2: lib/libtorch.so: NEEDED '" + (host / "libdep.so").string() +
                         "' is a path, not a library name") != std::string::npos);
        CHECK(std::count(r.err.begin(), r.err.end(), '\n') <= 2);  // the error and its hint
        CHECK((!stdfs::exists(tmp.path() / "out") || stdfs::is_empty(tmp.path() / "out")));
        r = run({bin, "check", pkg});
        CHECK(r.rc == 1);
        CHECK(r.out.find("NEEDED '" + (host / "libdep.so").string() + "' is a path") != std::string::npos);
    }
}
