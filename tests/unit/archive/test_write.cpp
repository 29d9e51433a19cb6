#include <archive.h>
#include <archive_entry.h>
#include <bzlib.h>
#include <sys/stat.h>
#include <utime.h>
#include <zstd.h>

#include <catch2/catch.hpp>
#include <cstdlib>
#include <fstream>

#include "archive/write.hpp"
#include "testutil.hpp"

using namespace sf;
using namespace sf::archive;
namespace stdfs = std::filesystem;

namespace {

class StringSink : public ByteSink {
public:
    Result<void> write(const void* d, std::size_t n) override {
        data.append(static_cast<const char*>(d), n);
        return {};
    }
    Result<void> finish() override {
        ++finished;
        return {};
    }
    std::string data;
    int finished = 0;
};

std::string pseudo_random(std::size_t n, unsigned seed) {
    std::string s(n, '\0');
    std::uint32_t x = seed * 2654435761u + 1;
    for (auto& c : s) {
        x ^= x << 13;
        x ^= x >> 17;
        x ^= x << 5;
        c = static_cast<char>("abcdefgh\0\1\2\3xyz "[x % 16]);
    }
    return s;
}

std::string zstd_decompress(const std::string& in) {
    ZSTD_DCtx* d = ZSTD_createDCtx();
    std::string out;
    std::vector<char> buf(ZSTD_DStreamOutSize());
    ZSTD_inBuffer ib{in.data(), in.size(), 0};
    while (ib.pos < ib.size) {
        ZSTD_outBuffer ob{buf.data(), buf.size(), 0};
        std::size_t rc = ZSTD_decompressStream(d, &ob, &ib);
        REQUIRE_FALSE(ZSTD_isError(rc));
        out.append(buf.data(), ob.pos);
    }
    ZSTD_freeDCtx(d);
    return out;
}

struct Member {
    std::string name;
    int type;  // AE_IFREG, AE_IFLNK, AE_IFDIR
    unsigned perm;
    std::int64_t mtime, uid, gid;
    std::string uname, gname, link, data;
};

std::vector<Member> read_tar(const std::string& bytes) {
    std::vector<Member> out;
    struct archive* a = archive_read_new();
    archive_read_support_filter_bzip2(a);
    archive_read_support_filter_zstd(a);
    archive_read_support_format_tar(a);
    REQUIRE(archive_read_open_memory(a, bytes.data(), bytes.size()) == ARCHIVE_OK);
    archive_entry* e = nullptr;
    while (archive_read_next_header(a, &e) == ARCHIVE_OK) {
        Member m;
        m.name = archive_entry_pathname(e);
        m.type = static_cast<int>(archive_entry_filetype(e));
        m.perm = archive_entry_perm(e);
        m.mtime = archive_entry_mtime(e);
        m.uid = archive_entry_uid(e);
        m.gid = archive_entry_gid(e);
        m.uname = archive_entry_uname(e) ? archive_entry_uname(e) : "";
        m.gname = archive_entry_gname(e) ? archive_entry_gname(e) : "";
        m.link = archive_entry_symlink(e) ? archive_entry_symlink(e) : "";
        char buf[8192];
        la_ssize_t n;
        while ((n = archive_read_data(a, buf, sizeof buf)) > 0) m.data.append(buf, static_cast<std::size_t>(n));
        out.push_back(m);
    }
    archive_read_free(a);
    return out;
}

std::vector<TarEntry> sample_tree(const stdfs::path& root) {
    stdfs::create_directories(root / "lib");
    stdfs::create_directories(root / "share/empty");
    std::ofstream(root / "lib/libz.so.1", std::ios::binary) << pseudo_random(300000, 7);
    ::chmod((root / "lib/libz.so.1").c_str(), 0755);
    std::ofstream(root / "b.txt") << "bee\n";
    std::ofstream(root / "a.txt") << "ay\n";
    stdfs::create_symlink("libz.so.1", root / "lib/libz.so");
    auto entries = tree_entries(root);
    REQUIRE(entries);
    return *entries;
}

}  // namespace

