// util/fs: read_file, write_file_atomic, copy_file, copy_tree, TempDir, FileLock.
#include <catch2/catch.hpp>

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <optional>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "testutil.hpp"
#include "util/fs.hpp"
#include "util/strings.hpp"

using namespace sf;
namespace stdfs = std::filesystem;

namespace {

// Writes bytes with plain iostreams, independent of the code under test.
void put_raw(const stdfs::path& p, const std::string& data) {
    std::ofstream out(p, std::ios::binary);
    out << data;
    REQUIRE(out.good());
}

std::string get_raw(const stdfs::path& p) {
    std::ifstream in(p, std::ios::binary);
    return std::string(std::istreambuf_iterator<char>(in), {});
}

std::vector<std::string> names_in(const stdfs::path& dir) {
    std::set<std::string> out;
    for (const auto& e : stdfs::directory_iterator(dir)) out.insert(e.path().filename().string());
    return {out.begin(), out.end()};
}

// Whether another open file description can take the lock right now.
bool lock_is_free(const stdfs::path& p) {
    int fd = ::open(p.c_str(), O_RDWR | O_CLOEXEC);
    REQUIRE(fd >= 0);
    bool free = ::flock(fd, LOCK_EX | LOCK_NB) == 0;
    if (free) ::flock(fd, LOCK_UN);
    ::close(fd);
    return free;
}

}  // namespace

TEST_CASE("fs::read_file") {
    fs::TempDir tmp("sf-test-fs");
    SECTION("binary bytes come back exactly: NUL, CR LF, UTF-8, high bytes") {
        const std::string data("a\0b\r\n\xC3\xA9\xFF\x80 end", 13);
        put_raw(tmp.path() / "bin", data);
        auto r = fs::read_file(tmp.path() / "bin");
        REQUIRE(r);
        CHECK(r->size() == data.size());
        CHECK(*r == data);
    }
    SECTION("an empty file is an empty string, not an error") {
        put_raw(tmp.path() / "empty", "");
        auto r = fs::read_file(tmp.path() / "empty");
        REQUIRE(r);
        CHECK(r->empty());
    }
    SECTION("a large file") {
        std::string big(3 * 1024 * 1024 + 17, 'x');
        for (size_t i = 0; i < big.size(); i += 4093) big[i] = static_cast<char>(i % 251);
        put_raw(tmp.path() / "big", big);
        auto r = fs::read_file(tmp.path() / "big");
        REQUIRE(r);
        CHECK(*r == big);
    }
    SECTION("a missing file is an error naming the path, with a hint") {
        const stdfs::path p = tmp.path() / "nope.txt";
        auto r = fs::read_file(p);
        REQUIRE_FALSE(r);
        CHECK(r.error().loc.file == p.string());
        CHECK(r.error().message == "cannot read file");
        CHECK_FALSE(r.error().hint.empty());
        CHECK(r.error().str() == p.string() + ": cannot read file (check that it exists and is readable)");
    }
    SECTION("a path under a regular file is an error") {
        put_raw(tmp.path() / "file", "x");
        CHECK_FALSE(fs::read_file(tmp.path() / "file" / "child"));
    }
}

TEST_CASE("fs::InputFile refuses what is not a regular file, without blocking") {
    fs::TempDir tmp("sf-test-fs");
    auto refused = [](const stdfs::path& p) {
        auto r = fs::read_file(p);  // a FIFO with no writer would block a plain open() forever
        REQUIRE_FALSE(r);
        CHECK(r.error().loc.file == p.string());
        CHECK(r.error().hint == "splitforge reads only plain files");
        return r.error().message;
    };
    SECTION("a FIFO") {
        REQUIRE(::mkfifo((tmp.path() / "fifo").c_str(), 0600) == 0);
        CHECK(refused(tmp.path() / "fifo") == "a FIFO, not a regular file");
        CHECK_FALSE(fs::read_input_file(tmp.path() / "fifo"));
    }
    SECTION("a link to a device") {
        stdfs::create_symlink("/dev/zero", tmp.path() / "zero");
        CHECK(refused(tmp.path() / "zero") == "a character device, not a regular file");
    }
    SECTION("a directory") { CHECK(refused(tmp.path()) == "a directory, not a regular file"); }
    SECTION("a copy from a FIFO") {
        REQUIRE(::mkfifo((tmp.path() / "fifo").c_str(), 0600) == 0);
        auto r = fs::copy_file(tmp.path() / "fifo", tmp.path() / "out");
        REQUIRE_FALSE(r);
        CHECK(r.error().message == "a FIFO, not a regular file");
        CHECK_FALSE(stdfs::exists(tmp.path() / "out"));
    }
    SECTION("a regular file reads with blocking semantics") {
        put_raw(tmp.path() / "f", "abc");
        auto f = fs::InputFile::open(tmp.path() / "f");
        REQUIRE(f);
        CHECK(f->size() == 3);
        CHECK((::fcntl(f->fd(), F_GETFL) & O_NONBLOCK) == 0);
        CHECK((::fcntl(f->fd(), F_GETFD) & FD_CLOEXEC) != 0);
    }
}

