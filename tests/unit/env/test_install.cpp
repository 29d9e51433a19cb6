#include <catch2/catch.hpp>

#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <fstream>
#include <functional>
#include <map>

#include <nlohmann/json.hpp>

#include "archive/write.hpp"
#include "env/install.hpp"
#include "testutil.hpp"
#include "util/hash.hpp"

using namespace sf::env;
namespace stdfs = std::filesystem;

namespace {

const std::string kPlaceholder = "/opt/conda-build/_h_env_placehold_placehold_placehold_placehold_placehold_placeh";

stdfs::path fixtures() { return sf::test::data_dir() / "env/fixtures"; }

// Everything observable about a tree: type, mode, link target or content hash.
std::map<std::string, std::string> snapshot(const stdfs::path& root) {
    std::map<std::string, std::string> out;
    std::error_code ec;
    if (!stdfs::exists(stdfs::symlink_status(root, ec))) return {{"<absent>", ""}};
    for (auto it = stdfs::recursive_directory_iterator(root); it != stdfs::recursive_directory_iterator(); ++it) {
        struct stat st{};
        ::lstat(it->path().c_str(), &st);
        std::string rel = it->path().lexically_relative(root).string();
        std::string desc = std::to_string(st.st_mode);
        if (S_ISLNK(st.st_mode)) desc += " -> " + stdfs::read_symlink(it->path()).string();
        else if (S_ISREG(st.st_mode)) desc += " " + sf::hash::sha256(sf::test::slurp(it->path()));
        out[rel] = desc;
    }
    return out;
}

unsigned mode_of(const stdfs::path& p) {
    struct stat st{};
    ::stat(p.c_str(), &st);
    return st.st_mode & 07777;
}
nlink_t links_of(const stdfs::path& p) {
    struct stat st{};
    ::stat(p.c_str(), &st);
    return st.st_nlink;
}

struct Env {
    sf::fs::TempDir tmp{"sf-test-install"};
    stdfs::path prefix = tmp.path() / "prefix";
    stdfs::path pkgs = tmp.path() / "pkgs";
    InstallOptions opts(const std::vector<stdfs::path>& channels) const {
        InstallOptions o;
        o.channels = sf::env::channel_list(channels);
        o.pkgs_dir = pkgs;
        o.platform = *sf::types::Platform::parse("linux-64");
        return o;
    }
};

// Copies a fixture channel, lets `edit` change files, then rewrites the
// repodata sha256/md5/size so only the intended damage remains.
stdfs::path damaged_channel(const stdfs::path& where, const std::function<void(const stdfs::path&)>& edit) {
    stdfs::copy(fixtures() / "valid", where, stdfs::copy_options::recursive);
    edit(where);
    for (const char* sub : {"linux-64", "noarch"}) {
        auto rd_path = where / sub / "repodata.json";
        auto j = nlohmann::json::parse(sf::test::slurp(rd_path));
        for (const char* section : {"packages", "packages.conda"}) {
            for (auto& [fn, rec] : j[section].items()) {
                auto d = sf::hash::file_digests(where / sub / fn);
                REQUIRE(d);
                rec["sha256"] = d->sha256;
                rec["md5"] = d->md5;
                rec["size"] = d->size;
            }
        }
        std::ofstream(rd_path) << j.dump(2);
    }
    return where;
}

void truncate_file(const stdfs::path& p) {
    std::string data = sf::test::slurp(p);
    std::ofstream(p, std::ios::binary) << data.substr(0, data.size() / 2);
}

}  // namespace

