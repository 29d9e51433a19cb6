// `splitforge check` and `splitforge libtorch-archive` through the binary:
// exit codes (0 ok, 1 a check failed, 2 bad input), one FAIL line per
// problem, --json's one document.
#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>

#include "archive/write.hpp"
#include "process/process.hpp"
#include "testutil.hpp"

using namespace sf;
namespace stdfs = std::filesystem;

namespace {

process::Outcome sf_cmd(std::vector<std::string> args) {
    args.insert(args.begin(), test::binary().string());
    auto r = process::capture({args, {}, process::current_env()});
    REQUIRE(r);
    return *r;
}

// A conda package holding lib/libx.so linked with `flags`.
stdfs::path package_with_lib(const stdfs::path& dir, const std::string& name, const std::vector<std::string>& flags) {
    auto gxx = process::find_executable("g++", process::current_env()["PATH"]);
    if (!gxx) test::skip("g++ not found");
    stdfs::path payload = dir / ("payload-" + name);
    stdfs::create_directories(payload / "lib");
    REQUIRE(fs::write_file_atomic(dir / "x.cpp", "int x() { return 1; }\n"));
    std::vector<std::string> argv = {gxx->string(), "-shared", "-fPIC", "-o", (payload / "lib/libx.so").string(),
                                     (dir / "x.cpp").string()};
    argv.insert(argv.end(), flags.begin(), flags.end());
    auto c = process::capture({argv, {}, process::current_env()});
    REQUIRE(c);
    REQUIRE(c->exit_code == 0);
    auto r = sf_cmd({"package", payload.string(), "--name", name, "--version", "1.0", "--build", "0", "-o",
                 (dir / "pk").string(), "--json"});
    INFO(r.err);
    REQUIRE(r.exit_code == 0);
    return dir / "pk" / (name + "-1.0-0.conda");
}

}  // namespace

TEST_CASE("check CLI: a good package passes, an absolute RPATH fails with one line, --json names the member") {
    fs::TempDir tmp;
    auto good = package_with_lib(tmp.path(), "good", {"-Wl,-rpath,$ORIGIN"});
    auto bad = package_with_lib(tmp.path(), "bad", {"-Wl,-rpath,/opt/buildhost/lib"});
    REQUIRE(stdfs::exists(good));
    auto ok = sf_cmd({"check", good.string()});
    INFO(ok.out << ok.err);
    CHECK(ok.exit_code == 0);
    CHECK(ok.out.find("ok   good-1.0-0.conda (conda, 1 ELF files; links, abi)") != std::string::npos);
    CHECK(ok.out.find("conda:      1 checked,   1 passed") != std::string::npos);

    auto r = sf_cmd({"check", good.string(), bad.string()});
    INFO(r.out << r.err);
    CHECK(r.exit_code == 1);
    CHECK(r.out.find("FAIL bad-1.0-0.conda: lib/libx.so: absolute RPATH entry '/opt/buildhost/lib' (a build or host "
                     "path; use $ORIGIN)\n") != std::string::npos);
    CHECK(r.err.find("1 passed, 1 failed") != std::string::npos);

    auto j = sf_cmd({"check", bad.string(), "--json"});
    CHECK(j.exit_code == 1);
    auto doc = nlohmann::json::parse(j.out);
    CHECK(doc["ok"] == false);
    CHECK(doc["artifacts"][0]["findings"][0]["member"] == "lib/libx.so");
    CHECK(doc["summary"][0]["kind"] == "conda");
    CHECK(doc["summary"][0]["passed"] == 0);
}