TEST_CASE("crc32 matches the standard check value") {
    CHECK(crc32(0, "123456789", 9) == 0xCBF43926u);
    CHECK(crc32(0, "", 0) == 0u);
    // Incremental equals one-shot, across the 8-byte fast path.
    std::string s = pseudo_random(1001, 3);
    CHECK(crc32(crc32(0, s.data(), 13), s.data() + 13, s.size() - 13) == crc32(0, s.data(), s.size()));
}

TEST_CASE("compressors round-trip") {
    const std::string input = pseudo_random(3 << 20, 1);
    SECTION("zstd, multi-threaded") {
        StringSink out;
        auto c = compressor(out, {Codec::zstd, 3, 2});
        REQUIRE(c);
        REQUIRE((*c)->write(input.data(), input.size()));
        REQUIRE((*c)->finish());
        CHECK(out.finished == 1);
        CHECK(out.data.size() < input.size());
        CHECK(zstd_decompress(out.data) == input);
    }
    SECTION("zstd bytes do not depend on the number of threads") {
        StringSink one, two;
        auto c1 = compressor(one, {Codec::zstd, 1, 1});
        auto c2 = compressor(two, {Codec::zstd, 1, 2});
        REQUIRE((c1 && c2));
        REQUIRE((*c1)->write(input.data(), input.size()));
        REQUIRE((*c2)->write(input.data(), input.size()));
        REQUIRE((*c1)->finish());
        REQUIRE((*c2)->finish());
        CHECK(one.data == two.data);
    }
    SECTION("bzip2") {
        StringSink out;
        auto c = compressor(out, {Codec::bzip2, 9, 1});
        REQUIRE(c);
        REQUIRE((*c)->write(input.data(), input.size()));
        REQUIRE((*c)->finish());
        std::string back(input.size() + 16, '\0');
        unsigned len = static_cast<unsigned>(back.size());
        REQUIRE(BZ2_bzBuffToBuffDecompress(back.data(), &len, out.data.data(),
                                           static_cast<unsigned>(out.data.size()), 0, 0) == BZ_OK);
        back.resize(len);
        CHECK(back == input);
    }
    SECTION("levels out of range are refused") {
        StringSink out;
        CHECK_FALSE(compressor(out, {Codec::zstd, 23, 1}));
        CHECK_FALSE(compressor(out, {Codec::bzip2, 10, 1}));
    }
}

TEST_CASE("tree_entries lists files, symlinks and empty directories, sorted") {
    fs::TempDir tmp("sf-write");
    auto entries = sample_tree(tmp.path());
    std::vector<std::string> names;
    for (const auto& e : entries) names.push_back(e.name);
    CHECK(names == std::vector<std::string>{"a.txt", "b.txt", "lib/libz.so", "lib/libz.so.1", "share/empty"});
    CHECK(entries[2].kind == EntryKind::symlink);
    CHECK(entries[2].link_target == "libz.so.1");
    CHECK(entries[3].mode == 0755);
    CHECK(entries[4].kind == EntryKind::directory);
    SECTION("top-level exclusions") {
        auto ex = tree_entries(tmp.path(), {"lib", "a.txt"});
        REQUIRE(ex);
        REQUIRE(ex->size() == 2);
        CHECK((*ex)[0].name == "b.txt");
    }
}