TEST_CASE("install: demo-tool and its dependency into a fresh prefix", "[install]") {
    Env e;
    auto r = install(e.prefix, {"demo-tool"}, e.opts({fixtures() / "valid"}));
    REQUIRE(r);
    CHECK(r->linked == std::vector<std::string>{"demolib-1.2.0-h0_0", "demo-tool-0.1.0-0"});
    const auto& P = e.prefix;
    const std::string ps = P.string();

    // files, modes, symlinks, empty directories
    CHECK(sf::test::slurp(P / "include/demo.h") == "#pragma once\nint demo(void);\n");
    CHECK(stdfs::read_symlink(P / "lib/libdemo.so") == "libdemo.so.1.2.0");
    CHECK(stdfs::is_directory(P / "share/demolib/empty"));
    CHECK(mode_of(P / "bin/demo-tool") == 0755);
    CHECK(mode_of(P / "lib/libdemo.so.1.2.0") == 0755);
    CHECK(mode_of(P / "include/demo.h") == 0644);

    // text placeholders: every occurrence replaced
    std::string pc = sf::test::slurp(P / "lib/pkgconfig/demolib.pc");
    CHECK(pc.rfind("prefix=" + ps + "\n", 0) == 0);
    CHECK(pc.find(kPlaceholder) == std::string::npos);
    std::string tool = sf::test::slurp(P / "bin/demo-tool");
    CHECK(tool == "#!" + ps + "/bin/sh\n# demo tool\nexec \"" + ps + "/bin/env\" true \"$@\"\n");

    // binary placeholder: replaced inside the C string, NUL-padded, same length
    std::string so = sf::test::slurp(P / "lib/libdemo.so.1.2.0");
    std::string expect_str = "RPATH=" + ps + "/lib";
    auto at = so.find(expect_str);
    REQUIRE(at != std::string::npos);
    CHECK(so[at + expect_str.size()] == '\0');
    CHECK(so.size() == 427);
    CHECK(so.find(kPlaceholder) == std::string::npos);
    CHECK(so.substr(at + expect_str.size(), kPlaceholder.size() - ps.size() + 1) ==
          std::string(kPlaceholder.size() - ps.size() + 1, '\0'));

    // hardlinked from the cache unless rewritten
    CHECK(links_of(P / "include/demo.h") >= 2);
    CHECK(links_of(P / "lib/pkgconfig/demolib.pc") == 1);
    CHECK(links_of(P / "lib/libdemo.so.1.2.0") == 1);

    // conda-meta
    CHECK(stdfs::exists(P / "conda-meta/history"));
    CHECK(sf::test::slurp(P / "conda-meta/history").empty());
    auto meta = nlohmann::json::parse(sf::test::slurp(P / "conda-meta/demolib-1.2.0-h0_0.json"));
    CHECK(meta["name"] == "demolib");
    CHECK(meta["version"] == "1.2.0");
    CHECK(meta["build"] == "h0_0");
    CHECK(meta["fn"] == "demolib-1.2.0-h0_0.tar.bz2");
    CHECK(meta["sha256"] == *sf::hash::file_sha256(fixtures() / "valid/linux-64/demolib-1.2.0-h0_0.tar.bz2"));
    CHECK(meta["md5"].get<std::string>().size() == 32);
    CHECK(meta["size"] == 1575);
    CHECK(meta["files"] == nlohmann::json::array({"include/demo.h", "lib/libdemo.so", "lib/libdemo.so.1.2.0",
                                                  "lib/pkgconfig/demolib.pc"}));
    CHECK(meta["paths_data"]["paths_version"] == 1);
    CHECK(meta["paths_data"]["paths"].size() == 5);
    CHECK(meta["paths_data"]["paths"][2]["file_mode"] == "binary");
    CHECK(meta["link"]["type"] == 1);
    CHECK(meta["link"]["source"] == meta["extracted_package_dir"]);
    CHECK(meta["package_tarball_full_path"] == (fixtures() / "valid/linux-64/demolib-1.2.0-h0_0.tar.bz2").string());
    CHECK(meta["channel"] == "file://" + (fixtures() / "valid/linux-64").string());
    CHECK(meta["requested_spec"] == "");
    auto tmeta = nlohmann::json::parse(sf::test::slurp(P / "conda-meta/demo-tool-0.1.0-0.json"));
    CHECK(tmeta["requested_spec"] == "demo-tool");
    CHECK(tmeta["noarch"] == "generic");

    // a second install changes nothing
    auto before = snapshot(P);
    auto again = install(e.prefix, {"demo-tool"}, e.opts({fixtures() / "valid"}));
    REQUIRE(again);
    CHECK(again->linked.empty());
    CHECK(again->unchanged.size() == 2);
    CHECK(snapshot(P) == before);
}

TEST_CASE("install: copy mode copies", "[install]") {
    Env e;
    auto o = e.opts({fixtures() / "valid"});
    o.link_mode = LinkMode::copy;
    REQUIRE(install(e.prefix, {"demolib"}, o));
    CHECK(links_of(e.prefix / "include/demo.h") == 1);
    auto meta = nlohmann::json::parse(sf::test::slurp(e.prefix / "conda-meta/demolib-1.2.0-h0_0.json"));
    CHECK(meta["link"]["type"] == 3);
}

