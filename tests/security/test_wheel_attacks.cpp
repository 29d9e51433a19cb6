// Hostile wheels given to `splitforge check`: member names with "..", an
// absolute path, a duplicate, a symlink leading out, a deflate bomb, and a
// RECORD naming paths outside the wheel. Each is refused (or reported as a
// finding) with one line naming the wheel; nothing is written outside and
// no extraction temp dir is left behind. `check --consumer` runs a libtorch
// archive's CMake code only in a scratch HOME/TMPDIR, removed afterwards.
#include <catch2/catch.hpp>

#include <cstring>

#include "testproc.hpp"
#include "archive/write.hpp"
#include "craft.hpp"
#include "process/process.hpp"
#include "testutil.hpp"
#include "util/fs.hpp"
#include "util/strings.hpp"

using namespace sf::test::craft;

namespace {

const std::string kWheel = "torch-2.0.0-cp312-cp312-linux_x86_64.whl";
const std::string kInfo = "torch-2.0.0.dist-info/";

struct WheelMember {
    std::string name, data;
    unsigned mode = 0644;
};

// A wheel in `dir`; a member with mode 0604 becomes a symlink (its data the
// target): ZipWriter writes regular files only, so its external attributes
// are patched afterwards.
stdfs::path make_wheel(const stdfs::path& dir, std::vector<WheelMember> members) {
    stdfs::create_directories(dir);
    members.insert(members.begin(), {{kInfo + "METADATA", "Name: torch\nVersion: 2.0.0\n"},
                                     {kInfo + "WHEEL", "Wheel-Version: 1.0\nTag: cp312-cp312-linux_x86_64\n"}});
    const stdfs::path p = dir / kWheel;
    auto out = sf::archive::OutputFile::create(p);
    REQUIRE(out);
    sf::archive::ZipWriter zip(**out, 315532800, 1);
    for (const auto& m : members) {
        if (m.mode == 0) {  // 256 MiB of zeros, deflated to ~256 KiB
            auto produce = [](sf::archive::ByteSink& sink) -> sf::Result<void> {
                std::string block(1 << 20, '\0');
                for (int i = 0; i < 320; ++i)
                    if (auto ok = sink.write(block.data(), block.size()); !ok) return ok;
                return {};
            };
            REQUIRE(zip.add_streamed(m.name, std::uint64_t{320} << 20, produce, 0644, sf::archive::ZipMethod::deflate));
        } else {
            REQUIRE(zip.add(m.name, m.data, m.mode));
        }
    }
    REQUIRE(zip.finish());
    REQUIRE((*out)->commit());
    std::string bytes = sf::test::slurp(p);
    const std::string from("\x00\x00\x84\x81", 4), to("\x00\x00\xff\xa1", 4);  // 0100604 -> 0120777, << 16
    for (auto at = bytes.find(from); at != std::string::npos; at = bytes.find(from, at + 4)) bytes.replace(at, 4, to);
    REQUIRE(sf::fs::write_file_atomic(p, bytes));
    return p;
}

struct Run {
    int rc = -1;
    std::string err, out;
};

Run check(const stdfs::path& wheel) {
    sf::process::Command c{{sf::test::binary().string(), "check", wheel.filename().string()}, wheel.parent_path(),
                           sf::process::current_env(), {}, {}, {}};
    auto r = sf::process::capture(c);
    REQUIRE(r);
    return {r->exit_code, r->err, r->out};
}

using sf::test::last_line;

}  // namespace

TEST_CASE("security: hostile wheel members are refused by check, nothing lands outside", "[security][check]") {
    sf::fs::TempDir tmp("sf-sec-wheel");
    const stdfs::path dir = tmp.path() / "w", outside = tmp.path() / "outside";
    stdfs::create_directories(outside);
    std::string abs = (outside / "ABS").string();
    struct Case {
        std::string what;
        std::vector<WheelMember> members;
        std::string message;
    };
    const std::vector<Case> cases = {
        {"a member with ..", {{"torch/../../outside/DOTDOT", "x"}}, "contains '..'"},
        {"an absolute member", {{abs, "x"}}, "absolute member path '" + abs + "'"},
        {"a duplicate member", {{"torch/a.py", "1"}, {"torch/a.py", "2"}}, "'torch/a.py' appears twice"},
        {"an absolute symlink", {{"torch/ln", "/etc", 0604}, {"torch/ln/x", "y"}}, "points outside the archive"},
        {"a relative symlink above the wheel", {{"torch/ln", "../../outside", 0604}}, "points outside the archive"},
        {"a deflate bomb", {{"torch/zeros.bin", "", 0}}, "would expand to more than 256 MiB"},
    };
    for (const auto& c : cases) {
        DYNAMIC_SECTION(c.what) {
            auto r = check(make_wheel(dir, c.members));
            INFO(r.err);
            CHECK(r.rc == 2);
            const std::string line = last_line(r.err);
            CHECK(sf::str::starts_with(line, "splitforge: error: " + kWheel + ": "));
            CHECK(line.find(c.message) != std::string::npos);
        }
    }
    CHECK(scan(outside).empty());
    for (const auto& e : stdfs::directory_iterator(dir)) CHECK(e.path().filename() == kWheel);
}

