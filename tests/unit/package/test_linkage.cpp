// package/linkage: conda-build's overlinking/overdepending classification on
// small libraries linked here with g++ (scripts/deps.sh installs it).
#include <catch2/catch.hpp>

#include "package/linkage.hpp"
#include "process/process.hpp"
#include "testproc.hpp"
#include "testutil.hpp"
#include "unit/package/fixture.hpp"
#include "util/strings.hpp"

using namespace sf;
using namespace sf::package;
namespace stdfs = std::filesystem;

namespace {

// lib/lib<name>.so in `dir`, linking `libs` (-L<dir>/lib), with `rpath`.
void link_lib(const stdfs::path& dir, const std::string& name, const std::vector<std::string>& libs,
              const std::string& rpath, const std::string& tags = "--disable-new-dtags", const stdfs::path& libdir = {}) {
    const stdfs::path src = dir / (name + ".cpp");
    test::put(src, "#include <cstdlib>\nextern \"C\" int " + name + "_f() { return std::getenv(\"X\") != nullptr; }\n");
    std::vector<std::string> argv = {"g++", "-shared", "-fPIC", "-o", (dir / "lib" / ("lib" + name + ".so")).string(),
                                     src.string(), "-Wl,-soname,lib" + name + ".so", "-Wl,--no-as-needed",
                                     "-L" + (libdir.empty() ? dir / "lib" : libdir).string(), "-Wl," + tags};
    for (const auto& l : libs) argv.push_back("-l" + l);
    argv.push_back("-Wl,--as-needed");  // g++'s own -lstdc++ -lm only when used
    if (!rpath.empty()) argv.push_back("-Wl,-rpath," + rpath);
    stdfs::create_directories(dir / "lib");
    test::run_ok(argv);
    stdfs::remove(src);
}

struct Fixture {
    fs::TempDir tmp{"sf-linkage"};
    stdfs::path pkg = tmp.path() / "pkg", host = tmp.path() / "host";
    LinkageOptions o;

    Fixture() {
        auto env = process::current_env();
        if (!process::find_executable("g++", env["PATH"])) test::skip("needs g++ on PATH (scripts/deps.sh)");
        link_lib(host, "foo", {}, "");  // host/lib/libfoo.so, owned by sf-libfoo
        o.host_prefix = host;
        o.prefix_string = host.string();
        o.packages = {{"sf-libfoo", "sf-libfoo-1.0-0", {"lib/libfoo.so"}, false}};
        o.stand_ins = compiler_runtime_stand_ins();
    }
    LinkageReport check() {
        auto r = check_linkage(pkg, o);
        INFO((r ? "" : r.error().str()));
        REQUIRE(r);
        return *r;
    }
};

std::string texts(const LinkageReport& r, LinkSeverity s) {
    std::vector<std::string> out;
    for (const auto& m : r.messages)
        if (m.severity == s) out.push_back(m.text);
    return str::join(out, "\n");
}

}  // namespace

TEST_CASE("caseless_fnmatch is Python's fnmatch, case-insensitive, * across /") {
    CHECK(caseless_fnmatch("$RPATH/libcuda.so.1", "*/libcuda.so*"));
    CHECK(caseless_fnmatch("/usr/lib/x86_64-linux-gnu/LIBCUDA.so.1", "*/libcuda.so*"));
    CHECK(caseless_fnmatch("lib/sub/x.so", "lib/*.so"));
    CHECK(caseless_fnmatch("C:\\Windows\\KERNEL32.dll", "**/kernel32.dll"));
    CHECK(caseless_fnmatch("libm.so.6", "lib[a-m].so.?"));
    CHECK_FALSE(caseless_fnmatch("libz.so.6", "lib[!z].so.?"));
    CHECK_FALSE(caseless_fnmatch("lib/libfoo.so", "*/libbar.so*"));
}

TEST_CASE("overlinking: a library of a host package that is no run dependency") {
    Fixture f;
    link_lib(f.pkg, "app", {"foo"}, f.host.string() + "/lib", "--disable-new-dtags", f.host / "lib");
    SECTION("a warning by default, naming the file, the library and its package") {
        auto r = f.check();
        CHECK(r.count(LinkSeverity::error) == 0);
        CHECK(texts(r, LinkSeverity::warning) ==
              "lib/libapp.so: libfoo.so resolves to lib/libfoo.so of sf-libfoo-1.0-0, which is not a run dependency "
              "(overlinking)");
    }
    SECTION("an error under error_overlinking") {
        f.o.overlinking = LinkError::error;
        CHECK(f.check().count(LinkSeverity::error) == 1);
    }
    SECTION("fine when it is a run dependency (a match spec counts by name)") {
        f.o.run_depends = {"sf-libfoo >=1.0"};
        auto r = f.check();
        CHECK(texts(r, LinkSeverity::warning).empty());
        CHECK(texts(r, LinkSeverity::info).find("libfoo.so found in sf-libfoo-1.0-0") != std::string::npos);
    }
    SECTION("fine when build/missing_dso_whitelist names it") {
        f.o.missing_dso_whitelist = {"lib/libfoo.so*"};
        CHECK(f.check().count(LinkSeverity::warning) == 0);
    }
    SECTION("a file in the host prefix that no package installed") {
        f.o.packages.clear();
        CHECK(texts(f.check(), LinkSeverity::warning).find("which no package installed (overlinking)") !=
              std::string::npos);
    }
}