TEST_CASE("install: .conda and .tar.bz2 of the same input install identically", "[install]") {
    Env a, b;
    auto dir = sf::test::data_dir() / "env/formats";
    // The same prefix string for both, so replaced placeholders compare equal.
    auto prefix_a = a.tmp.path() / "p";
    auto prefix_b = b.tmp.path() / "p";
    REQUIRE(prefix_a.string().size() == prefix_b.string().size());
    REQUIRE(install(prefix_a, {(dir / "demolib-1.2.0-h0_0.conda").string()}, a.opts({})));
    REQUIRE(install(prefix_b, {(dir / "demolib-1.2.0-h0_0.tar.bz2").string()}, b.opts({})));
    auto sa = snapshot(prefix_a), sb = snapshot(prefix_b);
    sa.erase("conda-meta/demolib-1.2.0-h0_0.json");
    sb.erase("conda-meta/demolib-1.2.0-h0_0.json");
    // Placeholders were replaced with different prefixes; compare the rest.
    sa.erase("lib/pkgconfig/demolib.pc");
    sb.erase("lib/pkgconfig/demolib.pc");
    sa.erase("lib/libdemo.so.1.2.0");
    sb.erase("lib/libdemo.so.1.2.0");
    CHECK(sa == sb);
    CHECK(sa.size() >= 10);
    auto pa = sf::test::slurp(prefix_a / "lib/pkgconfig/demolib.pc");
    auto pb = sf::test::slurp(prefix_b / "lib/pkgconfig/demolib.pc");
    CHECK(sf::test::slurp(prefix_a / "lib/libdemo.so.1.2.0").size() ==
          sf::test::slurp(prefix_b / "lib/libdemo.so.1.2.0").size());
    CHECK(pa.substr(pa.find('\n')) == pb.substr(pb.find('\n')));
}

TEST_CASE("install: a package file plus its dependencies from a channel", "[install]") {
    Env e;
    auto file = fixtures() / "valid/noarch/demo-tool-0.1.0-0.conda";
    auto r = install(e.prefix, {file.string()}, e.opts({fixtures() / "valid"}));
    REQUIRE(r);
    CHECK(r->linked.size() == 2);
    auto meta = nlohmann::json::parse(sf::test::slurp(e.prefix / "conda-meta/demo-tool-0.1.0-0.json"));
    CHECK(meta["requested_spec"] == file.string());
    CHECK(meta["url"] == "file://" + file.string());

    // Without the channel the dependency is missing, and nothing is installed.
    Env f;
    auto lone = install(f.prefix, {file.string()}, f.opts({}));
    REQUIRE_FALSE(lone);
    CHECK(lone.error().str() == "cannot satisfy 'demolib >=1.2,<2' (required by demo-tool-0.1.0-0): no such package "
                                "in channels (none given; add -c CHANNEL)");
    CHECK_FALSE(stdfs::exists(f.prefix));
}

TEST_CASE("install: another build of an installed package replaces it", "[install]") {
    Env e;
    REQUIRE(install(e.prefix, {"demolib"}, e.opts({fixtures() / "valid"})));
    // Pretend an older build is installed, owning one more file.
    auto old = e.prefix / "conda-meta/demolib-1.2.0-h0_0.json";
    auto j = nlohmann::json::parse(sf::test::slurp(old));
    j["build"] = "hold_0";
    j["files"].push_back("share/old/stale.txt");
    stdfs::remove(old);
    std::ofstream(e.prefix / "conda-meta/demolib-1.2.0-hold_0.json") << j.dump(2);
    stdfs::create_directories(e.prefix / "share/old");
    std::ofstream(e.prefix / "share/old/stale.txt") << "stale\n";

    auto r = install(e.prefix, {"demolib"}, e.opts({fixtures() / "valid"}));
    REQUIRE(r);
    CHECK(r->removed == std::vector<std::string>{"demolib-1.2.0-hold_0"});
    CHECK(r->linked == std::vector<std::string>{"demolib-1.2.0-h0_0"});
    CHECK_FALSE(stdfs::exists(e.prefix / "share/old"));
    CHECK_FALSE(stdfs::exists(e.prefix / "conda-meta/demolib-1.2.0-hold_0.json"));
    CHECK(stdfs::exists(e.prefix / "conda-meta/demolib-1.2.0-h0_0.json"));
    CHECK(stdfs::exists(e.prefix / "include/demo.h"));
    for (const auto& entry : stdfs::directory_iterator(e.prefix))
        CHECK(entry.path().filename().string().rfind(".splitforge-trash", 0) != 0);
}

