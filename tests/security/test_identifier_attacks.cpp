// Hostile identifiers and malformed metadata (issue 20, round 3): every
// name, version, build, subdir, noarch value and prefix is checked where it
// enters, and metadata of the wrong shape is a one-line error with exit 1 or
// 2, never an internal error (3). Packages and channels are crafted here.
#include <catch2/catch.hpp>

#include <sys/wait.h>

#include <fstream>

#include "archive/write.hpp"
#include "craft.hpp"
#include "env/install.hpp"
#include "oracle.hpp"
#include "testutil.hpp"

using namespace sf::test::craft;
using sf::env::install;
using sf::env::InstallOptions;
namespace ar = sf::archive;

namespace {

InstallOptions opts(const stdfs::path& channel, const stdfs::path& pkgs) {
    InstallOptions o;
    if (!channel.empty()) o.channels = {channel};
    o.pkgs_dir = pkgs;
    o.platform = *sf::types::Platform::parse("linux-64");
    return o;
}

struct Run {
    int exit = -1;
    std::string err;
};

// The binary with `args`; its exit code and stderr.
Run run_cli(const sf::fs::TempDir& tmp, std::vector<std::string> args) {
    args.insert(args.begin(), sf::test::binary().string());
    stdfs::path log = tmp.path() / "stderr.log";
    pid_t pid = spawn(args, log);
    int status = 0;
    ::waitpid(pid, &status, 0);
    return {WIFEXITED(status) ? WEXITSTATUS(status) : -1, sf::test::slurp(log)};
}

// One line on stderr, exit 1 or 2 (never 3, an internal error), naming `what`.
void check_refused(const Run& r, const std::string& what) {
    INFO(r.err);
    CHECK((r.exit == 1 || r.exit == 2));
    CHECK(r.err.find(what) != std::string::npos);
    CHECK(std::count(r.err.begin(), r.err.end(), '\n') == 1);
}

// One tarball of a .conda: its zip member name and its entries.
struct Part {
    std::string name;
    std::vector<ar::TarEntry> entries;
};

ar::TarEntry tar_file(std::string name, std::string content) {
    return {std::move(name), ar::EntryKind::file, {}, std::move(content)};
}

// A .conda of `parts` in order, after metadata.json with `metadata`.
stdfs::path write_conda(const stdfs::path& file, const std::string& metadata, const std::vector<Part>& parts) {
    stdfs::create_directories(file.parent_path());
    auto out = ar::OutputFile::create(file);
    REQUIRE(out);
    ar::ZipWriter zip(**out, 0);
    REQUIRE(zip.add("metadata.json", metadata));
    ar::Compression c{ar::Codec::zstd, 1, 1};
    for (const auto& part : parts) {
        REQUIRE(zip.add_streamed(part.name, ar::compress_bound(ar::tar_size_bound(part.entries), c),
                                 [&](ar::ByteSink& sink) -> sf::Result<void> {
                                     auto w = ar::write_tar(sink, part.entries, {}, c);
                                     if (!w) return sf::Unexpected<sf::Error>{w.error()};
                                     return {};
                                 }));
    }
    REQUIRE(zip.finish());
    REQUIRE((*out)->commit());
    return file;
}

const std::string kMetadata = R"({"conda_pkg_format_version": 2})";

// The info tarball of `p` (index.json, paths.json of its members) and its payload.
Part info_part(const Pkg& p) {
    return {"info-" + p.name + "-1.0-0.tar.zst",
            {tar_file("info/index.json", index_json(p).dump()), tar_file("info/paths.json", paths_json(p).dump())}};
}
Part pkg_part(const Pkg& p, std::vector<ar::TarEntry> extra = {}) {
    Part part{"pkg-" + p.name + "-1.0-0.tar.zst", {}};
    for (const auto& m : p.members) part.entries.push_back(tar_file(m.name, m.data));
    part.entries.insert(part.entries.end(), extra.begin(), extra.end());
    return part;
}

Pkg simple(std::string name) { return pkg_with(std::move(name), {{"share/ok.txt", 'f', "ok\n"}}); }

// Install `file` through the binary; refused with `what`, nothing in the
// prefix, no staging dir left in the cache.
void check_install_refused(const sf::fs::TempDir& tmp, const stdfs::path& file, const std::string& what) {
    auto r = run_cli(tmp, {"install", "-q", "-p", (tmp.path() / "prefix").string(), "--pkgs-dir",
                           (tmp.path() / "pkgs").string(), "--platform", "linux-64", file.string()});
    check_refused(r, what);
    CHECK_FALSE(stdfs::exists(tmp.path() / "prefix/share"));
    std::error_code ec;
    if (stdfs::exists(tmp.path() / "pkgs")) CHECK(sf::test::oracle::leftovers(tmp.path() / "pkgs").empty());
}

}  // namespace