TEST_CASE("overlinking: the package's own libraries, the sysroot, and the host's stand-ins") {
    Fixture f;
    link_lib(f.pkg, "base", {}, "");
    link_lib(f.pkg, "app", {"base", "stdc++"}, "$ORIGIN");
    SECTION("libstdc++ needs a run dependency it stands in for") {
        auto r = f.check();
        CHECK(texts(r, LinkSeverity::info).find("libbase.so found in this package") != std::string::npos);
        CHECK(texts(r, LinkSeverity::info).find("libc.so.6 found in the sysroot (glibc)") != std::string::npos);
        CHECK(texts(r, LinkSeverity::warning).find("libstdc++.so.6 (") != std::string::npos);
        CHECK(texts(r, LinkSeverity::warning).find("is the host's stand-in for libstdcxx-ng, libstdcxx, none of "
                                                   "which is a run dependency (overlinking)") != std::string::npos);
        f.o.run_depends = {"libstdcxx-ng >=12"};
        CHECK(f.check().count(LinkSeverity::warning) == 0);
    }
    SECTION("build/overlinking_ignore_patterns skips files") {
        f.o.ignore_patterns = {"lib/libapp.so"};
        CHECK(f.check().count(LinkSeverity::warning) == 0);
    }
}

TEST_CASE("overlinking: a library found nowhere, unless whitelisted") {
    Fixture f;
    link_lib(f.pkg, "gone", {}, "");
    link_lib(f.pkg, "app", {"gone"}, "");
    stdfs::remove(f.pkg / "lib/libgone.so");  // linked against, never shipped
    CHECK(texts(f.check(), LinkSeverity::warning) ==
          "lib/libapp.so: libgone.so is not found in any package, the sysroot nor build/missing_dso_whitelist "
          "(overlinking; searched the RPATH and the system library dirs)");
    f.o.missing_dso_whitelist = {"*/libgone.so*"};
    CHECK(f.check().count(LinkSeverity::warning) == 0);
}

TEST_CASE("runpaths are reported unless build/runpath_whitelist is set") {
    Fixture f;
    link_lib(f.pkg, "app", {}, "$ORIGIN", "--enable-new-dtags");
    CHECK(texts(f.check(), LinkSeverity::warning) == "lib/libapp.so: runpaths [$ORIGIN] found (conda-build writes DT_RPATH)");
    f.o.runpath_whitelist = {"nothing/matches"};  // post.py tests the list, not the match
    CHECK(f.check().count(LinkSeverity::warning) == 0);
}

TEST_CASE("overdepending: a library run dependency no file links") {
    Fixture f;
    link_lib(f.pkg, "app", {}, "");
    f.o.run_depends = {"sf-libfoo", "libgcc-ng >=12"};
    SECTION("a dso library: a warning, an error under error_overdepending") {
        auto r = f.check();
        CHECK(texts(r, LinkSeverity::warning) ==
              "dso library package sf-libfoo-1.0-0 is a run dependency but no file links it (overdepending, or "
              "linked statically)");
        f.o.overdepending = LinkError::error;
        CHECK(f.check().count(LinkSeverity::error) == 1);
    }
    SECTION("run_exports make it a run-exports library") {
        f.o.packages[0].has_run_exports = true;
        CHECK(texts(f.check(), LinkSeverity::warning).find("run-exports library package sf-libfoo") == 0);
    }
    SECTION("build/ignore_run_exports silences it; libgcc-ng never counts") {
        f.o.ignore_run_exports = {"sf-libfoo"};
        f.o.packages.push_back({"libgcc-ng", "libgcc-ng-14-0", {"lib/libfoo.so"}, true});
        CHECK(f.check().messages.size() == f.check().count(LinkSeverity::info));
    }
    SECTION("a package without compiled files is checked for nothing") {
        stdfs::remove_all(f.pkg);
        test::put(f.pkg / "share/x.txt", "x");
        CHECK(f.check().messages.empty());
    }
}

TEST_CASE("read_prefix_packages reads conda-meta records") {
    fs::TempDir tmp("sf-linkage");
    test::put(tmp.path() / "conda-meta/sf-libfoo-1.0-0.json",
              R"({"name": "sf-libfoo", "version": "1.0", "build": "0", "files": ["lib/libfoo.so"]})");
    test::put(tmp.path() / "conda-meta/history", "");
    auto r = read_prefix_packages(tmp.path());
    REQUIRE(r);
    REQUIRE(r->size() == 1);
    CHECK((*r)[0].name == "sf-libfoo");
    CHECK((*r)[0].dist == "sf-libfoo-1.0-0");
    CHECK((*r)[0].files == std::vector<std::string>{"lib/libfoo.so"});
    test::put(tmp.path() / "conda-meta/bad-1-0.json", R"({"name": "bad", "files": "lib/x"})");
    CHECK_FALSE(read_prefix_packages(tmp.path()));
    CHECK(read_prefix_packages(tmp.path() / "nowhere")->empty());
}
