// archive/zip_read: a zip unpacks whole, or not at all when a member is unsafe.
#include <catch2/catch.hpp>

#include "archive/write.hpp"
#include "archive/zip_read.hpp"
#include "testutil.hpp"

using namespace sf;
namespace stdfs = std::filesystem;

namespace {

stdfs::path make_zip(const stdfs::path& p, const std::vector<std::pair<std::string, std::string>>& members) {
    auto out = archive::OutputFile::create(p);
    REQUIRE(out);
    archive::ZipWriter zip(**out, 315532800);
    for (const auto& [name, data] : members) REQUIRE(zip.add(name, data));
    REQUIRE(zip.finish());
    REQUIRE((*out)->commit());
    return p;
}

}  // namespace

TEST_CASE("extract_zip: members land under the destination") {
    fs::TempDir tmp;
    auto z = make_zip(tmp.path() / "a.zip", {{"libtorch/lib/libx.so", "elf"}, {"libtorch/build-version", "1\n"}});
    REQUIRE(archive::extract_zip(z, tmp.path() / "out"));
    CHECK(test::slurp(tmp.path() / "out/libtorch/lib/libx.so") == "elf");
    CHECK(test::slurp(tmp.path() / "out/libtorch/build-version") == "1\n");
}

TEST_CASE("extract_zip: a member leaving the tree is refused and nothing appears") {
    fs::TempDir tmp;
    auto z = make_zip(tmp.path() / "evil.zip", {{"ok.txt", "x"}, {"../escaped.txt", "y"}});
    auto r = archive::extract_zip(z, tmp.path() / "out");
    REQUIRE(!r);
    CHECK(r.error().message.rfind((tmp.path() / "evil.zip").string() + ": ", 0) == 0);
    CHECK(!stdfs::exists(tmp.path() / "out"));
    CHECK(!stdfs::exists(tmp.path() / "escaped.txt"));
}

TEST_CASE("extract_zip: not a zip, or a destination already there, is an error naming the file") {
    fs::TempDir tmp;
    REQUIRE(fs::write_file_atomic(tmp.path() / "not.zip", "plain text"));
    auto r = archive::extract_zip(tmp.path() / "not.zip", tmp.path() / "out");
    REQUIRE(!r);
    CHECK(r.error().message.find("not.zip: ") != std::string::npos);
    auto z = make_zip(tmp.path() / "a.zip", {{"x", "1"}});
    stdfs::create_directory(tmp.path() / "there");
    auto again = archive::extract_zip(z, tmp.path() / "there");
    REQUIRE(!again);
    CHECK(again.error().message.find("already exists") != std::string::npos);
}