TEST_CASE("write_tar is reproducible and normalizes ownership and times") {
    fs::TempDir tmp("sf-write");
    auto entries = sample_tree(tmp.path() / "root");
    TarEntry inline_file;
    inline_file.name = "z/inline.json";
    inline_file.content = "{}";
    entries.push_back(inline_file);

    StringSink first, second;
    auto n1 = write_tar(first, entries, {1234567890}, {Codec::none, 0, 1});
    REQUIRE(n1);
    CHECK(*n1 == first.data.size());
    CHECK(first.data.size() % 10240 == 0);
    CHECK(*n1 <= tar_size_bound(entries));
    ::utime((tmp.path() / "root/a.txt").c_str(), nullptr);  // a new mtime on disk must not matter
    REQUIRE(write_tar(second, entries, {1234567890}, {Codec::none, 0, 1}));
    CHECK(first.data == second.data);

    auto members = read_tar(first.data);
    REQUIRE(members.size() == 6);
    for (const auto& m : members) {
        CHECK(m.mtime == 1234567890);
        CHECK(m.uid == 0);
        CHECK(m.gid == 0);
        CHECK(m.uname.empty());
        CHECK(m.gname.empty());
    }
    CHECK(members[0].name == "a.txt");
    CHECK(members[0].data == "ay\n");
    CHECK(members[2].type == AE_IFLNK);
    CHECK(members[2].link == "libz.so.1");
    CHECK(members[3].perm == 0755);
    CHECK(members[3].data.size() == 300000);
    CHECK(members[4].type == AE_IFDIR);
    CHECK(members[5].data == "{}");

    SECTION("a different mtime gives different bytes") {
        StringSink other;
        REQUIRE(write_tar(other, entries, {1234567891}, {Codec::none, 0, 1}));
        CHECK(other.data != first.data);
    }
    SECTION("compressed tars read back the same") {
        StringSink z;
        REQUIRE(write_tar(z, entries, {1234567890}, {Codec::zstd, 3, 2}));
        CHECK(zstd_decompress(z.data) == first.data);
    }
}

TEST_CASE("write_tar fails cleanly on a missing source file") {
    TarEntry e;
    e.name = "x";
    e.source = "/nonexistent/definitely/not/here";
    StringSink s;
    auto r = write_tar(s, {e}, {0}, {Codec::none, 0, 1});
    REQUIRE_FALSE(r);
    CHECK(r.error().loc.file == e.source.string());
}

TEST_CASE("ZipWriter writes STORED members libarchive can read") {
    fs::TempDir tmp("sf-zip");
    const stdfs::path path = tmp.path() / "x.zip";
    const std::string big = pseudo_random(200000, 9);
    auto zip_with = [&](std::uint64_t bound) {
        auto f = OutputFile::create(path);
        REQUIRE(f);
        ZipWriter z(**f, 1700000000);
        REQUIRE(z.add("metadata.json", R"({"conda_pkg_format_version": 2})"));
        REQUIRE(z.add_streamed("big.bin", bound, [&](ByteSink& s) { return s.write(big.data(), big.size()); }));
        REQUIRE(z.finish());
        REQUIRE((*f)->commit());
        auto bytes = fs::read_file(path);
        REQUIRE(bytes);
        return *bytes;
    };
    for (std::uint64_t bound : {std::uint64_t{1} << 20, std::uint64_t{1} << 33}) {
        INFO("bound " << bound);
        std::string bytes = zip_with(bound);
        CHECK(bytes.substr(0, 4) == std::string("PK\3\4"));
        CHECK(bytes[8] == 0);  // method: stored
        CHECK(bytes[9] == 0);
        struct archive* a = archive_read_new();
        archive_read_support_format_zip(a);
        REQUIRE(archive_read_open_filename(a, path.c_str(), 10240) == ARCHIVE_OK);
        archive_entry* e = nullptr;
        std::vector<std::pair<std::string, std::string>> got;
        while (archive_read_next_header(a, &e) == ARCHIVE_OK) {
            std::string data;
            char buf[8192];
            la_ssize_t n;
            while ((n = archive_read_data(a, buf, sizeof buf)) > 0) data.append(buf, static_cast<std::size_t>(n));
            got.emplace_back(archive_entry_pathname(e), data);
        }
        archive_read_free(a);
        REQUIRE(got.size() == 2);
        CHECK(got[0].first == "metadata.json");
        CHECK(got[1].first == "big.bin");
        CHECK(got[1].second == big);
    }
    SECTION("a temp file that is never committed leaves nothing behind") {
        {
            auto f = OutputFile::create(tmp.path() / "never.zip");
            REQUIRE(f);
            REQUIRE((*f)->write("x", 1));
        }
        for (const auto& e : stdfs::directory_iterator(tmp.path())) CHECK(e.path().filename() == "x.zip");
        CHECK_FALSE(stdfs::exists(tmp.path() / "never.zip"));
    }
}

