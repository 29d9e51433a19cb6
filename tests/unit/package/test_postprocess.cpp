#include <catch2/catch.hpp>

#include "package/elf.hpp"
#include "package/postprocess.hpp"
#include "process/process.hpp"
#include "testproc.hpp"
#include "testutil.hpp"
#include "unit/package/fixture.hpp"
#include "util/strings.hpp"

using namespace sf;
using namespace sf::package;
namespace stdfs = std::filesystem;

namespace {

bool rehashed(const stdfs::path& p) {
    auto r = rehash_build_id(p);
    INFO(p.string() << ": " << (r ? "" : r.error().str()));
    REQUIRE(r);
    return *r;
}

}  // namespace

TEST_CASE("detect_prefix classifies text and binary files") {
    fs::TempDir tmp("sf-pp");
    const std::string prefix = "/opt/build/_placehold_placehold";
    test::make_payload(tmp.path(), prefix);
    SECTION("text") {
        auto r = detect_prefix(tmp.path() / "include/demo.h", "include/demo.h", prefix, BinaryPrefix::detect);
        REQUIRE(r);
        REQUIRE(r->has_value());
        CHECK((*r)->mode == types::FileMode::text);
        CHECK((*r)->placeholder == prefix);
        CHECK((*r)->path == "include/demo.h");
    }
    SECTION("binary, unless disabled") {
        auto r = detect_prefix(tmp.path() / "lib/libdemo.so.1", "lib/libdemo.so.1", prefix, BinaryPrefix::detect);
        REQUIRE(r);
        REQUIRE(r->has_value());
        CHECK((*r)->mode == types::FileMode::binary);
        auto off = detect_prefix(tmp.path() / "lib/libdemo.so.1", "x", prefix, BinaryPrefix::ignore);
        REQUIRE(off);
        CHECK_FALSE(off->has_value());
    }
    SECTION("no prefix") {
        auto r = detect_prefix(tmp.path() / "bin/demo", "bin/demo", prefix, BinaryPrefix::detect);
        REQUIRE(r);
        CHECK_FALSE(r->has_value());
    }
    SECTION("a prefix straddling the 1 MiB read boundary, NUL far after it") {
        std::string big((1 << 20) - 5, 'a');
        big += prefix;
        big += std::string(1 << 20, 'b');
        big.push_back('\0');
        test::put(tmp.path() / "big", big);
        auto r = detect_prefix(tmp.path() / "big", "big", prefix, BinaryPrefix::detect);
        REQUIRE(r);
        REQUIRE(r->has_value());
        CHECK((*r)->mode == types::FileMode::binary);
    }
}

TEST_CASE("postprocess reports prefix files and fixes symlinks") {
    fs::TempDir tmp("sf-pp");
    const std::string prefix = "/opt/build/_placehold_placehold";
    test::make_payload(tmp.path(), prefix);
    stdfs::create_symlink(prefix + "/include/demo.h", tmp.path() / "include/alias.h");
    PostprocessOptions o;
    o.prefix = prefix;
    auto r = postprocess(tmp.path(), o);
    REQUIRE(r);
    REQUIRE(r->prefix_files.size() == 2);
    CHECK(r->prefix_files[0].path == "include/demo.h");
    CHECK(r->prefix_files[1].path == "lib/libdemo.so.1");
    CHECK(stdfs::read_symlink(tmp.path() / "include/alias.h") == "demo.h");
    CHECK(r->symlinks_made_relative.size() == 1);
    o.binary = BinaryPrefix::ignore;
    auto r2 = postprocess(tmp.path(), o);
    REQUIRE(r2);
    REQUIRE(r2->prefix_files.size() == 1);
    CHECK(r2->prefix_files[0].mode == types::FileMode::text);
}