TEST_CASE("check CLI: a libtorch zip without its layout names each missing file") {
    fs::TempDir tmp;
    stdfs::path zip = tmp.path() / "libtorch-cxx11-abi-shared-with-deps-0.3.0+cpu.zip";
    auto out = archive::OutputFile::create(zip);
    REQUIRE(out);
    archive::ZipWriter w(**out, 315532800);
    REQUIRE(w.add("libtorch/include/torch/torch.h", "#pragma once\n"));
    REQUIRE(w.finish());
    REQUIRE((*out)->commit());
    auto r = sf_cmd({"check", zip.string(), "--no-consumer"});
    CHECK(r.exit_code == 1);
    for (const char* m : {"libtorch/lib/libtorch.so", "libtorch/share/cmake/Torch/TorchConfig.cmake",
                          "libtorch/build-version", "libtorch/build-hash"})
        CHECK(r.out.find("FAIL " + zip.filename().string() + ": " + m + ": missing from the libtorch archive") !=
              std::string::npos);
}

TEST_CASE("check and libtorch-archive CLI: input errors exit 2, a package that is not libtorch too") {
    fs::TempDir tmp;
    CHECK(sf_cmd({"check", (tmp.path() / "missing.conda").string()}).exit_code == 2);
    REQUIRE(fs::write_file_atomic(tmp.path() / "notes.txt", "x"));
    auto kind = sf_cmd({"check", (tmp.path() / "notes.txt").string()});
    CHECK(kind.exit_code == 2);
    CHECK(kind.err.find("not a binary splitforge checks") != std::string::npos);
    CHECK(sf_cmd({"check", "--no-such-option"}).exit_code == 2);
    CHECK(sf_cmd({"libtorch-archive", "--no-such-option"}).exit_code == 2);
    CHECK(sf_cmd({"libtorch-archive", (tmp.path() / "missing.conda").string()}).exit_code == 2);
    auto pkg = package_with_lib(tmp.path(), "notlibtorch", {});
    auto r = sf_cmd({"libtorch-archive", pkg.string(), "-o", (tmp.path() / "out").string()});
    CHECK(r.exit_code == 2);  // as `check` and `wheel` treat a wrong input
    CHECK(r.err.find("notlibtorch-1.0-0.conda: is a 'notlibtorch' package, not libtorch") != std::string::npos);
    CHECK(!stdfs::exists(tmp.path() / "out"));
}

// An archive handed to `check` is untrusted input: by default nothing of it
// runs. Its TorchConfig.cmake writes outside the scratch dir only when the
// user asks for the consumer program (--consumer).
TEST_CASE("check CLI: a libtorch archive's CMake code runs only with --consumer") {
    INFO("cmake not on PATH (scripts/deps.sh installs it)");
    REQUIRE(process::find_executable("cmake", process::current_env()["PATH"]));
    fs::TempDir tmp;
    const stdfs::path victim = tmp.path() / "outside" / "pwned";
    stdfs::path zip = tmp.path() / "libtorch-cxx11-abi-shared-with-deps-0.3.0+cpu.zip";
    auto out = archive::OutputFile::create(zip);
    REQUIRE(out);
    archive::ZipWriter w(**out, 315532800);
    REQUIRE(w.add("libtorch/build-hash", "0\n"));
    REQUIRE(w.add("libtorch/build-version", "0.3.0+cpu\n"));
    REQUIRE(w.add("libtorch/lib/libtorch.so", "not an ELF file\n"));
    REQUIRE(w.add("libtorch/share/cmake/Torch/TorchConfig.cmake",
                  "file(WRITE \"" + victim.string() + "\" \"owned\")\nset(TORCH_LIBRARIES torch)\n"));
    REQUIRE(w.finish());
    REQUIRE((*out)->commit());

    auto r = sf_cmd({"check", zip.string()});
    INFO(r.out << r.err);
    CHECK(r.exit_code == 0);
    CHECK(r.out.find("(libtorch, 0 ELF files; links, abi)") != std::string::npos);
    CHECK(r.err.find("consumer program not built (it would run the archive's TorchConfig.cmake and libraries; pass "
                     "--consumer for an archive you trust)") != std::string::npos);
    CHECK(!stdfs::exists(victim));

    auto asked = sf_cmd({"check", "--consumer", zip.string()});
    INFO(asked.out << asked.err);
    CHECK(asked.exit_code == 1);  // the consumer cannot link against a libtorch.so that is no library
    CHECK(stdfs::exists(victim));  // so the first run would have shown a write
}