// Each bad input fails with a clear message and leaves an existing prefix as it was.
TEST_CASE("install: bad inputs leave the prefix untouched", "[install]") {
    struct Case {
        std::string name;
        std::function<stdfs::path(const stdfs::path& tmp)> channel;
        std::string request;
        std::string message;  // a part of the error
    };
    auto fixture = [](const std::string& v) { return [v](const stdfs::path&) { return fixtures() / v; }; };
    std::vector<Case> cases = {
        {"wrong sha256 in repodata", fixture("bad-repodata-sha"), "demo-tool",
         "demo-tool-0.1.0-0.conda: sha256 mismatch: repodata.json says 8810ad581e59f2bc3928b261707a71308f7e139eb04820366dc4d5c18d980225, the file has "},
        {"unsatisfiable spec", fixture("unsat-dep"), "demo-tool",
         "cannot satisfy 'demolib >=2' (required by demo-tool-0.1.0-0): no matching version"},
        {"path traversal member", fixture("unsafe-member"), "demo-tool",
         "demolib-1.2.0-h0_0.tar.bz2: unsafe member: member path '../evil.txt' contains '..'"},
        {"paths.json lists a missing file", fixture("missing-file"), "demo-tool",
         "info/paths.json lists 'include/demo_extra.h', which is not in the archive"},
        {"paths.json sha256 wrong", fixture("bad-paths-sha"), "demo-tool",
         "'bin/demo-tool' has sha256 "},
        {"package file missing", fixture("missing-package"), "demo-tool", "package file not found"},
        {"index.json disagrees", fixture("bad-index"), "demo-tool",
         "info/index.json says demolib-1.3.0-h0_0 but the channel's repodata.json says demolib-1.2.0-h0_0"},
        {"bad .conda layout", fixture("bad-conda-layout"), "demo-tool",
         "metadata.json does not say conda_pkg_format_version 2"},
        {"version spec syntax error", fixture("valid"), "demo-tool >>1",
         "invalid match spec 'demo-tool >>1': invalid version spec '>>1': invalid operator in '>>1'"},
        {"truncated archive",
         [](const stdfs::path& tmp) {
             return damaged_channel(tmp / "ch", [](const stdfs::path& ch) {
                 truncate_file(ch / "linux-64/demolib-1.2.0-h0_0.tar.bz2");
             });
         },
         "demo-tool", "demolib-1.2.0-h0_0.tar.bz2: truncated or corrupt archive"},
        {"corrupted zstd frame",
         [](const stdfs::path& tmp) {
             return damaged_channel(tmp / "ch", [](const stdfs::path& ch) {
                 auto p = ch / "noarch/demo-tool-0.1.0-0.conda";
                 std::string d = sf::test::slurp(p);
                 auto m = d.find("\x28\xb5\x2f\xfd");
                 for (size_t i = m + 20; i < m + 60; ++i) d[i] = static_cast<char>(d[i] ^ 0x5a);
                 std::ofstream(p, std::ios::binary) << d;
             });
         },
         "demo-tool", "demo-tool-0.1.0-0.conda: pkg-demo-tool-0.1.0-0.tar.zst"},
        {"symlink escaping the prefix",
         [](const stdfs::path&) { return fixtures() / "valid"; },
         (sf::test::data_dir() / "archive/symlink-escape-1.0-0.tar.bz2").string(),
         "unsafe member: symlink 'lib/evil' -> '../../etc/passwd' points outside the package"},
    };
    for (const auto& c : cases) {
        SECTION(c.name) {
            Env e;
            // An existing prefix with something in it.
            stdfs::create_directories(e.prefix / "conda-meta");
            std::ofstream(e.prefix / "keep.txt") << "keep\n";
            std::ofstream(e.prefix / "conda-meta/history") << "==> earlier <==\n";
            auto before = snapshot(e.prefix);
            auto r = install(e.prefix, {c.request}, e.opts({c.channel(e.tmp.path())}));
            REQUIRE_FALSE(r);
            INFO(r.error().str());
            CHECK(r.error().str().find(c.message) != std::string::npos);
            CHECK(snapshot(e.prefix) == before);
        }
    }
}

TEST_CASE("install: a prefix longer than a binary placeholder is refused up front", "[install]") {
    Env e;
    auto prefix = e.tmp.path() / std::string(90, 'x');
    auto r = install(prefix, {"demolib"}, e.opts({fixtures() / "valid"}));
    REQUIRE_FALSE(r);
    CHECK(r.error().str().find("demolib-1.2.0-h0_0: lib/libdemo.so.1.2.0: the prefix '" + prefix.string()) == 0);
    CHECK(r.error().str().find("is longer than the binary placeholder (80 characters)") != std::string::npos);
    CHECK_FALSE(stdfs::exists(prefix));
}

