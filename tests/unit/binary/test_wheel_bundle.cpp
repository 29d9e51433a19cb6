// binary/wheel_bundle: libraries copied into <dist>.libs under hashed names,
// NEEDED, SONAME and RPATH rewritten, and the manylinux tag of the tree.
#include <catch2/catch.hpp>

#include "binary/wheel_bundle.hpp"
#include "package/elf.hpp"
#include "process/process.hpp"
#include "testproc.hpp"
#include "testutil.hpp"
#include "unit/package/fixture.hpp"
#include "util/hash.hpp"
#include "util/strings.hpp"

using namespace sf;
using namespace sf::binary;
namespace stdfs = std::filesystem;

namespace {

std::optional<stdfs::path> tool(const std::string& name) {
    auto env = process::current_env();
    return process::find_executable(name, env["PATH"]);
}

package::ElfInfo elf(const stdfs::path& p) {
    auto e = package::read_elf(p);
    REQUIRE(e);
    return *e;
}

// deps/libbar.so.1 <- deps/libfoo.so.1 <- tree/torch/lib/libtorch.so <-
// tree/torch/_C.so (RUNPATH pointing out of the tree, as in a conda prefix).
struct Tree {
    stdfs::path root, deps;
    BundleOptions opts;
};

Tree make_tree(const stdfs::path& tmp, bool provide_foo = true) {
    Tree t{tmp / "tree", tmp / "deps", {}};
    const stdfs::path src = tmp / "src";
    test::put(src / "bar.c", "int bar(int x) { return x + 1; }\n");
    test::put(src / "foo.c", "int bar(int); int foo(int x) { return bar(x) * 2; }\n");
    test::put(src / "torch.c", "int foo(int); int torch(int x) { return foo(x) + 3; }\n");
    test::put(src / "c.c", "int torch(int); int entry(void) { return torch(1); }\n");
    stdfs::create_directories(t.deps);
    stdfs::create_directories(t.root / "torch/lib");
    test::run_ok({"gcc", "-shared", "-fPIC", "-o", (t.deps / "libbar.so.1").string(), "-Wl,-soname,libbar.so.1",
        (src / "bar.c").string()});
    test::run_ok({"gcc", "-shared", "-fPIC", "-o", (t.deps / "libfoo.so.1").string(), "-Wl,-soname,libfoo.so.1",
        (src / "foo.c").string(), (t.deps / "libbar.so.1").string(), "-Wl,-rpath,$ORIGIN"});
    test::run_ok({"gcc", "-shared", "-fPIC", "-o", (t.root / "torch/lib/libtorch.so").string(), "-Wl,-soname,libtorch.so",
        (src / "torch.c").string(), (t.deps / "libfoo.so.1").string(), "-Wl,-rpath,$ORIGIN",
        "-Wl,-rpath-link," + t.deps.string()});
    test::run_ok({"gcc", "-shared", "-fPIC", "-o", (t.root / "torch/_C.so").string(), (src / "c.c").string(),
        (t.root / "torch/lib/libtorch.so").string(), "-Wl,-rpath,$ORIGIN/../../..",
        "-Wl,-rpath-link," + t.deps.string()});
    t.opts.root = t.root;
    t.opts.libs_dir = "torch.libs";
    t.opts.provided["libbar.so.1"] = {"libbar-1.0-h0_0.conda", "lib/libbar.so.1"};
    if (provide_foo) t.opts.provided["libfoo.so.1"] = {"libfoo-1.0-h0_0.conda", "lib/libfoo.so.1"};
    const stdfs::path deps = t.deps;
    t.opts.fetch = [deps](const ProvidedLib& lib, const stdfs::path& to) -> Result<void> {
        return fs::copy_file(deps / stdfs::path(lib.member).filename(), to);
    };
    t.opts.patchelf = *tool("patchelf");
    t.opts.env = process::current_env();
    return t;
}

std::string hashed(const stdfs::path& p, const std::string& stem, const std::string& ext) {
    auto sha = hash::file_sha256(p);
    REQUIRE(sha);
    return stem + "-" + sha->substr(0, 8) + ext;
}

}  // namespace

TEST_CASE("bundle_libraries: what the tree needs from dependencies lands in torch.libs, renamed and relinked") {
    INFO("needs gcc and patchelf on PATH (bash scripts/deps.sh installs them)");
    REQUIRE(tool("gcc"));
    REQUIRE(tool("patchelf"));
    fs::TempDir tmp("sf-bundle");
    Tree t = make_tree(tmp.path());
    const std::string foo = hashed(t.deps / "libfoo.so.1", "libfoo", ".so.1");
    const std::string bar = hashed(t.deps / "libbar.so.1", "libbar", ".so.1");
    BundleCache cache{tmp.path() / "cache", {}, {}};
    stdfs::create_directories(cache.dir);
    t.opts.cache = &cache;
    auto r = bundle_libraries(t.opts);
    INFO((r ? "" : r.error().str()));
    REQUIRE(r);
    CHECK(r->arch == package::machine_arch(62));
    CHECK(r->bundled == std::vector<std::string>{"torch.libs/" + foo + " (libfoo.so.1 from libfoo-1.0-h0_0.conda)",
                                                 "torch.libs/" + bar + " (libbar.so.1 from libbar-1.0-h0_0.conda)"});
    CHECK(str::starts_with(r->policy.name(), "manylinux_2_"));

    const auto torch = elf(t.root / "torch/lib/libtorch.so");
    CHECK(std::find(torch.needed.begin(), torch.needed.end(), foo) != torch.needed.end());
    CHECK(torch.rpath == "$ORIGIN:$ORIGIN/../../torch.libs");
    const auto c = elf(t.root / "torch/_C.so");
    CHECK(c.rpath == "$ORIGIN/lib");  // the conda prefix's $ORIGIN/../../.. left the tree: gone
    const auto f = elf(t.root / "torch.libs" / foo);
    CHECK(f.soname == foo);
    CHECK(std::find(f.needed.begin(), f.needed.end(), bar) != f.needed.end());
    CHECK(f.rpath == "$ORIGIN");
    const auto b = elf(t.root / "torch.libs" / bar);
    CHECK(b.soname == bar);
    CHECK(b.kind == package::RpathKind::none);

    SECTION("a second tree with the same libraries reuses the cache and gets the same bytes") {
        Tree t2 = make_tree(tmp.path() / "again");
        t2.opts.fetch = [](const ProvidedLib&, const stdfs::path&) -> Result<void> {
            return fail("fetched twice: the cache should have it");
        };
        // Same sources, same compiler: the dependencies' bytes are the same.
        t2.opts.cache = &cache;
        auto r2 = bundle_libraries(t2.opts);
        INFO((r2 ? "" : r2.error().str()));
        REQUIRE(r2);
        CHECK(test::slurp(t2.root / "torch.libs" / foo) == test::slurp(t.root / "torch.libs" / foo));
    }
}

TEST_CASE("bundle_libraries: a library no dependency provides is an error naming the file and the library") {
    INFO("needs gcc and patchelf on PATH (bash scripts/deps.sh installs them)");
    REQUIRE(tool("gcc"));
    REQUIRE(tool("patchelf"));
    fs::TempDir tmp("sf-bundle");
    Tree t = make_tree(tmp.path(), /*provide_foo=*/false);
    auto r = bundle_libraries(t.opts);
    REQUIRE_FALSE(r);
    CHECK(r.error().loc.file == "torch/lib/libtorch.so");
    CHECK(r.error().message.find("needs libfoo.so.1") != std::string::npos);
}
