#include <catch2/catch.hpp>

#include "nginx.hpp"
#include "source/source.hpp"
#include "testutil.hpp"
#include "util/hash.hpp"
#include "util/strings.hpp"

using namespace sf;

namespace {

namespace stdfs = std::filesystem;

process::Env sys_env() { return {{"PATH", "/usr/bin:/bin"}, {"HOME", "/nonexistent-home"}}; }

// Runs a helper tool for the fixtures and insists it works.
void run_ok(std::vector<std::string> argv, const stdfs::path& cwd) {
    process::Command c;
    c.argv = std::move(argv);
    c.cwd = cwd;
    c.env = sys_env();
    c.env["GIT_AUTHOR_NAME"] = c.env["GIT_COMMITTER_NAME"] = "t";
    c.env["GIT_AUTHOR_EMAIL"] = c.env["GIT_COMMITTER_EMAIL"] = "t@example.com";
    auto r = process::capture(c);
    REQUIRE(r);
    INFO(r->out << r->err);
    REQUIRE(r->exit_code == 0);
}

std::string run_out(std::vector<std::string> argv, const stdfs::path& cwd) {
    process::Command c;
    c.argv = std::move(argv);
    c.cwd = cwd;
    c.env = sys_env();
    auto r = process::capture(c);
    REQUIRE(r);
    REQUIRE(r->exit_code == 0);
    return std::string(str::trim(r->out));
}

void write(const stdfs::path& p, const std::string& text) { REQUIRE(fs::write_file_atomic(p, text)); }

// A fresh temp area: recipe dir, work dir, cache dir and a place for fixtures.
struct Area {
    fs::TempDir tmp{"sf-source"};
    stdfs::path recipe = tmp.path() / "recipe";
    stdfs::path work = tmp.path() / "work";
    stdfs::path cache = tmp.path() / "cache";
    stdfs::path fixtures = tmp.path() / "fixtures";
    std::vector<std::string> lines;
    Area() {
        stdfs::create_directories(recipe / "patches");
        stdfs::create_directories(fixtures);
    }
    source::SourceContext ctx() {
        source::SourceContext c;
        c.work_dir = work;
        c.recipe_dir = recipe;
        c.cache_dir = cache;
        c.env = sys_env();
        c.on_line = [this](const std::string& l) { lines.push_back(l); };
        return c;
    }
    // minitorch-0.1/{CMakeLists.txt, src/foo.cpp} as a .tar.gz; returns its path.
    stdfs::path make_tarball(const std::string& name = "minitorch-0.1.tar.gz") {
        stdfs::path top = fixtures / "minitorch-0.1";
        stdfs::create_directories(top / "src");
        write(top / "CMakeLists.txt", "project(minitorch)\n");
        std::string foo;
        for (int i = 1; i <= 20; ++i) foo += "line " + std::to_string(i) + "\n";
        write(top / "src" / "foo.cpp", foo);
        run_ok({"tar", "czf", name, "minitorch-0.1"}, fixtures);
        return fixtures / name;
    }
};

std::string sha_of(const stdfs::path& p) {
    auto s = hash::file_sha256(p);
    REQUIRE(s);
    return *s;
}

// A url: source of a fresh make_tarball(), with its sha256.
types::Source tarball_source(Area& a) {
    auto tarball = a.make_tarball();
    types::Source s;
    s.url = "file://" + tarball.string();
    s.sha256 = sha_of(tarball);
    return s;
}

size_t count_entries(const stdfs::path& dir) {
    std::error_code ec;
    if (!stdfs::exists(dir, ec)) return 0;
    return static_cast<size_t>(std::distance(stdfs::directory_iterator(dir), {}));
}

}  // namespace