TEST_CASE("install: a failure while linking rolls everything back", "[install]") {
    Env e;
    // An unowned file the package will overwrite, and a directory where the
    // package wants a file: linking gets halfway, then fails.
    stdfs::create_directories(e.prefix / "include");
    std::ofstream(e.prefix / "include/demo.h") << "mine\n";
    stdfs::create_directories(e.prefix / "lib/pkgconfig/demolib.pc/inside");
    auto before = snapshot(e.prefix);
    auto r = install(e.prefix, {"demo-tool"}, e.opts({fixtures() / "valid"}));
    REQUIRE_FALSE(r);
    CHECK(r.error().str() == e.prefix.string() +
                                 ": cannot install 'lib/pkgconfig/demolib.pc': a directory is in the way");
    CHECK(snapshot(e.prefix) == before);
    CHECK(sf::test::slurp(e.prefix / "include/demo.h") == "mine\n");

    // Once the obstacle is gone the same install works and clobbers the stray file.
    stdfs::remove_all(e.prefix / "lib/pkgconfig/demolib.pc");
    REQUIRE(install(e.prefix, {"demo-tool"}, e.opts({fixtures() / "valid"})));
    CHECK(sf::test::slurp(e.prefix / "include/demo.h") == "#pragma once\nint demo(void);\n");
}

TEST_CASE("install: nothing requested", "[install]") {
    Env e;
    auto r = install(e.prefix, {}, e.opts({}));
    REQUIRE_FALSE(r);
    CHECK(r.error().str() == "nothing to install (give package specs or package files)");
}

TEST_CASE("install: a rerun with nothing to link still sweeps what a killed run left", "[install]") {
    // A run killed while writing its last file (conda-meta/history) leaves
    // a file aside and nothing to redo: the next install must sweep it.
    Env e;
    REQUIRE(install(e.prefix, {"demo-tool"}, e.opts({fixtures() / "valid"})));
    pid_t dead = ::fork();
    if (dead == 0) ::_exit(0);
    ::waitpid(dead, nullptr, 0);
    const stdfs::path left = e.prefix / (".splitforge-write.sftmp-" + std::to_string(dead) + "-0123456789ab");
    std::ofstream(left) << "cut short";
    const stdfs::path trash = e.prefix / ".splitforge-trash-1";
    stdfs::create_directories(trash / "lib");
    auto r = install(e.prefix, {"demo-tool"}, e.opts({fixtures() / "valid"}));
    REQUIRE(r);
    CHECK(r->linked.empty());
    CHECK_FALSE(stdfs::exists(left));
    CHECK_FALSE(stdfs::exists(trash));
}

TEST_CASE("install: an old package whose info/has_prefix is not UTF-8 is refused, not a crash", "[install]") {
    // Found by fuzz_package: the placeholder went into the conda-meta record,
    // whose JSON dump threw on the invalid byte.
    Env e;
    const stdfs::path tree = e.tmp.path() / "tree", pkg = e.tmp.path() / "old-1.0-0.tar.bz2";
    stdfs::create_directories(tree / "info");
    stdfs::create_directories(tree / "bin");
    std::ofstream(tree / "info/index.json") << R"({"name": "old", "version": "1.0", "build": "0", "build_number": 0,
        "depends": [], "subdir": "linux-64", "platform": "linux", "arch": "x86_64"})";
    std::ofstream(tree / "info/files") << "bin/run\n";
    std::ofstream(tree / "info/has_prefix") << "/opt/a\x9c\x9e text bin/run\n";
    std::ofstream(tree / "bin/run") << "#!/opt/a\x9c\x9e/bin/sh\n";
    auto entries = sf::archive::tree_entries(tree);
    REQUIRE(entries);
    auto out = sf::archive::OutputFile::create(pkg);
    REQUIRE(out);
    REQUIRE(sf::archive::write_tar(**out, *entries, {}, {sf::archive::Codec::bzip2, 1, 1}));
    REQUIRE((*out)->commit());
    auto r = install(e.prefix, {pkg.string()}, e.opts({}));
    REQUIRE_FALSE(r);
    CHECK(r.error().str() == pkg.string() + ": info/has_prefix is not valid UTF-8");
    CHECK_FALSE(stdfs::exists(e.prefix / "bin/run"));
}