TEST_CASE("security: a wheel's RECORD naming paths outside it is a finding, never read", "[security][check]") {
    sf::fs::TempDir tmp("sf-sec-wheel");
    const std::string passwd = (tmp.path() / "secret").string();
    REQUIRE(sf::fs::write_file_atomic(passwd, "secret"));
    auto r = check(make_wheel(tmp.path() / "w", {{kInfo + "RECORD", "../../secret,sha256=x,6\n" + passwd + ",sha256=x,6\n"}}));
    INFO(r.err);
    INFO(r.out);
    CHECK(r.rc == 1);
    const std::string all = r.out + r.err;
    CHECK(all.find(kInfo + "RECORD:1: ../../secret is listed but not in the wheel") != std::string::npos);
    CHECK(all.find(kInfo + "RECORD:2: " + passwd + " is listed but not in the wheel") != std::string::npos);
}

// --consumer runs the archive's CMake code: with HOME and TMPDIR in a scratch
// dir of splitforge's own temp dir, LD_LIBRARY_PATH unset, and the scratch
// removed afterwards. A fake cmake first on PATH records what it was given.
TEST_CASE("security: check --consumer runs in a scratch HOME and TMPDIR that is removed after", "[security][check]") {
    sf::fs::TempDir tmp("sf-sec-wheel");
    const stdfs::path bin = tmp.path() / "bin", tmpdir = tmp.path() / "tmp", seen = tmp.path() / "seen";
    stdfs::create_directories(bin);
    stdfs::create_directories(tmpdir);
    REQUIRE(sf::fs::write_file_atomic(bin / "cmake", "#!/bin/sh\n"
                                                     "echo \"HOME=$HOME TMPDIR=$TMPDIR LD=${LD_LIBRARY_PATH-unset}\" >> '" +
                                                         seen.string() + "'\n"
                                                         "touch \"$HOME/home-mark\" \"$TMPDIR/tmp-mark\"\n"
                                                         "echo no torch here >&2\nexit 1\n"));
    stdfs::permissions(bin / "cmake", stdfs::perms::owner_all);
    const std::string zip_name = "libtorch-shared-with-deps-2.0.0+cpu.zip";
    {
        auto out = sf::archive::OutputFile::create(tmp.path() / zip_name);
        REQUIRE(out);
        sf::archive::ZipWriter zip(**out, 315532800);
        for (const char* m : {"libtorch/lib/libtorch.so", "libtorch/share/cmake/Torch/TorchConfig.cmake",
                              "libtorch/build-version", "libtorch/build-hash"})
            REQUIRE(zip.add(m, "x\n"));
        REQUIRE(zip.finish());
        REQUIRE((*out)->commit());
    }
    auto env = sf::process::current_env();
    env["PATH"] = bin.string() + ":" + env["PATH"];
    env["TMPDIR"] = tmpdir.string();
    env["LD_LIBRARY_PATH"] = "/nonexistent";
    sf::process::Command c{{sf::test::binary().string(), "check", "--consumer", zip_name}, tmp.path(), env, {}, {}, {}};
    auto r = sf::process::capture(c);
    REQUIRE(r);
    INFO(r->err);
    INFO(r->out);
    CHECK(r->exit_code == 1);
    CHECK((r->out + r->err).find("find_package(Torch) failed: no torch here") != std::string::npos);
    const std::string line = sf::test::slurp(seen);
    INFO(line);
    const auto home = line.substr(5, line.find(' ') - 5);
    CHECK(sf::str::starts_with(home, tmpdir.string() + "/"));
    CHECK(line.find("TMPDIR=" + home + " ") != std::string::npos);
    CHECK(line.find("LD=unset") != std::string::npos);
    CHECK_FALSE(stdfs::exists(home));
    CHECK(stdfs::is_empty(tmpdir));
}
