#include <catch2/catch.hpp>

#include <algorithm>
#include <fstream>
#include <sys/stat.h>

#include "archive/read.hpp"
#include "testutil.hpp"
#include "util/fs.hpp"

using namespace sf::archive;
namespace stdfs = std::filesystem;

namespace {

stdfs::path fixture(const std::string& variant, const std::string& rel) {
    return sf::test::data_dir() / "env/fixtures" / variant / rel;
}
const std::string kLib = "linux-64/demolib-1.2.0-h0_0.tar.bz2";
const std::string kTool = "noarch/demo-tool-0.1.0-0.conda";

const Entry* find(const std::vector<Entry>& es, const std::string& p) {
    auto it = std::find_if(es.begin(), es.end(), [&](const Entry& e) { return e.path == p; });
    return it == es.end() ? nullptr : &*it;
}

// Names left in a directory (to prove failed extractions leave nothing).
std::vector<std::string> names_in(const stdfs::path& d) {
    std::vector<std::string> out;
    for (const auto& e : stdfs::directory_iterator(d)) out.push_back(e.path().filename().string());
    std::sort(out.begin(), out.end());
    return out;
}

void write_bytes(const stdfs::path& p, const std::string& data) {
    std::ofstream f(p, std::ios::binary);
    f << data;
}

// Expects extraction to fail with a message containing `needle` and naming
// the package file, and nothing to be left behind.
void expect_extract_fails(const stdfs::path& pkg, const std::string& needle) {
    sf::fs::TempDir tmp("sf-test-read");
    auto r = extract_package(pkg, tmp.path() / "out");
    INFO(pkg.filename().string());
    REQUIRE_FALSE(r);
    INFO(r.error().str());
    CHECK(r.error().str().find(needle) != std::string::npos);
    CHECK(r.error().str().find(pkg.filename().string()) != std::string::npos);
    CHECK(names_in(tmp.path()).empty());
}

}  // namespace

TEST_CASE("read: package_format and stem", "[read]") {
    CHECK(*package_format("a/foo-1.0-0.conda") == PackageFormat::conda);
    CHECK(*package_format("foo-1.0-0.tar.bz2") == PackageFormat::tar_bz2);
    CHECK_FALSE(package_format("foo-1.0-0.zip"));
    CHECK(package_stem("x/foo-1.0-h0_0.tar.bz2") == "foo-1.0-h0_0");
    CHECK(package_stem("foo-1.0-0.conda") == "foo-1.0-0");
}

TEST_CASE("read: list a .tar.bz2", "[read]") {
    auto es = list_package(fixture("valid", kLib));
    REQUIRE(es);
    const Entry* link = find(*es, "lib/libdemo.so");
    REQUIRE(link);
    CHECK(link->type == EntryType::symlink);
    CHECK(link->link_target == "libdemo.so.1.2.0");
    const Entry* so = find(*es, "lib/libdemo.so.1.2.0");
    REQUIRE(so);
    CHECK(so->type == EntryType::file);
    CHECK(so->mode == 0755);
    const Entry* dir = find(*es, "share/demolib/empty");
    REQUIRE(dir);
    CHECK(dir->type == EntryType::directory);
    CHECK(find(*es, "info/index.json"));

    auto info = list_package(fixture("valid", kLib), Part::info);
    REQUIRE(info);
    CHECK(std::all_of(info->begin(), info->end(), [](const Entry& e) { return e.path.rfind("info/", 0) == 0; }));
    auto payload = list_package(fixture("valid", kLib), Part::payload);
    REQUIRE(payload);
    CHECK(payload->size() == 5);
}

TEST_CASE("read: list a .conda", "[read]") {
    auto es = list_package(fixture("valid", kTool));
    REQUIRE(es);
    CHECK(find(*es, "bin/demo-tool"));
    CHECK(find(*es, "info/paths.json"));
    CHECK(find(*es, "bin/demo-tool")->mode == 0755);
    auto payload = list_package(fixture("valid", kTool), Part::payload);
    REQUIRE(payload);
    CHECK(payload->size() == 2);
}

