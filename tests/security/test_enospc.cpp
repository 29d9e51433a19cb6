// A full disk says "No space left on device", never "Input/output error" or
// a generic message: each command runs with its target on a 1 MiB tmpfs,
// mounted in a user and mount namespace of its own (unshare -Urm), so no root
// is needed and nothing outside the test sees the mount.
#include <catch2/catch.hpp>

#include <fstream>
#include <random>

#include "testproc.hpp"
#include "craft.hpp"
#include "process/process.hpp"
#include "testutil.hpp"
#include "util/strings.hpp"

using namespace sf::test::craft;

namespace {

struct Run {
    int rc = -1;
    std::string err;
};

// `argv` with `mount_point` on a fresh 1 MiB tmpfs.
Run run_on_full_disk(const stdfs::path& mount_point, const std::vector<std::string>& argv) {
    sf::process::Command c;
    c.argv = {"unshare", "-Urm", "sh", "-c", "mount -t tmpfs -o size=1m none \"$1\" && shift && exec \"$@\"", "sh",
              mount_point.string()};
    c.argv.insert(c.argv.end(), argv.begin(), argv.end());
    c.env = sf::process::current_env();
    auto r = sf::process::capture(c);
    REQUIRE(r);
    return {r->exit_code, r->err};
}

// Can this machine mount a tmpfs in a user namespace?
bool can_mount_tmpfs() {
    sf::process::Command c;
    c.argv = {"unshare", "-Urm", "sh", "-c", "mount -t tmpfs -o size=64k none /tmp"};
    c.env = sf::process::current_env();
    auto r = sf::process::capture(c);
    return r && r->exit_code == 0;
}

std::string random_bytes(std::size_t n) {
    std::mt19937_64 rng(7);
    std::string s(n, '\0');
    for (auto& c : s) c = static_cast<char>(rng());
    return s;
}

using sf::test::last_line;

void expect_enospc(const Run& r) {
    INFO(r.err);
    CHECK(r.rc != 0);
    std::string line = last_line(r.err);
    CHECK(line.find("No space left on device (free some space on that disk, or write somewhere else)") !=
          std::string::npos);
    CHECK(line.find("Input/output error") == std::string::npos);
}

}  // namespace

TEST_CASE("security: a full disk says No space left on device", "[security][enospc]") {
    if (!can_mount_tmpfs()) sf::test::skip("cannot mount a tmpfs in a user namespace (unshare -Urm)");
    sf::fs::TempDir tmp("sf-sec-enospc");
    const std::string bin = sf::test::binary().string();
    const stdfs::path full = tmp.path() / "full", payload = tmp.path() / "payload";
    stdfs::create_directories(full);
    stdfs::create_directories(payload / "share");
    // 3 MB that do not compress: more than the 1 MiB disk holds.
    std::ofstream(payload / "share/big.bin", std::ios::binary) << random_bytes(3 << 20);
    const std::vector<std::string> pkg_args = {bin, "package", payload.string(), "--name", "big", "--version", "1.0",
                                               "--build", "0", "--compression-level", "1"};

    SECTION("package: the archive writer") {
        auto args = pkg_args;
        args.insert(args.end(), {"-o", full.string()});
        expect_enospc(run_on_full_disk(full, args));
    }
    SECTION("package --channel: the copy into the channel") {
        auto args = pkg_args;
        args.insert(args.end(), {"-o", (tmp.path() / "out").string(), "--channel", (full / "channel").string()});
        expect_enospc(run_on_full_disk(full, args));
    }
    SECTION("install: extraction into the package cache, and the copy into the prefix") {
        auto args = pkg_args;
        args.insert(args.end(), {"-o", (tmp.path() / "out").string(), "--channel", (tmp.path() / "channel").string()});
        sf::process::Command c{args, tmp.path(), sf::process::current_env(), {}, {}, {}};
        auto made = sf::process::capture(c);
        REQUIRE(made);
        REQUIRE(made->exit_code == 0);
        const std::vector<std::string> install = {bin, "install", "-q", "-c", (tmp.path() / "channel").string(),
                                                  "--platform", "linux-64", "big"};
        auto to_cache = install;
        to_cache.insert(to_cache.end(), {"-p", (tmp.path() / "prefix").string(), "--pkgs-dir", (full / "pkgs").string()});
        expect_enospc(run_on_full_disk(full, to_cache));
        auto to_prefix = install;
        to_prefix.insert(to_prefix.end(),
                         {"-p", (full / "prefix").string(), "--pkgs-dir", (tmp.path() / "pkgs").string(), "--copy"});
        expect_enospc(run_on_full_disk(full, to_prefix));
    }
    SECTION("build: source archive extraction into the work dir") {
        const stdfs::path recipe = tmp.path() / "recipe";
        stdfs::create_directories(recipe);
        write_tarball(tmp.path() / "src.tar.gz",
                      {{"src-1.0/big.bin", 'f', random_bytes(3 << 20)}}, Filter::gzip);
        std::ofstream(recipe / "meta.yaml") << "package:\n  name: sf-full\n  version: 1.0.0\nsource:\n  url: "
                                            << (tmp.path() / "src.tar.gz").string()
                                            << "\nbuild:\n  number: 0\n  script: echo\nabout:\n  license: MIT\n";
        expect_enospc(run_on_full_disk(full, {bin, "build", recipe.string(), "--output-folder",
                                              (tmp.path() / "out").string(), "--work-dir", (full / "w").string(),
                                              "-q"}));
    }
}