TEST_CASE("source: file:// tarball with a good sha256, then a cache hit") {
    Area a;
    auto tarball = a.make_tarball();
    types::Source s;
    s.url = "file://" + tarball.string();
    s.sha256 = sha_of(tarball);
    auto r = source::fetch_source(s, a.ctx());
    REQUIRE(r);
    CHECK(r->cache == source::CacheUse::miss);
    CHECK(r->dir == a.work);
    // The single top-level directory is stripped.
    CHECK(test::slurp(a.work / "CMakeLists.txt") == "project(minitorch)\n");
    CHECK(stdfs::is_regular_file(a.work / "src" / "foo.cpp"));
    CHECK(stdfs::is_regular_file(a.cache / s.sha256 / "minitorch-0.1.tar.gz"));

    // Second fetch: the original is gone, so only the cache can serve it.
    stdfs::remove(tarball);
    stdfs::remove_all(a.work);
    auto again = source::fetch_source(s, a.ctx());
    REQUIRE(again);
    CHECK(again->cache == source::CacheUse::hit);
    CHECK(test::slurp(a.work / "CMakeLists.txt") == "project(minitorch)\n");

    SECTION("a corrupted cache entry is not trusted") {
        write(a.cache / s.sha256 / "minitorch-0.1.tar.gz", "garbage");
        stdfs::remove_all(a.work);
        auto bad = source::fetch_source(s, a.ctx());
        REQUIRE_FALSE(bad);  // the original is gone, so it cannot be fetched again
        CHECK(str::starts_with(bad.error().message, "cannot fetch minitorch-0.1.tar.gz: tried file://"));
        CHECK_FALSE(stdfs::exists(a.cache / s.sha256 / "minitorch-0.1.tar.gz"));
    }
}

TEST_CASE("source: a url list is tried in order, and a missing source names the urls and the cache path") {
    Area a;
    auto tarball = a.make_tarball();
    types::Source s;
    s.url = "file://" + (a.fixtures / "gone-0.1.tar.gz").string();
    s.mirrors = {"file://" + tarball.string()};
    s.sha256 = sha_of(tarball);
    s.fn = "minitorch-0.1.tar.gz";
    auto r = source::fetch_source(s, a.ctx());
    REQUIRE(r);
    CHECK(test::slurp(a.work / "CMakeLists.txt") == "project(minitorch)\n");

    stdfs::remove_all(a.cache);
    stdfs::remove_all(a.work);
    stdfs::copy_file(tarball, a.tmp.path() / "kept.tar.gz");
    stdfs::remove(tarball);
    s.where = SourceLoc{"recipe/meta.yaml", 7};
    auto bad = source::fetch_source(s, a.ctx());
    REQUIRE_FALSE(bad);
    // One error: the recipe line, every url with its reason, the exact cache path.
    CHECK(bad.error().loc.str() == "recipe/meta.yaml:7");
    CHECK(bad.error().message == "cannot fetch minitorch-0.1.tar.gz: tried " + s.url + " (no such file " +
                                     (a.fixtures / "gone-0.1.tar.gz").string() + "), " + s.mirrors[0] +
                                     " (no such file " + tarball.string() + ")");
    CHECK(bad.error().hint.find("put the file (sha256 " + s.sha256 + ") at " +
                                (a.cache / s.sha256 / "minitorch-0.1.tar.gz").string()) == 0);
    CHECK_FALSE(stdfs::exists(a.cache / s.sha256 / "minitorch-0.1.tar.gz.part"));  // nothing half-written

    SECTION("a file put at that path by hand is used, and nothing is fetched") {
        stdfs::create_directories(a.cache / s.sha256);
        stdfs::rename(a.tmp.path() / "kept.tar.gz", a.cache / s.sha256 / "minitorch-0.1.tar.gz");
        auto r2 = source::fetch_source(s, a.ctx());
        REQUIRE(r2);
        CHECK(r2->cache == source::CacheUse::hit);
    }
}

TEST_CASE("source: a sha256 mismatch is a hard error naming both digests and the file") {
    Area a;
    auto tarball = a.make_tarball();
    types::Source s;
    s.url = "file://" + tarball.string();
    s.sha256 = std::string(64, 'a');
    auto r = source::fetch_source(s, a.ctx());
    REQUIRE_FALSE(r);
    CHECK(r.error().message == "sha256 mismatch for file://" + tarball.string() + ": expected " +
                                   std::string(64, 'a') + ", got " + sha_of(tarball));
    CHECK(r.error().kind == ErrorKind::input);  // the recipe's: exit 2
    CHECK(count_entries(a.work) == 0);                  // nothing extracted
    CHECK(count_entries(a.cache / s.sha256) == 0);      // nothing cached

    SECTION("md5 is checked too") {
        s.sha256 = sha_of(tarball);
        s.md5 = std::string(32, '0');
        auto m = source::fetch_source(s, a.ctx());
        REQUIRE_FALSE(m);
        CHECK(str::starts_with(m.error().message, "md5 mismatch for file://"));
    }
    SECTION("a malformed sha256") {
        s.sha256 = "abc";
        auto m = source::fetch_source(s, a.ctx());
        REQUIRE_FALSE(m);
        CHECK(str::starts_with(m.error().message, "invalid sha256 'abc'"));
    }
}