TEST_CASE("fix_symlinks refuses links leaving the prefix") {
    fs::TempDir tmp("sf-pp");
    const std::string prefix = "/opt/build/prefix";
    test::put(tmp.path() / "lib/libz.so.1", "z");
    SECTION("absolute outside") {
        stdfs::create_symlink("/usr/lib/libz.so.1", tmp.path() / "lib/libz.so");
        auto r = fix_symlinks(tmp.path(), prefix);
        REQUIRE_FALSE(r);
        CHECK(r.error().loc.file == "lib/libz.so");
        CHECK(r.error().message.find("outside the prefix") != std::string::npos);
    }
    SECTION("relative escaping") {
        stdfs::create_symlink("../../../etc/passwd", tmp.path() / "lib/evil");
        auto r = fix_symlinks(tmp.path(), prefix);
        REQUIRE_FALSE(r);
        CHECK(r.error().str().find("lib/evil") != std::string::npos);
    }
    SECTION("relative inside is fine, absolute inside becomes relative") {
        stdfs::create_symlink("libz.so.1", tmp.path() / "lib/libz.so");
        stdfs::create_directories(tmp.path() / "bin");
        stdfs::create_symlink(prefix + "/lib/libz.so.1", tmp.path() / "bin/z");
        auto r = fix_symlinks(tmp.path(), prefix);
        REQUIRE(r);
        CHECK(stdfs::read_symlink(tmp.path() / "lib/libz.so") == "libz.so.1");
        CHECK(stdfs::read_symlink(tmp.path() / "bin/z") == "../lib/libz.so.1");
    }
}

TEST_CASE("relocate_rpath") {
    // conda-build's mk_relative_linux, with build/rpaths as given.
    const std::string p = "/opt/prefix";
    const std::vector<std::string> none, lib{"lib"};
    std::vector<std::string> dropped;
    SECTION("entries into the prefix become $ORIGIN-relative, as Python's relpath writes them") {
        CHECK(relocate_rpath("/opt/prefix/lib", p, "lib", none) == "$ORIGIN/.");
        CHECK(relocate_rpath("/opt/prefix/lib", p, "bin", none) == "$ORIGIN/../lib");
        CHECK(relocate_rpath("/opt/prefix/lib/python3.12/site-packages/torch/lib", p,
                             "lib/python3.12/site-packages/torch", none) == "$ORIGIN/lib");
        CHECK(relocate_rpath("/opt/prefix", p, "lib", none) == "$ORIGIN/..");
    }
    SECTION("$ORIGIN entries stay; others outside the prefix, and relative ones, are dropped") {
        CHECK(relocate_rpath("$ORIGIN/../lib:/opt/prefix/lib", p, "bin", none) == "$ORIGIN/../lib");
        CHECK(relocate_rpath("/usr/local/cuda/lib64:/opt/prefix/lib", p, "lib", none, &dropped) == "$ORIGIN/.");
        CHECK(dropped == std::vector<std::string>{"/usr/local/cuda/lib64"});
        CHECK(relocate_rpath("/opt/prefixx/lib:build/lib", p, "lib", none).empty());
        CHECK(relocate_rpath("", p, "lib", none).empty());
    }
    SECTION("build/rpaths (default lib) are added to every file, once") {
        CHECK(relocate_rpath("", p, "lib", lib) == "$ORIGIN/.");
        CHECK(relocate_rpath("", p, "bin", lib) == "$ORIGIN/../lib");
        CHECK(relocate_rpath("$ORIGIN", p, "lib", lib) == "$ORIGIN:$ORIGIN/.");
        CHECK(relocate_rpath("/opt/prefix/lib", p, "bin", lib) == "$ORIGIN/../lib");
        CHECK(relocate_rpath("", p, "lib/python3.12/site-packages/torch", {"lib", "/opt/abs"}) ==
              "$ORIGIN/../../..:/opt/abs");
    }
}