// --- package: identifiers from the CLI and --meta -------------------------------

TEST_CASE("security: package --version with ../ is refused, nothing written outside -o", "[security]") {
    sf::fs::TempDir tmp("sf-sec-id");
    stdfs::create_directories(tmp.path() / "in/share");
    std::ofstream(tmp.path() / "in/share/f") << "x\n";
    stdfs::path out = tmp.path() / "a/b/c/out";
    auto before = scan(tmp.path());
    auto r = run_cli(tmp, {"package", (tmp.path() / "in").string(), "--name", "x", "--version", "64/../../../x",
                           "--build", "0", "-o", out.string()});
    check_refused(r, "--version: invalid version '64/../../../x'");
    CHECK(r.exit == 2);
    auto after = scan(tmp.path(), {"stderr.log"});
    before.erase("stderr.log");
    CHECK(after == before);
}

TEST_CASE("security: package --meta with a bad version or noarch is refused", "[security]") {
    sf::fs::TempDir tmp("sf-sec-meta");
    stdfs::create_directories(tmp.path() / "in/share");
    std::ofstream(tmp.path() / "in/share/f") << "x\n";
    for (auto [field, value, msg] : std::vector<std::tuple<std::string, json, std::string>>{
             {"version", "64/../../../x", "invalid version '64/../../../x'"},
             {"version", 64, "'version' must be a string, not number"},
             {"noarch", "../../x", "invalid noarch '../../x'"},
             {"name", "A/../b", "invalid package name 'A/../b'"},
             {"build", "0/../x", "invalid build string '0/../x'"},
             {"recipe_files", json::array({{{"dest", 5}}}), "recipe_files: 'dest' must be a string, not number"}}) {
        SECTION(field + " " + value.dump()) {
            json meta = {{"name", "x"}, {"version", "1.0"}, {"build", "0"}};
            meta[field] = value;
            std::ofstream(tmp.path() / "meta.json") << meta.dump();
            auto r = run_cli(tmp, {"package", (tmp.path() / "in").string(), "--meta", (tmp.path() / "meta.json").string(),
                                   "-o", (tmp.path() / "out").string()});
            check_refused(r, msg);
            CHECK(r.err.find("meta.json") != std::string::npos);
            CHECK_FALSE(stdfs::exists(tmp.path() / "out"));
        }
    }
}

TEST_CASE("security: package --noarch and a recipe's noarch must be python or generic", "[security]") {
    sf::fs::TempDir tmp("sf-sec-noarch");
    stdfs::create_directories(tmp.path() / "in");
    auto r = run_cli(tmp, {"package", (tmp.path() / "in").string(), "--name", "x", "--version", "1", "--build", "0",
                           "--noarch", "../../x", "-o", (tmp.path() / "out").string()});
    check_refused(r, "invalid noarch '../../x'");
    stdfs::create_directories(tmp.path() / "recipe");
    std::ofstream(tmp.path() / "recipe/meta.yaml")
        << "package:\n  name: x\n  version: \"1.0\"\nbuild:\n  noarch: \"../../x\"\n";
    auto rr = run_cli(tmp, {"render", (tmp.path() / "recipe").string()});
    check_refused(rr, "x: build/noarch: invalid noarch '../../x'");
    CHECK(rr.exit == 2);
}

TEST_CASE("security: a prefix with a newline is refused by install and package", "[security]") {
    sf::fs::TempDir tmp("sf-sec-prefix");
    write_channel(tmp.path() / "channel", {simple("good")});
    std::string bad = (tmp.path() / "pre\nfix").string();
    auto r = run_cli(tmp, {"install", "-p", bad, "-c", (tmp.path() / "channel").string(), "--pkgs-dir",
                           (tmp.path() / "pkgs").string(), "--platform", "linux-64", "good"});
    check_refused(r, "--prefix: prefix '");
    CHECK(r.err.find("\\x0a") != std::string::npos);
    CHECK(r.exit == 2);
    CHECK_FALSE(stdfs::exists(bad));
    // The library refuses it too, whatever its caller checked.
    auto lib = install(bad, {"good"}, opts(tmp.path() / "channel", tmp.path() / "pkgs"));
    REQUIRE_FALSE(lib);
    CHECK(lib.error().message.find("contains a control character") != std::string::npos);
    CHECK_FALSE(stdfs::exists(bad));
    stdfs::create_directories(tmp.path() / "in");
    auto p = run_cli(tmp, {"package", (tmp.path() / "in").string(), "--name", "x", "--version", "1", "--build", "0",
                           "--prefix", "/opt/a\nb", "-o", (tmp.path() / "out").string()});
    check_refused(p, "--prefix: prefix '/opt/a\\x0ab' contains a control character");
}