TEST_CASE("source: local paths, other archive formats, no stripping of several top entries") {
    Area a;
    SECTION("relative url without sha256 is used in place; folder is honoured") {
        a.make_tarball();
        stdfs::copy_file(a.fixtures / "minitorch-0.1.tar.gz", a.recipe / "src.tar.gz");
        types::Source s;
        s.url = "src.tar.gz";
        s.folder = "sub/dir";
        auto r = source::fetch_source(s, a.ctx());
        REQUIRE(r);
        CHECK(r->cache == source::CacheUse::none);
        CHECK(stdfs::is_regular_file(a.work / "sub" / "dir" / "CMakeLists.txt"));
        CHECK(count_entries(a.cache) == 0);
    }
    SECTION("zip and tar.xz with two top-level entries keep both") {
        write(a.fixtures / "a.txt", "A\n");
        write(a.fixtures / "b.txt", "B\n");
        run_ok({"zip", "-q", "two.zip", "a.txt", "b.txt"}, a.fixtures);
        run_ok({"tar", "cJf", "two.tar.xz", "a.txt", "b.txt"}, a.fixtures);
        for (std::string name : {"two.zip", "two.tar.xz"}) {
            stdfs::remove_all(a.work);
            types::Source s;
            s.url = (a.fixtures / name).string();
            s.sha256 = sha_of(a.fixtures / name);
            REQUIRE(source::fetch_source(s, a.ctx()));
            CHECK(test::slurp(a.work / "a.txt") == "A\n");
            CHECK(test::slurp(a.work / "b.txt") == "B\n");
        }
    }
    SECTION("a plain file is copied under its name (or fn)") {
        write(a.fixtures / "LICENSE", "MIT\n");
        types::Source s;
        s.url = "file://" + (a.fixtures / "LICENSE").string();
        s.sha256 = sha_of(a.fixtures / "LICENSE");
        s.fn = "LICENSE.txt";
        REQUIRE(source::fetch_source(s, a.ctx()));
        CHECK(test::slurp(a.work / "LICENSE.txt") == "MIT\n");
    }
    SECTION("a missing file") {
        types::Source s;
        s.url = "file:///nonexistent/x.tar.gz";
        s.sha256 = std::string(64, 'b');
        auto r = source::fetch_source(s, a.ctx());
        REQUIRE_FALSE(r);
        CHECK(r.error().message ==
              "cannot fetch x.tar.gz: tried file:///nonexistent/x.tar.gz (no such file /nonexistent/x.tar.gz)");
    }
    SECTION("https without sha256, and a host that does not resolve, with no curl on PATH") {
        types::Source s;
        s.url = "https://example.invalid/x.tar.gz";
        auto r = source::fetch_source(s, a.ctx());
        REQUIRE_FALSE(r);
        CHECK(r.error().message == "source url https://example.invalid/x.tar.gz has no sha256");
        s.sha256 = std::string(64, 'c');
        auto ctx = a.ctx();
        ctx.env["PATH"] = a.fixtures.string();
        // libcurl in-process: no `curl` child, so PATH does not matter.
        auto no_host = source::fetch_source(s, ctx);
        REQUIRE_FALSE(no_host);
        CHECK_THAT(no_host.error().message,
                   Catch::StartsWith("cannot fetch x.tar.gz: tried https://example.invalid/x.tar.gz (download failed: "));
        CHECK(no_host.error().message.find("curl'") == std::string::npos);
    }
}