TEST_CASE("fs::write_file_atomic") {
    fs::TempDir tmp("sf-test-fs");
    const stdfs::path p = tmp.path() / "out.txt";
    SECTION("creates a file with exactly the bytes, and leaves no temp file") {
        const std::string data("x\0y\r\n\xF0\x9F\x98\x80", 9);
        REQUIRE(fs::write_file_atomic(p, data));
        CHECK(get_raw(p) == data);
        CHECK(names_in(tmp.path()) == std::vector<std::string>{"out.txt"});
    }
    SECTION("empty data makes an empty file") {
        REQUIRE(fs::write_file_atomic(p, ""));
        REQUIRE(stdfs::exists(p));
        CHECK(stdfs::file_size(p) == 0);
    }
    SECTION("overwriting with shorter data truncates") {
        put_raw(p, "a much longer old content");
        REQUIRE(fs::write_file_atomic(p, "new"));
        CHECK(get_raw(p) == "new");
        CHECK(names_in(tmp.path()) == std::vector<std::string>{"out.txt"});
    }
    SECTION("replaces by rename: a reader holding the old file still sees all of it") {
        put_raw(p, "old content");
        std::ifstream reader(p, std::ios::binary);
        REQUIRE(reader);
        REQUIRE(fs::write_file_atomic(p, "new"));
        std::string seen(std::istreambuf_iterator<char>(reader), {});
        CHECK(seen == "old content");
        CHECK(get_raw(p) == "new");
    }
    SECTION("creates missing parent directories") {
        const stdfs::path deep = tmp.path() / "a" / "b" / "c.txt";
        REQUIRE(fs::write_file_atomic(deep, "deep"));
        CHECK(get_raw(deep) == "deep");
    }
    SECTION("the file is readable and writable by its owner") {
        REQUIRE(fs::write_file_atomic(p, "x"));
        auto perms = stdfs::status(p).permissions();
        CHECK((perms & stdfs::perms::owner_read) != stdfs::perms::none);
        CHECK((perms & stdfs::perms::owner_write) != stdfs::perms::none);
    }
    SECTION("a large payload") {
        std::string big(5 * 1024 * 1024, '\0');
        for (size_t i = 0; i < big.size(); ++i) big[i] = static_cast<char>((i * 7) & 0xFF);
        REQUIRE(fs::write_file_atomic(p, big));
        CHECK(get_raw(p) == big);
    }
    SECTION("a directory in the way: rename fails, the directory stays, no temp file is left") {
        stdfs::create_directories(p / "inside");
        auto r = fs::write_file_atomic(p, "data");
        REQUIRE_FALSE(r);
        CHECK(r.error().loc.file == p.string());
        CHECK(str::starts_with(r.error().message, "rename failed: "));
        CHECK(stdfs::is_directory(p / "inside"));
        CHECK(names_in(tmp.path()) == std::vector<std::string>{"out.txt"});
    }
    SECTION("a parent that is a regular file: cannot write, nothing created") {
        put_raw(tmp.path() / "file", "x");
        const stdfs::path bad = tmp.path() / "file" / "child.txt";
        auto r = fs::write_file_atomic(bad, "data");
        REQUIRE_FALSE(r);
        CHECK(r.error().loc.file == bad.string());
        CHECK(str::starts_with(r.error().message, "cannot write: "));
        CHECK(get_raw(tmp.path() / "file") == "x");
        CHECK(names_in(tmp.path()) == std::vector<std::string>{"file"});
    }
    SECTION("concurrent writers: the result is one whole payload, no temp files remain") {
        std::vector<std::string> payloads;
        for (int t = 0; t < 6; ++t) payloads.push_back(std::string(64 * 1024, static_cast<char>('a' + t)));
        std::atomic<int> failures{0};
        std::vector<std::thread> threads;
        for (int t = 0; t < 6; ++t)
            threads.emplace_back([&, t] {
                for (int i = 0; i < 20; ++i)
                    if (!fs::write_file_atomic(p, payloads[t])) ++failures;
            });
        for (auto& th : threads) th.join();
        CHECK(failures == 0);
        const std::string final_content = get_raw(p);
        CHECK(std::find(payloads.begin(), payloads.end(), final_content) != payloads.end());
        CHECK(names_in(tmp.path()) == std::vector<std::string>{"out.txt"});
    }
    SECTION("round trip with read_file") {
        REQUIRE(fs::write_file_atomic(p, "caf\xC3\xA9\n"));
        auto r = fs::read_file(p);
        REQUIRE(r);
        CHECK(*r == "caf\xC3\xA9\n");
    }
}