// --- channels and package metadata ------------------------------------------------

TEST_CASE("security: an osx-64 record listed in linux-64 is refused (left out, named when asked for)", "[security]") {
    sf::fs::TempDir tmp("sf-sec-subdir");
    Pkg p = simple("foreign");
    p.edit_record = [](json& r) { r["subdir"] = "osx-64"; };
    write_channel(tmp.path() / "channel", {p});
    auto r = install(tmp.path() / "prefix", {"foreign"}, opts(tmp.path() / "channel", tmp.path() / "pkgs"));
    REQUIRE_FALSE(r);
    INFO(r.error().str());
    CHECK(r.error().message.find("cannot satisfy 'foreign' (requested): no such package in channels ") == 0);
    CHECK(r.error().message.find("left out as invalid: ") != std::string::npos);
    CHECK(r.error().message.find("linux-64/repodata.json: 'foreign-1.0-0.tar.bz2' says subdir 'osx-64' but is listed in "
                                 "'linux-64'") != std::string::npos);
    CHECK_FALSE(stdfs::exists(tmp.path() / "prefix"));
}

TEST_CASE("security: noarch '../../x' in index.json is refused", "[security]") {
    sf::fs::TempDir tmp("sf-sec-idxnoarch");
    Pkg p = simple("na");
    p.edit_index = [](json& j) { j["noarch"] = "../../x"; };
    p.edit_record = [](json& j) { j["noarch"] = "../../x"; };
    write_channel(tmp.path() / "channel", {p});
    auto r = install(tmp.path() / "prefix", {"na"}, opts(tmp.path() / "channel", tmp.path() / "pkgs"));
    REQUIRE_FALSE(r);
    CHECK(r.error().message.find("'noarch': invalid noarch '../../x'") != std::string::npos);
    // The same package file given directly: its own index.json is read.
    check_install_refused(tmp, tmp.path() / "channel/linux-64/na-1.0-0.tar.bz2", "invalid noarch '../../x'");
}

TEST_CASE("security: a .conda with a second pkg tarball is refused", "[security]") {
    sf::fs::TempDir tmp("sf-sec-twopkg");
    Pkg p = simple("two");
    auto file = write_conda(tmp.path() / "in/two-1.0-0.conda", kMetadata,
                            {info_part(p), pkg_part(p), {"pkg-two-1.0-0b.tar.zst", {tar_file("share/evil.txt", "evil\n")}}});
    check_install_refused(tmp, file, "a second pkg-*.tar.zst ('pkg-two-1.0-0b.tar.zst'); a .conda holds one of each");
    CHECK_FALSE(stdfs::exists(tmp.path() / "prefix/share/evil.txt"));
}

TEST_CASE("security: info/ inside the pkg tarball cannot shadow the info tarball", "[security]") {
    sf::fs::TempDir tmp("sf-sec-shadow");
    Pkg p = simple("shadow");
    Pkg liar = p;
    liar.members.push_back({"bin/unlisted", 'f', "evil\n"});
    // The info tarball has no paths.json (an old package: info/files lists
    // share/ok.txt); the pkg tarball brings one that lists an unlisted file.
    Part info{"info-shadow-1.0-0.tar.zst",
              {tar_file("info/index.json", index_json(p).dump()), tar_file("info/files", "share/ok.txt\n")}};
    auto file = write_conda(tmp.path() / "in/shadow-1.0-0.conda", kMetadata,
                            {pkg_part(liar, {tar_file("info/paths.json", paths_json(liar).dump())}), info});
    check_install_refused(tmp, file, "member 'info/paths.json' belongs in the info-*.tar.zst");
    CHECK_FALSE(stdfs::exists(tmp.path() / "prefix/bin/unlisted"));
}