TEST_CASE("source: a url over HTTP is fetched in-process, checked by sha256, cached, and a failure names the url masked") {
    Area a;
    stdfs::create_directories(a.fixtures / "www");
    write(a.fixtures / "www/LICENSE", "BSD\n");
    test::Nginx server(a.fixtures / "www");
    types::Source s;
    s.url = server.url("/LICENSE");
    s.sha256 = sha_of(a.fixtures / "www/LICENSE");
    REQUIRE(source::fetch_source(s, a.ctx()));
    CHECK(test::slurp(a.work / "LICENSE") == "BSD\n");
    CHECK(test::slurp(a.cache / s.sha256 / "LICENSE") == "BSD\n");
    // Cached: the second fetch asks nothing of the server.
    const auto asked = server.hits().size();
    stdfs::remove_all(a.work);
    REQUIRE(source::fetch_source(s, a.ctx()));
    CHECK(server.hits().size() == asked);

    SECTION("a wrong sha256 leaves nothing in the cache") {
        types::Source bad = s;
        bad.sha256 = std::string(64, 'd');
        auto r = source::fetch_source(bad, a.ctx());
        REQUIRE_FALSE(r);
        CHECK(r.error().message.find("sha256 mismatch") != std::string::npos);
        CHECK(!stdfs::exists(a.cache / bad.sha256 / "LICENSE"));
    }
    SECTION("a 404 behind credentials names the url masked") {
        types::Source gone = s;
        gone.sha256 = std::string(64, 'e');
        gone.url = "http://alice:s3cret@127.0.0.1:" + std::to_string(server.port()) + "/missing.tar.gz";
        auto r = source::fetch_source(gone, a.ctx());
        REQUIRE_FALSE(r);
        CHECK(r.error().message.find("HTTP 404") != std::string::npos);
        CHECK(r.error().message.find("s3cret") == std::string::npos);
        CHECK(r.error().hint.find("s3cret") == std::string::npos);
    }
}

TEST_CASE("source: unsafe archives are refused and leave nothing behind") {
    Area a;
    std::string script =
        "import io, sys, tarfile\n"
        "t = tarfile.open(sys.argv[1], 'w:gz')\n"
        "def add(name, data=b'x', link=None):\n"
        "    i = tarfile.TarInfo(name)\n"
        "    if link is not None:\n"
        "        i.type, i.linkname = tarfile.SYMTYPE, link\n"
        "        t.addfile(i)\n"
        "    else:\n"
        "        i.size = len(data); t.addfile(i, io.BytesIO(data))\n"
        "add('pkg/ok.txt')\n"
        "if sys.argv[2] == 'dotdot': add('pkg/../../evil.txt')\n"
        "if sys.argv[2] == 'abs': add('/tmp/evil-abs.txt')\n"
        "if sys.argv[2] == 'link': add('pkg/l', link='../../outside')\n"
        "if sys.argv[2] == 'through': add('pkg/d', link='.'); add('pkg/d/f.txt')\n"
        "t.close()\n";
    write(a.fixtures / "mk.py", script);
    for (std::string kind : {"dotdot", "abs", "link", "through"}) {
        DYNAMIC_SECTION(kind) {
            auto file = a.fixtures / (kind + ".tar.gz");
            run_ok({"python3", "mk.py", file.string(), kind}, a.fixtures);
            types::Source s;
            s.url = file.string();
            auto r = source::fetch_source(s, a.ctx());
            REQUIRE_FALSE(r);
            CHECK(r.error().loc.file == file.string());
            CHECK(((r.error().message.find("unsafe member") != std::string::npos) ||
                   (r.error().message.find("through a symlink") != std::string::npos)));
            CHECK(count_entries(a.work) == 0);
        }
    }
}

TEST_CASE("source: git_url + git_rev checks out that revision") {
    Area a;
    auto repo = a.fixtures / "repo";
    stdfs::create_directories(repo);
    run_ok({"git", "init", "--quiet", "-b", "main"}, repo);
    write(repo / "VERSION", "1\n");
    run_ok({"git", "add", "VERSION"}, repo);
    run_ok({"git", "commit", "--quiet", "-m", "one"}, repo);
    std::string first = run_out({"git", "rev-parse", "HEAD"}, repo);
    write(repo / "VERSION", "2\n");
    run_ok({"git", "commit", "--quiet", "-am", "two"}, repo);

    types::Source s;
    s.git_url = repo.string();
    SECTION("the first commit, by rev") {
        s.git_rev = first;
        REQUIRE(source::fetch_source(s, a.ctx()));
        CHECK(test::slurp(a.work / "VERSION") == "1\n");
        CHECK(stdfs::exists(a.work / ".git"));
    }
    SECTION("the default branch") {
        REQUIRE(source::fetch_source(s, a.ctx()));
        CHECK(test::slurp(a.work / "VERSION") == "2\n");
    }
    SECTION("a rev that does not exist") {
        s.git_rev = "no-such-rev";
        auto r = source::fetch_source(s, a.ctx());
        REQUIRE_FALSE(r);
        CHECK(str::starts_with(r.error().message, "git checkout of 'no-such-rev' in " + repo.string() + " failed: "));
    }
    SECTION("a repository that does not exist") {
        s.git_url = (a.fixtures / "nope").string();
        auto r = source::fetch_source(s, a.ctx());
        REQUIRE_FALSE(r);
        CHECK(str::starts_with(r.error().message, "git clone of " + s.git_url + " failed: "));
    }
}