TEST_CASE("fs::copy_file") {
    fs::TempDir tmp("sf-test-fs");
    const stdfs::path from = tmp.path() / "from.bin", to = tmp.path() / "to.bin";
    std::string data(3 << 20, '\0');
    for (std::size_t i = 0; i < data.size(); ++i) data[i] = static_cast<char>(i * 7 + i / 4096);
    put_raw(from, data);
    stdfs::permissions(from, stdfs::perms::owner_read | stdfs::perms::owner_exec | stdfs::perms::group_read);
    SECTION("bytes and permission bits") {
        REQUIRE(fs::copy_file(from, to));
        CHECK(get_raw(to) == data);
        CHECK(stdfs::status(to).permissions() == stdfs::status(from).permissions());
    }
    SECTION("Overwrite::no refuses an existing file; yes replaces it") {
        put_raw(to, "old");
        auto r = fs::copy_file(from, to, fs::Overwrite::no);
        REQUIRE_FALSE(r);
        CHECK(r.error().str() == to.string() + ": cannot write: File exists");
        REQUIRE(fs::copy_file(from, to, fs::Overwrite::yes));
        CHECK(get_raw(to) == data);
    }
    SECTION("never writes through a symlink, nor onto itself") {
        put_raw(tmp.path() / "victim", "keep");
        stdfs::create_symlink(tmp.path() / "victim", to);
        CHECK_FALSE(fs::copy_file(from, to));
        CHECK(get_raw(tmp.path() / "victim") == "keep");
        auto self = fs::copy_file(from, from);
        REQUIRE_FALSE(self);
        CHECK(self.error().message == "cannot copy a file onto itself");
        CHECK(get_raw(from) == data);
    }
    SECTION("a full disk says so, not 'Input/output error' (std::filesystem::copy_file's word for it)") {
        if (::access("/dev/full", W_OK) != 0) test::skip("no writable /dev/full");
        auto r = fs::copy_file(from, "/dev/full");
        REQUIRE_FALSE(r);
        CHECK(r.error().str() ==
              "/dev/full: write failed: No space left on device (free some space on that disk, or write somewhere else)");
    }
    SECTION("a missing source names the source") {
        auto r = fs::copy_file(tmp.path() / "nope", to);
        REQUIRE_FALSE(r);
        CHECK(r.error().str() ==
              (tmp.path() / "nope").string() + ": cannot read file (check that it exists and is readable)");
    }
}

TEST_CASE("fs::copy_tree") {
    fs::TempDir tmp("sf-test-fs");
    const stdfs::path from = tmp.path() / "from", to = tmp.path() / "to";
    stdfs::create_directories(from / "a/b");
    stdfs::create_directories(from / "empty");
    put_raw(from / "a/b/f.txt", "f");
    put_raw(from / "top.txt", "t");
    stdfs::create_symlink("a/b/f.txt", from / "link");
    stdfs::create_symlink("/nonexistent/target", from / "dangling");
    REQUIRE(fs::copy_tree(from, to));
    CHECK(get_raw(to / "a/b/f.txt") == "f");
    CHECK(get_raw(to / "top.txt") == "t");
    CHECK(stdfs::is_directory(to / "empty"));
    CHECK(stdfs::read_symlink(to / "link") == "a/b/f.txt");
    CHECK(stdfs::read_symlink(to / "dangling") == "/nonexistent/target");
    SECTION("a fifo is refused") {
        REQUIRE(::mkfifo((from / "fifo").c_str(), 0600) == 0);
        auto r = fs::copy_tree(from, tmp.path() / "to2");
        REQUIRE_FALSE(r);
        CHECK(r.error().message == "a FIFO, not a regular file");
    }
}