TEST_CASE("postprocess rewrites ELF rpaths with patchelf") {
    // scripts/deps.sh installs both: their absence is a broken setup, not a skip.
    INFO("needs g++ and patchelf on PATH (bash scripts/deps.sh installs them)");
    REQUIRE(test::have_tool("g++"));
    REQUIRE(test::have_tool("patchelf"));
    fs::TempDir tmp("sf-rpath");
    const stdfs::path prefix = tmp.path() / "prefix";
    stdfs::create_directories(prefix / "lib");
    test::put(tmp.path() / "a.cpp", "extern \"C\" int answer() { return 42; }\n");
    const std::string so = (prefix / "lib/libanswer.so").string();
    test::run_ok({"g++", "-shared", "-fPIC", "-o", so, (tmp.path() / "a.cpp").string(),
             "-Wl,-rpath," + prefix.string() + "/lib:/usr/local/nowhere", "-Wl,--enable-new-dtags"});
    auto before = read_elf(so);
    REQUIRE(before);
    CHECK(before->is_elf);
    CHECK(before->kind == RpathKind::runpath);
    CHECK(before->rpath == prefix.string() + "/lib:/usr/local/nowhere");
    CHECK(test::run_ok({"patchelf", "--print-rpath", so}) == before->rpath);
    CHECK(before->soname.empty());
    CHECK(before->needed.empty() == test::run_ok({"patchelf", "--print-needed", so}).empty());

    const std::string so2 = (prefix / "lib/libold.so").string();  // DT_RPATH stays DT_RPATH
    test::run_ok({"g++", "-shared", "-fPIC", "-o", so2, (tmp.path() / "a.cpp").string(),
             "-Wl,-rpath," + prefix.string() + "/lib/sub", "-Wl,--disable-new-dtags"});
    REQUIRE(read_elf(so2)->kind == RpathKind::rpath);
    const std::string so3 = (prefix / "lib/libnamed.so.1").string();  // DT_SONAME, and a NEEDED of ours
    test::run_ok({"g++", "-shared", "-fPIC", "-o", so3, (tmp.path() / "a.cpp").string(), "-Wl,-soname,libnamed.so.1",
             "-Wl,--no-as-needed", "-L" + prefix.string() + "/lib", "-lanswer"});
    CHECK(read_elf(so3)->soname == "libnamed.so.1");
    CHECK(read_elf(so)->soname.empty());
    auto named = read_elf(so3);
    CHECK(named->needed == str::split(test::run_ok({"patchelf", "--print-needed", so3}), '\n'));
    CHECK(named->needed.front() == "libanswer.so");
    stdfs::remove(so3);

    PostprocessOptions o;
    o.prefix = prefix.string();
    o.env = process::current_env();
    auto r = postprocess(prefix, o);
    REQUIRE(r);
    // conda-build's rules: lib/ added to every file, and always DT_RPATH.
    CHECK(test::run_ok({"patchelf", "--print-rpath", so}) == "$ORIGIN/.");
    CHECK(read_elf(so)->kind == RpathKind::rpath);
    CHECK(test::run_ok({"patchelf", "--print-rpath", so2}) == "$ORIGIN/sub:$ORIGIN/.");
    CHECK(read_elf(so2)->kind == RpathKind::rpath);
    CHECK(r->rpaths_rewritten.size() == 2);
    REQUIRE(r->warnings.size() == 1);
    CHECK(r->warnings[0].find("/usr/local/nowhere") != std::string::npos);

    SECTION("a second run changes nothing") {
        auto again = postprocess(prefix, o);
        REQUIRE(again);
        CHECK(again->rpaths_rewritten.empty());
    }
}

TEST_CASE("a missing patchelf is a clear error") {
    INFO("needs g++ on PATH (bash scripts/deps.sh installs it)");
    REQUIRE(test::have_tool("g++"));
    fs::TempDir tmp("sf-rpath");
    const stdfs::path prefix = tmp.path() / "prefix";
    stdfs::create_directories(prefix / "lib");
    test::put(tmp.path() / "a.cpp", "int f() { return 1; }\n");
    test::run_ok({"g++", "-shared", "-fPIC", "-o", (prefix / "lib/libf.so").string(), (tmp.path() / "a.cpp").string(),
             "-Wl,-rpath," + prefix.string() + "/lib"});
    PostprocessOptions o;
    o.prefix = prefix.string();
    o.env = {{"PATH", (tmp.path() / "empty-bin").string()}};
    auto r = postprocess(prefix, o);
    REQUIRE_FALSE(r);
    CHECK(r.error().str() == "patchelf not found (apt-get install patchelf)");
    SECTION("but RpathFix::keep does not need it") {
        o.rpath = RpathFix::keep;
        CHECK(postprocess(prefix, o));
    }
}

TEST_CASE("read_elf on non-ELF and truncated files") {
    fs::TempDir tmp("sf-elf");
    test::put(tmp.path() / "text", "hello");
    auto r = read_elf(tmp.path() / "text");
    REQUIRE(r);
    CHECK_FALSE(r->is_elf);
    test::put(tmp.path() / "trunc", std::string("\x7f" "ELF\2\1\1", 7) + std::string(20, '\0'));
    CHECK_FALSE(read_elf(tmp.path() / "trunc"));
}