TEST_CASE("source: path sources are copied") {
    Area a;
    stdfs::create_directories(a.recipe / "src" / "inner");
    write(a.recipe / "src" / "inner" / "x.c", "int x;\n");
    stdfs::create_symlink("inner/x.c", a.recipe / "src" / "link.c");
    types::Source s;
    s.path = "src";
    REQUIRE(source::fetch_source(s, a.ctx()));
    CHECK(test::slurp(a.work / "inner" / "x.c") == "int x;\n");
    CHECK(stdfs::is_symlink(a.work / "link.c"));
    CHECK(test::slurp(a.recipe / "src" / "inner" / "x.c") == "int x;\n");  // the original stays

    types::Source none;
    auto r = source::fetch_source(none, a.ctx());
    REQUIRE_FALSE(r);
    CHECK(r.error().message == "source has none of url, path or git_url");
}

namespace {

// A patch against minitorch-0.1/src/foo.cpp changing `line N` at line N.
std::string foo_patch(int at, const std::string& expect, const std::string& repl) {
    std::string p = "--- a/src/foo.cpp\n+++ b/src/foo.cpp\n";
    p += "@@ -" + std::to_string(at - 1) + ",3 +" + std::to_string(at - 1) + ",3 @@\n";
    p += " line " + std::to_string(at - 1) + "\n";
    p += "-" + expect + "\n+" + repl + "\n";
    p += " line " + std::to_string(at + 1) + "\n";
    return p;
}

}  // namespace

TEST_CASE("source: the patch strip level is guessed as conda-build guesses it") {
    fs::TempDir tmp("sf-strip");
    const auto d = tmp.path();
    stdfs::create_directories(d / "lib");
    write(d / "lib/xmlparse.c", "x\n");
    write(d / "README", "x\n");
    // expat's feedstock: paths from the repository root, one level above the tarball's.
    CHECK(source::guess_strip_level("--- a/expat/lib/xmlparse.c\n+++ b/expat/lib/xmlparse.c\n", d) == 2);
    CHECK(source::guess_strip_level("--- a/lib/xmlparse.c\n+++ b/lib/xmlparse.c\n", d) == 1);
    CHECK(source::guess_strip_level("--- lib/xmlparse.c.orig\t2020-01-01\n+++ lib/xmlparse.c\n", d) == 0);
    CHECK(source::guess_strip_level("--- README\n+++ README\n", d) == 0);  // no dir: level 0
    CHECK(source::guess_strip_level("--- /dev/null\n+++ b/lib/new.c\n", d) == 0);  // nothing found: the least deep
    CHECK(source::guess_strip_level("no paths here\n", d) == 1);
}