TEST_CASE("fs::write_hint") {
    CHECK(fs::write_hint(ENOSPC) == "free some space on that disk, or write somewhere else");
    CHECK(fs::write_hint(EDQUOT) == fs::write_hint(ENOSPC));
    CHECK(fs::write_hint(EACCES) == "check that the directory is writable");
    CHECK(fs::write_hint(EROFS) == "check that the directory is writable");
    CHECK(fs::write_hint(EIO).empty());
}

TEST_CASE("fs::TempDir") {
    fs::TempDir outer("sf-test-fs");
    SECTION("makes a fresh directory named <prefix>-XXXXXX under the system temp dir") {
        stdfs::path p;
        {
            fs::TempDir d("sf-unit-prefix");
            p = d.path();
            CHECK(stdfs::is_directory(p));
            CHECK(stdfs::is_empty(p));
            CHECK(p.parent_path() == stdfs::temp_directory_path());
            const std::string name = p.filename().string();
            CHECK(str::starts_with(name, "sf-unit-prefix-"));
            CHECK(name.size() == std::string("sf-unit-prefix-").size() + 6);
        }
        CHECK_FALSE(stdfs::exists(p));
    }
    SECTION("the default prefix is splitforge") {
        fs::TempDir d;
        CHECK(str::starts_with(d.path().filename().string(), "splitforge-"));
    }
    SECTION("under a given parent, created when missing") {
        const stdfs::path parent = outer.path() / "x" / "y";
        fs::TempDir d("kid", parent);
        CHECK(d.path().parent_path() == parent);
        CHECK(stdfs::is_directory(d.path()));
    }
    SECTION("under a parent that is a file: a one-line RuntimeError naming it, not an input Failure") {
        put_raw(outer.path() / "plain", "x");
        for (const stdfs::path& parent : {outer.path() / "plain", outer.path() / "plain" / "below"}) {
            try {
                fs::TempDir d("kid", parent);
                FAIL("no exception");
            } catch (const RuntimeError& e) {
                CHECK(e.error().loc.file == parent.string());
                CHECK(str::starts_with(e.error().message, "cannot create temp dir: "));
                CHECK(e.error().str().find('\n') == std::string::npos);
            }
        }
    }
    SECTION("two with the same prefix are distinct") {
        fs::TempDir a("same", outer.path()), b("same", outer.path());
        CHECK(a.path() != b.path());
        CHECK(stdfs::is_directory(a.path()));
        CHECK(stdfs::is_directory(b.path()));
    }
    SECTION("destruction removes everything inside: files, nested dirs, symlinks, read-only files") {
        stdfs::path p, target = outer.path() / "kept-target";
        put_raw(target, "stays");
        {
            fs::TempDir d("full", outer.path());
            p = d.path();
            stdfs::create_directories(p / "a/b/c");
            put_raw(p / "a/b/c/f.txt", "x");
            put_raw(p / "ro.txt", "x");
            stdfs::permissions(p / "ro.txt", stdfs::perms::owner_read);
            stdfs::create_symlink(target, p / "link");
            stdfs::create_directory_symlink(outer.path(), p / "dirlink");
        }
        CHECK_FALSE(stdfs::exists(p));
        // Symlinks are removed, not followed.
        CHECK(get_raw(target) == "stays");
        CHECK(stdfs::is_directory(outer.path()));
    }
    SECTION("a directory already removed by someone else is no error") {
        stdfs::path p;
        {
            fs::TempDir d("gone", outer.path());
            p = d.path();
            stdfs::remove_all(p);
        }
        CHECK_FALSE(stdfs::exists(p));
    }
    SECTION("release() keeps the directory and returns its path") {
        stdfs::path kept;
        {
            fs::TempDir d("keep", outer.path());
            put_raw(d.path() / "f", "x");
            kept = d.release();
            CHECK(kept == d.path());
        }
        CHECK(stdfs::is_directory(kept));
        CHECK(get_raw(kept / "f") == "x");
        stdfs::remove_all(kept);
    }
    SECTION("a parent that cannot be a directory throws") {
        put_raw(outer.path() / "file", "x");
        CHECK_THROWS(fs::TempDir("x", outer.path() / "file"));
        CHECK_THROWS(fs::TempDir("x", outer.path() / "file" / "sub"));
    }
}