TEST_CASE("read: metadata of both formats", "[read]") {
    auto lib = read_package_metadata(fixture("valid", kLib));
    REQUIRE(lib);
    CHECK(lib->index.name == "demolib");
    CHECK(lib->index.version.str() == "1.2.0");
    REQUIRE(lib->paths);
    CHECK(lib->paths->paths.size() == 5);

    auto tool = read_package_metadata(fixture("valid", kTool));
    REQUIRE(tool);
    CHECK(tool->index.name == "demo-tool");
    CHECK(tool->index.depends == std::vector<std::string>{"demolib >=1.2,<2"});
    REQUIRE(tool->paths);
    CHECK(tool->paths->paths[0].prefix_placeholder.size() == 80);

    auto readme = read_package_member(fixture("valid", kTool), "share/demo-tool/README.txt");
    REQUIRE(readme);
    CHECK(*readme == "demo tool readme\n");
    auto missing = read_package_member(fixture("valid", kTool), "info/nope");
    REQUIRE_FALSE(missing);
    CHECK(missing.error().str().find("no member 'info/nope'") != std::string::npos);
}

TEST_CASE("read: extract both formats", "[read]") {
    sf::fs::TempDir tmp("sf-test-read");
    auto out = tmp.path() / "lib";
    REQUIRE(extract_package(fixture("valid", kLib), out));
    CHECK(stdfs::is_symlink(out / "lib/libdemo.so"));
    CHECK(stdfs::read_symlink(out / "lib/libdemo.so") == "libdemo.so.1.2.0");
    CHECK(stdfs::is_directory(out / "share/demolib/empty"));
    CHECK(sf::test::slurp(out / "include/demo.h") == "#pragma once\nint demo(void);\n");
    struct stat st{};
    REQUIRE(::stat((out / "lib/libdemo.so.1.2.0").c_str(), &st) == 0);
    CHECK((st.st_mode & 0777) == 0755);
    CHECK(stdfs::exists(out / "info/index.json"));

    auto out2 = tmp.path() / "tool";
    REQUIRE(extract_package(fixture("valid", kTool), out2));
    CHECK(sf::test::slurp(out2 / "share/demo-tool/README.txt") == "demo tool readme\n");
    CHECK(stdfs::exists(out2 / "info/paths.json"));
    // Nothing but the two results: the temp directories were renamed away.
    CHECK(names_in(tmp.path()) == std::vector<std::string>{"lib", "tool"});

    auto again = extract_package(fixture("valid", kTool), out2);
    REQUIRE_FALSE(again);
    CHECK(again.error().str().find("already exists") != std::string::npos);
}

TEST_CASE("read: unsafe members are refused and leave nothing behind", "[read]") {
    expect_extract_fails(fixture("unsafe-member", kLib), "unsafe member: member path '../evil.txt' contains '..'");
    auto bad = sf::test::data_dir() / "archive";
    expect_extract_fails(bad / "symlink-escape-1.0-0.tar.bz2",
                         "unsafe member: symlink 'lib/evil' -> '../../etc/passwd' points outside the package");
    expect_extract_fails(bad / "symlink-absolute-1.0-0.tar.bz2",
                         "unsafe member: symlink 'lib/evil' -> '/etc/passwd' points outside the package");
    expect_extract_fails(bad / "absolute-member-1.0-0.tar.bz2", "unsafe member: absolute member path '/tmp/evil.txt'");
    expect_extract_fails(bad / "through-symlink-1.0-0.tar.bz2",
                         "member 'lib/dir/x.txt' would be written through a symlink");
}

TEST_CASE("read: a write that fails while extracting is the job's failure, not the package's", "[read]") {
    sf::fs::TempDir tmp("sf-test-read");
    auto r = [&] {
        sf::test::FileSizeLimit limit(4);  // every file of the package is longer
        return extract_package(fixture("valid", kLib), tmp.path() / "out");
    }();
    REQUIRE_FALSE(r);
    INFO(r.error().str());
    CHECK(r.error().kind == sf::ErrorKind::runtime);  // exit 1: the disk, not the input
    CHECK(r.error().str().find("File too large") != std::string::npos);
    CHECK(r.error().str().find(kLib.substr(kLib.find('/') + 1)) != std::string::npos);
    CHECK(names_in(tmp.path()).empty());
    // An unsafe member stays the package's fault (exit 2).
    auto unsafe = extract_package(fixture("unsafe-member", kLib), tmp.path() / "out");
    REQUIRE_FALSE(unsafe);
    CHECK(unsafe.error().kind == sf::ErrorKind::input);
}