TEST_CASE("source: patches") {
    Area a;
    auto tarball = a.make_tarball();
    types::Source s;
    s.url = tarball.string();
    s.sha256 = sha_of(tarball);

    SECTION("applied in order") {
        write(a.recipe / "patches" / "0001-first.patch", foo_patch(12, "line 12", "patched 12"));
        write(a.recipe / "patches" / "0002-second.patch", foo_patch(12, "patched 12", "patched twice"));
        s.patches = {"patches/0001-first.patch", "patches/0002-second.patch"};
        REQUIRE(source::fetch_source(s, a.ctx()));
        auto text = test::slurp(a.work / "src" / "foo.cpp");
        CHECK(text.find("\npatched twice\n") != std::string::npos);
        CHECK(text.find("line 12") == std::string::npos);
        CHECK(std::find(a.lines.begin(), a.lines.end(), "applying patches/0002-second.patch (-p1)") != a.lines.end());
    }
    SECTION("a patch that does not apply names the patch, hunk and file") {
        write(a.recipe / "patches" / "0001-first.patch", foo_patch(5, "line 5", "patched 5"));
        write(a.recipe / "patches" / "0002-fix.patch", foo_patch(12, "something else", "patched 12"));
        s.patches = {"patches/0001-first.patch", "patches/0002-fix.patch"};
        auto r = source::fetch_source(s, a.ctx());
        REQUIRE_FALSE(r);
        CHECK(r.error().str() ==
              "patches/0002-fix.patch: hunk #1 FAILED at 11 (src/foo.cpp) — refresh the patch against the new source");
        CHECK(r.error().kind == ErrorKind::runtime);  // it ran and failed: exit 1, as a failed script
        // The failed patch left the file as the first patch made it; no .rej/.orig files.
        auto text = test::slurp(a.work / "src" / "foo.cpp");
        CHECK(text.find("patched 5") != std::string::npos);
        CHECK(text.find("line 12") != std::string::npos);
        CHECK_FALSE(stdfs::exists(a.work / "src" / "foo.cpp.rej"));
    }
    SECTION("a patch for a file that is not there") {
        write(a.recipe / "patches" / "0001-gone.patch",
              "--- a/src/gone.cpp\n+++ b/src/gone.cpp\n@@ -1 +1 @@\n-a\n+b\n");
        s.patches = {"patches/0001-gone.patch"};
        auto r = source::fetch_source(s, a.ctx());
        REQUIRE_FALSE(r);
        CHECK(r.error().str() ==
              "patches/0001-gone.patch: can't find file to patch (src/gone.cpp) — refresh the patch against the new "
              "source");
    }
    SECTION("a patch made one directory above the source applies with -p2") {
        write(a.recipe / "patches" / "0001-deep.patch",
              "--- a/pkg/src/foo.cpp\n+++ b/pkg/src/foo.cpp\n@@ -12 +12 @@\n-line 12\n+deep 12\n");
        s.patches = {"patches/0001-deep.patch"};
        REQUIRE(source::fetch_source(s, a.ctx()));
        CHECK(test::slurp(a.work / "src" / "foo.cpp").find("\ndeep 12\n") != std::string::npos);
        CHECK(std::find(a.lines.begin(), a.lines.end(), "applying patches/0001-deep.patch (-p2)") != a.lines.end());
    }
    SECTION("a missing patch file is an error naming it, before anything is applied") {
        write(a.recipe / "patches" / "0001-first.patch", foo_patch(12, "line 12", "patched 12"));
        s.patches = {"patches/0001-first.patch", "patches/0002-missing.patch"};
        auto r = source::fetch_source(s, a.ctx());
        REQUIRE_FALSE(r);
        CHECK(r.error().loc.file == "patches/0002-missing.patch");
        CHECK(r.error().message == "patch file not found");
        CHECK(r.error().kind == ErrorKind::input);  // the recipe's: exit 2
        CHECK(test::slurp(a.work / "src" / "foo.cpp").find("patched 12") == std::string::npos);
    }
    SECTION("without `patch`, git apply does the job and its failures read the same way") {
        auto bin = a.fixtures / "bin";
        stdfs::create_directories(bin);
        stdfs::create_symlink("/usr/bin/git", bin / "git");
        auto ctx = a.ctx();
        ctx.env["PATH"] = bin.string();
        write(a.recipe / "patches" / "0001-first.patch", foo_patch(12, "line 12", "patched 12"));
        s.patches = {"patches/0001-first.patch"};
        REQUIRE(source::fetch_source(s, ctx));
        CHECK(test::slurp(a.work / "src" / "foo.cpp").find("\npatched 12\n") != std::string::npos);

        stdfs::remove_all(a.work);
        write(a.recipe / "patches" / "0002-fix.patch", foo_patch(12, "something else", "x"));
        s.patches = {"patches/0002-fix.patch"};
        auto r = source::fetch_source(s, ctx);
        REQUIRE_FALSE(r);
        CHECK(r.error().str() ==
              "patches/0002-fix.patch: hunk FAILED at 11 (src/foo.cpp) — refresh the patch against the new source");
        CHECK(r.error().kind == ErrorKind::runtime);
    }
}