TEST_CASE("fs::FileLock") {
    fs::TempDir tmp("sf-test-fs");
    const stdfs::path lock = tmp.path() / "locks" / "sub" / "x.lock";
    SECTION("creates the lock file and its directories, and holds the lock while alive") {
        {
            fs::FileLock l(lock);
            REQUIRE(stdfs::exists(lock));
            CHECK_FALSE(lock_is_free(lock));
        }
        CHECK(lock_is_free(lock));
        CHECK(stdfs::exists(lock));  // the file stays for the next user
    }
    SECTION("an existing lock file is reused, its content untouched") {
        stdfs::create_directories(lock.parent_path());
        put_raw(lock, "pid 1");
        {
            fs::FileLock l(lock);
            CHECK_FALSE(lock_is_free(lock));
        }
        CHECK(get_raw(lock) == "pid 1");
    }
    SECTION("a second FileLock waits until the first is gone") {
        std::optional<fs::FileLock> first;
        first.emplace(lock);
        std::atomic<bool> acquired{false};
        std::thread waiter([&] {
            fs::FileLock second(lock);
            acquired = true;
        });
        std::this_thread::sleep_for(std::chrono::milliseconds(200));
        CHECK_FALSE(acquired.load());
        first.reset();
        waiter.join();
        CHECK(acquired.load());
        CHECK(lock_is_free(lock));
    }
    SECTION("a lock file that cannot be opened throws a RuntimeError (exit 1) naming it") {
        put_raw(tmp.path() / "file", "x");
        const stdfs::path bad = tmp.path() / "file" / "x.lock";
        try {
            fs::FileLock l(bad);
            FAIL("no exception");
        } catch (const RuntimeError& f) {
            CHECK(f.error().loc.file == bad.string());
            CHECK(str::starts_with(f.error().message, "cannot open lock file: "));
        }
    }
}

TEST_CASE("fs::TempDir under an unwritable parent throws a RuntimeError") {
    if (::geteuid() == 0) test::skip("root writes anywhere");
    fs::TempDir outer("sf-test-fs");
    const stdfs::path ro = outer.path() / "ro";
    stdfs::create_directories(ro);
    stdfs::permissions(ro, stdfs::perms::owner_read | stdfs::perms::owner_exec);
    CHECK_THROWS_AS(fs::TempDir("kid", ro), RuntimeError);
    stdfs::permissions(ro, stdfs::perms::owner_all);
}

TEST_CASE("fs::LockFile") {
    fs::TempDir tmp("sf-test-fs");
    const stdfs::path lock = tmp.path() / "x.lock";
    auto first = fs::LockFile::try_create(lock);
    REQUIRE(first);
    REQUIRE(*first);
    CHECK(stdfs::exists(lock));
    CHECK_FALSE(lock_is_free(lock));
    SECTION("a second holder is refused without waiting") {
        auto second = fs::LockFile::try_create(lock);
        REQUIRE(second);
        CHECK(*second == nullptr);
    }
    SECTION("released: the file is gone, and a file nobody holds can be taken") {
        first->reset();
        CHECK_FALSE(stdfs::exists(lock));
        put_raw(lock, "left by a killed holder");
        auto again = fs::LockFile::try_create(lock);
        REQUIRE(again);
        CHECK(*again != nullptr);
    }
    SECTION("a directory that cannot hold it is an error naming the file") {
        auto bad = fs::LockFile::try_create(tmp.path() / "no/such/dir/x.lock");
        REQUIRE_FALSE(bad);
        CHECK(bad.error().loc.file == (tmp.path() / "no/such/dir/x.lock").string());
    }
}