TEST_CASE("two links in different dirs differ only in the build-id after patchelf and rehashing makes them equal") {
    // What the demo's libraries went through: the build tree's absolute
    // RPATH reached the linker's build-id, then the RPATH was rewritten.
    INFO("needs g++ and patchelf on PATH (bash scripts/deps.sh installs them)");
    REQUIRE(test::have_tool("g++"));
    REQUIRE(test::have_tool("patchelf"));
    fs::TempDir tmp("sf-buildid");
    test::put(tmp.path() / "a.cpp", "extern \"C\" int answer() { return 42; }\n");
    // The same library, linked with an RPATH into a build prefix named `dir`,
    // then post-processed with `fix`.
    auto build = [&](const std::string& dir, BuildIdFix fix) {
        const stdfs::path prefix = tmp.path() / dir;
        stdfs::create_directories(prefix / "lib");
        const std::string so = (prefix / "lib/libanswer.so").string();
        test::run_ok({"g++", "-shared", "-fPIC", "-o", so, (tmp.path() / "a.cpp").string(), "-Wl,--build-id=sha1",
                 "-Wl,-rpath," + prefix.string() + "/lib"});
        PostprocessOptions o;
        o.prefix = prefix.string();
        o.env = process::current_env();
        o.build_id = fix;
        auto r = postprocess(prefix, o);
        REQUIRE(r);
        return std::make_pair(so, *r);
    };
    std::vector<std::string> sos;
    for (std::string dir : {"build-AAAA", "build-BBBB"}) sos.push_back(build(dir, BuildIdFix::keep).first);
    REQUIRE(test::run_ok({"patchelf", "--print-rpath", sos[0]}) == "$ORIGIN/.");
    auto id = find_build_id(sos[0]);
    REQUIRE(id);
    REQUIRE(*id);
    CHECK((*id)->size == 20);
    std::string a = test::slurp(sos[0]), b = test::slurp(sos[1]);
    REQUIRE(a.size() == b.size());
    CHECK(a != b);
    CHECK(a.substr(0, (*id)->offset) == b.substr(0, (*id)->offset));
    CHECK(a.substr((*id)->offset + 20) == b.substr((*id)->offset + 20));

    for (const auto& so : sos) CHECK(rehashed(so));
    CHECK(test::slurp(sos[0]) == test::slurp(sos[1]));
    CHECK(test::slurp(sos[0]) != a);  // a new id, not the old one
    auto again = test::slurp(sos[0]);
    CHECK(rehashed(sos[0]));
    CHECK(test::slurp(sos[0]) == again);  // a function of the bytes: stable

    SECTION("postprocess does it with BuildIdFix::rehash") {
        auto [so, r] = build("build-CCCC", BuildIdFix::rehash);
        CHECK(r.build_ids_rehashed == std::vector<std::string>{"lib/libanswer.so"});
        CHECK(test::slurp(so) == test::slurp(sos[0]));
    }
    SECTION("no build-id, or not ELF: nothing to do") {
        const std::string none = (tmp.path() / "libnone.so").string();
        test::run_ok({"g++", "-shared", "-fPIC", "-o", none, (tmp.path() / "a.cpp").string(), "-Wl,--build-id=none"});
        CHECK_FALSE(rehashed(none));
        test::put(tmp.path() / "x.txt", "text\n");
        CHECK_FALSE(rehashed(tmp.path() / "x.txt"));
    }
}

TEST_CASE("nvcc's temp file names lose their pid: two compiles through different temp names become equal") {
    // nvcc hands the host compiler /tmp/tmpxft_<pid>_<n>-<k>_<name>.cudafe1.cpp,
    // whose name lands in an STT_FILE symbol. g++ on such files shows the same.
    INFO("needs g++ and readelf on PATH (bash scripts/deps.sh installs them)");
    REQUIRE(test::have_tool("g++"));
    fs::TempDir tmp("sf-nvcc-names");
    std::vector<std::string> sos;
    for (std::string pid : {"00006920", "000072e8"}) {
        const auto src = tmp.path() / ("tmpxft_" + pid + "_00000000-6_Kernels.cudafe1.cpp");
        test::put(src, "extern \"C\" int answer() { return 42; }\n");
        const std::string so = (tmp.path() / ("lib" + pid + ".so")).string();
        test::run_ok({"g++", "-shared", "-fPIC", "-o", so, src.string(), "-Wl,--build-id=sha1"});
        sos.push_back(so);
    }
    CHECK(test::slurp(sos[0]) != test::slurp(sos[1]));
    for (const auto& so : sos) {
        auto n = normalize_nvcc_temp_names(so);
        REQUIRE(n);
        CHECK(*n == 1);
        CHECK(rehashed(so));
    }
    CHECK(test::slurp(sos[0]) == test::slurp(sos[1]));
    if (test::have_tool("readelf"))
        CHECK(test::run_ok({"readelf", "-s", "-W", sos[0]}).find("tmpxft_00000000_00000000-6_Kernels.cudafe1.cpp") !=
              std::string::npos);
    auto again = normalize_nvcc_temp_names(sos[0]);
    REQUIRE(again);
    CHECK(*again == 0);
}