TEST_CASE("security: malformed metadata is a one-line error, never exit 3", "[security]") {
    sf::fs::TempDir tmp("sf-sec-types");
    auto with_paths = [&](const std::string& name, std::function<void(json&)> edit) {
        Pkg p = simple(name);
        p.edit_paths = std::move(edit);
        return write_conda(tmp.path() / "in" / (name + "-1.0-0.conda"), kMetadata, {pkg_part(p), info_part(p)});
    };
    SECTION("path_type as a number") {
        auto f = with_paths("pt", [](json& j) { j["paths"][0]["path_type"] = 1; });
        check_install_refused(tmp, f, "info/paths.json: share/ok.txt: 'path_type' must be a string, not number");
    }
    SECTION("path_type as a number, from a channel: no staging dir is left") {
        Pkg p = simple("ch");
        p.edit_paths = [](json& j) { j["paths"][0]["path_type"] = 1; };
        write_channel(tmp.path() / "channel", {p});
        auto r = install(tmp.path() / "prefix", {"ch"}, opts(tmp.path() / "channel", tmp.path() / "pkgs"));
        REQUIRE_FALSE(r);
        CHECK(r.error().message.find("info/paths.json: share/ok.txt: 'path_type' must be a string, not number") !=
              std::string::npos);
        CHECK(sf::test::oracle::leftovers(tmp.path() / "pkgs").empty());
        CHECK_FALSE(stdfs::exists(tmp.path() / "prefix/share"));
    }
    SECTION("file_mode as a number") {
        auto f = with_paths("fm", [](json& j) { j["paths"][0]["file_mode"] = 0; });
        check_install_refused(tmp, f, "info/paths.json: share/ok.txt: 'file_mode' must be a string, not number");
    }
    SECTION("metadata.json with the format version as a string") {
        Pkg p = simple("mj");
        auto f = write_conda(tmp.path() / "in/mj-1.0-0.conda", R"({"conda_pkg_format_version": "2"})",
                             {pkg_part(p), info_part(p)});
        check_install_refused(tmp, f, "metadata.json: 'conda_pkg_format_version' must be an integer, not string");
    }
    SECTION("a conda-meta record whose name or version is not a string") {
        Pkg p = simple("cm");
        auto f = write_conda(tmp.path() / "in/cm-1.0-0.conda", kMetadata, {pkg_part(p), info_part(p)});
        for (auto [field, value] : std::vector<std::pair<std::string, json>>{{"name", 7}, {"version", json::array()}}) {
            stdfs::create_directories(tmp.path() / "prefix/conda-meta");
            json rec = {{"name", "victim"}, {"version", "0.1"}, {"build", "0"}, {"files", json::array()}};
            rec[field] = value;
            std::ofstream(tmp.path() / "prefix/conda-meta/victim-0.1-0.json") << rec.dump();
            auto r = run_cli(tmp, {"install", "-q", "-p", (tmp.path() / "prefix").string(), "--pkgs-dir",
                                   (tmp.path() / "pkgs").string(), f.string()});
            check_refused(r, "victim-0.1-0.json: '" + field + "' must be a string, not ");
        }
    }
}

TEST_CASE("security: real conda-forge identifiers still install", "[security]") {
    sf::fs::TempDir tmp("sf-sec-real");
    std::vector<Pkg> pkgs;
    for (auto [name, version, build] : std::vector<std::tuple<std::string, std::string, std::string>>{
             {"_openmp_mutex", "4.5", "2_gnu"},
             {"python_abi", "3.12", "5_cp312"},
             {"ca-certificates", "2024.8.30", "hbcca054_0"},
             {"r-base", "4.3.3", "h65010dc_18"},
             {"libtorch", "2024.1+cuda12", "cuda126_mkl_h123_300"},
             {"epoched", "1!2.0", "py312h1234567_0"},
             {"post", "1.2.3.post1", "pyhd8ed1ab_0"}}) {
        Pkg p = pkg_with(name, {{"share/" + name + ".txt", 'f', "ok\n"}});
        p.version = version;
        p.build = build;
        pkgs.push_back(p);
    }
    write_channel(tmp.path() / "channel", pkgs);
    std::vector<std::string> requests;
    for (const auto& p : pkgs) requests.push_back(p.name);
    auto r = install(tmp.path() / "prefix", requests, opts(tmp.path() / "channel", tmp.path() / "pkgs"));
    INFO((r ? std::string() : r.error().str()));
    REQUIRE(r);
    CHECK(r->linked.size() == pkgs.size());
}