TEST_CASE("ZipWriter deflates members on request, and add_raw writes a kept deflate stream again") {
    fs::TempDir tmp("sf-zip");
    const std::string text = pseudo_random(1000, 3) + std::string(300000, 'a') + pseudo_random(5000, 4);
    auto read_back = [](const stdfs::path& p, bool seekable) {
        struct archive* a = archive_read_new();
        if (seekable)
            archive_read_support_format_zip_seekable(a);
        else
            archive_read_support_format_zip_streamable(a);
        REQUIRE(archive_read_open_filename(a, p.c_str(), 10240) == ARCHIVE_OK);
        archive_entry* e = nullptr;
        std::vector<std::tuple<std::string, std::string, unsigned>> got;
        while (archive_read_next_header(a, &e) == ARCHIVE_OK) {
            std::string data;
            char buf[8192];
            la_ssize_t n;
            while ((n = archive_read_data(a, buf, sizeof buf)) > 0) data.append(buf, static_cast<std::size_t>(n));
            REQUIRE(n == 0);
            got.emplace_back(archive_entry_pathname(e), data, archive_entry_perm(e));
        }
        archive_read_free(a);
        return got;
    };
    const stdfs::path kept = tmp.path() / "kept.deflate";
    ZipMemberInfo info;
    for (std::uint64_t bound : {std::uint64_t{1} << 20, std::uint64_t{1} << 33}) {
        INFO("bound " << bound);
        const stdfs::path first = tmp.path() / "first.zip", second = tmp.path() / "second.zip";
        {
            auto f = OutputFile::create(first);
            auto copy = OutputFile::create(kept);
            REQUIRE(f);
            REQUIRE(copy);
            ZipWriter z(**f, 1700000000, 1);
            REQUIRE(z.add_streamed("bin/tool", bound, [&](ByteSink& s) { return s.write(text.data(), text.size()); },
                                   0755, ZipMethod::deflate, copy->get()));
            info = z.last();
            REQUIRE(z.add("plain.txt", "stored\n"));
            REQUIRE(z.finish());
            REQUIRE((*f)->commit());
            REQUIRE((*copy)->commit());
        }
        CHECK(info.method == ZipMethod::deflate);
        CHECK(info.size == text.size());
        CHECK(info.csize < text.size() / 4);
        CHECK(info.crc == crc32(0, text.data(), text.size()));
        {
            auto f = OutputFile::create(second);
            REQUIRE(f);
            ZipWriter z(**f, 1700000000);
            auto stream = [&](ByteSink& s) -> Result<void> {
                auto bytes = fs::read_file(kept);
                if (!bytes) return unexpected(bytes.error());
                return s.write(bytes->data(), bytes->size());
            };
            REQUIRE(z.add_raw("again/tool", info, stream, 0755));
            ZipMemberInfo wrong = info;
            wrong.csize += 1;
            CHECK_FALSE(z.add_raw("wrong", wrong, stream));
            REQUIRE(z.finish());
            REQUIRE((*f)->commit());
        }
        for (bool seekable : {true, false}) {
            auto got = read_back(first, seekable);
            REQUIRE(got.size() == 2);
            CHECK(std::get<0>(got[0]) == "bin/tool");
            CHECK(std::get<1>(got[0]) == text);
            CHECK(std::get<1>(got[1]) == "stored\n");
            if (!seekable) continue;  // modes live in the central directory, which a stream reader never sees
            CHECK(std::get<2>(got[0]) == 0755);
            CHECK(std::get<2>(got[1]) == 0644);
        }
        auto again = read_back(second, true);
        REQUIRE(again.size() >= 1);
        CHECK(std::get<0>(again[0]) == "again/tool");
        CHECK(std::get<1>(again[0]) == text);
    }
}