TEST_CASE("read: truncated archives are detected", "[read]") {
    sf::fs::TempDir tmp("sf-test-read");
    for (const auto& rel : {kLib, kTool}) {
        std::string data = sf::test::slurp(fixture("valid", rel));
        REQUIRE(data.size() > 200);
        auto p = tmp.path() / stdfs::path(rel).filename();
        write_bytes(p, data.substr(0, data.size() * 2 / 3));
        auto ls = list_package(p);
        INFO(rel);
        REQUIRE_FALSE(ls);
        CHECK(ls.error().str().find(p.string()) == 0);
        auto md = read_package_metadata(p);
        auto ex = extract_package(p, tmp.path() / "out");
        REQUIRE_FALSE(ex);
        CHECK(ex.error().str().find("corrupt") != std::string::npos);
        CHECK_FALSE(stdfs::exists(tmp.path() / "out"));
        stdfs::remove(p);
    }
}

TEST_CASE("read: a corrupted zstd frame is detected", "[read]") {
    std::string data = sf::test::slurp(fixture("valid", kTool));
    // The pkg tarball is the first zstd frame (magic 28 b5 2f fd); damage its middle.
    auto magic = data.find("\x28\xb5\x2f\xfd");
    REQUIRE(magic != std::string::npos);
    for (size_t i = magic + 20; i < magic + 60; ++i) data[i] = static_cast<char>(data[i] ^ 0x5a);
    sf::fs::TempDir tmp("sf-test-read");
    auto p = tmp.path() / "demo-tool-0.1.0-0.conda";
    write_bytes(p, data);
    auto ex = extract_package(p, tmp.path() / "out");
    REQUIRE_FALSE(ex);
    INFO(ex.error().str());
    CHECK(ex.error().str().find(p.string() + ": pkg-demo-tool-0.1.0-0.tar.zst") == 0);
    CHECK(names_in(tmp.path()) == std::vector<std::string>{"demo-tool-0.1.0-0.conda"});
}

TEST_CASE("read: a .conda with the wrong layout is refused", "[read]") {
    auto r = list_package(fixture("bad-conda-layout", kTool));
    REQUIRE_FALSE(r);
    CHECK(r.error().str().find("metadata.json does not say conda_pkg_format_version 2") != std::string::npos);
}

TEST_CASE("read: a .conda renamed apart from its inner tarballs is refused, as conda refuses it", "[read]") {
    sf::fs::TempDir tmp("sf-test-read");
    const stdfs::path renamed = tmp.path() / "demo-tool-0.1.0-1.conda";  // holds info-demo-tool-0.1.0-0.tar.zst
    stdfs::copy_file(fixture("valid", kTool), renamed);
    for (auto part : {Part::info, Part::payload, Part::all}) {
        auto r = list_package(renamed, part);
        REQUIRE_FALSE(r);
        CHECK(r.error().kind == sf::ErrorKind::input);
        CHECK(r.error().message.find(renamed.string() + ": '") == 0);
        CHECK(r.error().message.find("' does not match the file name (conda reads ") != std::string::npos);
        CHECK(r.error().hint == "the file was renamed; its contents are demo-tool-0.1.0-0.conda");
    }
    CHECK_FALSE(read_package_metadata(renamed));
    expect_extract_fails(renamed, "does not match the file name");
    // The same bytes under their own name are fine.
    stdfs::rename(renamed, tmp.path() / "demo-tool-0.1.0-0.conda");
    CHECK(list_package(tmp.path() / "demo-tool-0.1.0-0.conda"));
}

TEST_CASE("read: member path and symlink rules", "[read]") {
    CHECK(*safe_member_path("./lib/x") == "lib/x");
    CHECK(*safe_member_path("lib//x/") == "lib/x");
    CHECK_FALSE(safe_member_path("../x"));
    CHECK_FALSE(safe_member_path("a/../../x"));
    CHECK_FALSE(safe_member_path("/abs"));
    CHECK_FALSE(safe_member_path(""));
    CHECK_FALSE(safe_member_path("./"));
    CHECK(symlink_stays_inside("lib/libfoo.so", "libfoo.so.1"));
    CHECK(symlink_stays_inside("lib/python/x", "../../bin/y"));
    CHECK_FALSE(symlink_stays_inside("lib/python/x", "../../../y"));
    CHECK_FALSE(symlink_stays_inside("x", "../y"));
    CHECK_FALSE(symlink_stays_inside("lib/x", "/usr/lib/y"));
    CHECK_FALSE(symlink_stays_inside("lib/x", "d/../.."));
    CHECK_FALSE(symlink_stays_inside("lib/x", ""));
}