namespace {

// fetch_source() while writes past 64 KiB fail (a full disk): it must fail
// as the job's failure (runtime, exit 1) naming the cause.
Error fetch_on_full_disk(Area& a, const types::Source& s) {
    auto r = [&] {
        test::FileSizeLimit limit(64 * 1024);
        return source::fetch_source(s, a.ctx());
    }();
    REQUIRE_FALSE(r);
    INFO(r.error().str());
    CHECK(r.error().kind == ErrorKind::runtime);
    CHECK(r.error().message.find("File too large") != std::string::npos);
    return r.error();
}

}  // namespace

TEST_CASE("source: a write that fails is the job's failure (exit 1), a wrong source the recipe's (exit 2)") {
    Area a;
    SECTION("a path: source copied onto a full disk") {
        stdfs::create_directories(a.recipe / "tree");
        write(a.recipe / "tree" / "big.bin", std::string(256 * 1024, 'x'));
        types::Source s;
        s.path = "tree";
        CHECK(str::starts_with(fetch_on_full_disk(a, s).message, "cannot copy source: "));
    }
    SECTION("an archive extracted onto a full disk") {
        stdfs::path top = a.fixtures / "big-0.1";
        stdfs::create_directories(top);
        write(top / "zeros.bin", std::string(1024 * 1024, '\0'));  // a small .tar.gz
        run_ok({"tar", "czf", "big-0.1.tar.gz", "big-0.1"}, a.fixtures);
        types::Source s;
        s.url = "file://" + (a.fixtures / "big-0.1.tar.gz").string();
        s.sha256 = sha_of(a.fixtures / "big-0.1.tar.gz");
        CHECK(fetch_on_full_disk(a, s).loc.file == (a.cache / s.sha256 / "big-0.1.tar.gz").string());
    }
    SECTION("the download cache cannot be made: a file is in the way") {
        const types::Source s = tarball_source(a);
        write(a.cache, "not a directory");
        auto r = source::fetch_source(s, a.ctx());
        REQUIRE_FALSE(r);
        INFO(r.error().str());
        CHECK(r.error().kind == ErrorKind::runtime);
        CHECK(str::starts_with(r.error().message, "cannot create download cache: "));
    }
    SECTION("a missing path stays an input error") {
        types::Source p;
        p.path = "no-such-dir";
        auto m = source::fetch_source(p, a.ctx());
        REQUIRE_FALSE(m);
        CHECK(m.error().kind == ErrorKind::input);
    }
}

TEST_CASE("source: a symlink in the download cache is never followed, for reading or writing") {
    Area a;
    const types::Source s = tarball_source(a);
    const stdfs::path tarball = a.fixtures / "minitorch-0.1.tar.gz";
    const stdfs::path outside = a.tmp.path() / "outside";
    stdfs::create_directories(outside);
    const stdfs::path slot = a.cache / s.sha256;
    const stdfs::path entry = slot / "minitorch-0.1.tar.gz";
    auto fetched_into_the_cache = [&] {
        auto r = source::fetch_source(s, a.ctx());
        REQUIRE(r);
        CHECK(r->cache == source::CacheUse::miss);  // fetched again, not read through the link
        CHECK(stdfs::is_directory(stdfs::symlink_status(slot)));
        CHECK(stdfs::is_regular_file(stdfs::symlink_status(entry)));
        CHECK(sha_of(entry) == s.sha256);
        CHECK(test::slurp(a.work / "CMakeLists.txt") == "project(minitorch)\n");
    };
    SECTION("a slot that links elsewhere, to the right file, is replaced and nothing is written there") {
        stdfs::copy_file(tarball, outside / "minitorch-0.1.tar.gz");
        stdfs::create_directories(a.cache);
        stdfs::create_directory_symlink(outside, slot);
        fetched_into_the_cache();
        CHECK(count_entries(outside) == 1);
    }
    SECTION("an entry that links to a file outside, with the right bytes, is not read") {
        stdfs::copy_file(tarball, outside / "kept.tar.gz");
        stdfs::create_directories(slot);
        stdfs::create_symlink(outside / "kept.tar.gz", entry);
        fetched_into_the_cache();
        CHECK(sha_of(outside / "kept.tar.gz") == s.sha256);
    }
    SECTION("a planted link at a download's temp name is not written through") {
        write(outside / "victim.txt", "victim\n");
        stdfs::create_directories(slot);
        stdfs::create_symlink(outside / "victim.txt", slot / "minitorch-0.1.tar.gz.part");
        fetched_into_the_cache();
        CHECK(test::slurp(outside / "victim.txt") == "victim\n");
    }
}
