// conda-build's packaging keys through `splitforge build`: the prefix keys,
// build/no_link, link scripts (packaged as conda-build's create_post_scripts
// names them, run by the installer as conda's run_script), always_include_files,
// and the refusals of what the build does not honour.
#include <catch2/catch.hpp>

#include <filesystem>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "archive/read.hpp"
#include "process/process.hpp"
#include "testproc.hpp"
#include "testutil.hpp"
#include "util/fs.hpp"
#include "util/strings.hpp"

using namespace sf;
namespace stdfs = std::filesystem;

namespace {

using test::sf_run;

std::string recipe(const std::string& name) { return (test::data_dir() / "engine" / name).string(); }

stdfs::path package(const stdfs::path& out, const std::string& name) {
    for (const auto& e : stdfs::directory_iterator(out / "linux-64"))
        if (str::starts_with(e.path().filename().string(), name + "-1.0.0-")) return e.path();
    FAIL("no package " << name << " in " << out.string());
    return {};
}

std::string member(const stdfs::path& pkg, const std::string& name) {
    auto m = archive::read_package_member(pkg, name);
    INFO(pkg.string() << " " << name << ": " << (m ? "" : m.error().str()));
    REQUIRE(m);
    return *m;
}

bool has_member(const stdfs::path& pkg, const std::string& name) {
    return static_cast<bool>(archive::read_package_member(pkg, name));
}

const nlohmann::json* path_entry(const nlohmann::json& paths, const std::string& p) {
    for (const auto& e : paths.at("paths"))
        if (e.at("_path") == p) return &e;
    return nullptr;
}

}  // namespace

TEST_CASE("build: prefix keys, no_link and a post-link script the test env runs", "[engine]") {
    fs::TempDir tmp("sf-pfx");
    const stdfs::path out = tmp.path() / "out";
    auto r = sf_run({"build", recipe("pfx_keys"), "--output-folder", out.string(), "-q"});
    INFO(r.err);
    REQUIRE(r.exit_code == 0);  // its test checks that post-link ran with conda's variables
    const auto pkg = package(out, "sf-pfx-keys");
    // has_prefix_files: only etc/a.cfg of the text files; detect_binary false: no binary one.
    const std::string hp = member(pkg, "info/has_prefix");
    CHECK(str::split_lines(std::string(str::trim(hp))).size() == 1);
    CHECK(hp.find(" text etc/a.cfg") != std::string::npos);
    auto paths = nlohmann::json::parse(member(pkg, "info/paths.json"));
    REQUIRE(path_entry(paths, "etc/b.cfg"));
    CHECK_FALSE(path_entry(paths, "etc/b.cfg")->contains("prefix_placeholder"));
    CHECK_FALSE(path_entry(paths, "share/blob.bin")->contains("prefix_placeholder"));
    CHECK(path_entry(paths, "etc/a.cfg")->at("file_mode") == "text");
    CHECK(path_entry(paths, "share/nolink.txt")->value("no_link", false));
    CHECK(member(pkg, "info/no_link") == "share/nolink.txt\n");
    CHECK(nlohmann::json::parse(member(pkg, "info/index.json")).at("track_features") == "sf_pfx_feature");
    CHECK(member(pkg, "bin/.sf-pfx-keys-post-link.sh").find("post-link-ran") != std::string::npos);
    CHECK(member(pkg, "bin/.sf-pfx-keys-pre-link.sh").find("pre-link-ran") != std::string::npos);
}

TEST_CASE("build: outputs' link scripts and always_include_files", "[engine]") {
    fs::TempDir tmp("sf-pfx");
    const stdfs::path out = tmp.path() / "out";
    auto r = sf_run({"build", recipe("pfx_outputs"), "--output-folder", out.string(), "-q"});
    INFO(r.err);
    REQUIRE(r.exit_code == 0);
    const auto lib = package(out, "sf-pfx-lib"), tool = package(out, "sf-pfx-tool");
    CHECK(member(lib, "bin/.sf-pfx-lib-post-link.sh") == "echo custom\n");  // build/post-link: custom-post
    CHECK(member(tool, "bin/.sf-pfx-tool-post-link.sh") == "echo tool\n");  // <name>-post-link.sh
    CHECK(member(lib, "lib/libtop.txt") == "top\n");  // the top-level build's, always included
    CHECK_FALSE(has_member(tool, "lib/libtop.txt"));
    CHECK(member(tool, "share/sf-pfx-tool.txt") == "sf-pfx-tool\n");
}

TEST_CASE("build: a failing post-link script fails the test env's install", "[engine]") {
    fs::TempDir tmp("sf-pfx");
    auto r = sf_run({"build", recipe("pfx_postlink_fail"), "--output-folder", (tmp.path() / "out").string(), "-q"});
    INFO(r.err);
    CHECK(r.exit_code != 0);
    CHECK(r.err.find("post-link script failed for package sf-pfx-postlink-fail-1.0.0") != std::string::npos);
    CHECK(r.err.find("exit code 3") != std::string::npos);
}

TEST_CASE("build: keys the build does not honour are refused at their line", "[engine]") {
    fs::TempDir tmp("sf-pfx");
    SECTION("meta.yaml build/merge_build_host: true") {
        CHECK(sf_run({"render", recipe("pfx_merge")}).exit_code == 0);
        auto r = sf_run({"build", recipe("pfx_merge"), "--output-folder", (tmp.path() / "out").string(), "-q"});
        INFO(r.err);
        CHECK(r.exit_code != 0);
        CHECK(r.err.find("meta.yaml:6: sf-pfx-merge: build/merge_build_host: true is not supported") !=
              std::string::npos);
    }
    SECTION("recipe.yaml build.always_copy_files") {
        CHECK(sf_run({"render", recipe("pfx_v1_keys")}).exit_code == 0);
        auto r = sf_run({"build", recipe("pfx_v1_keys"), "--output-folder", (tmp.path() / "out").string(), "-q"});
        INFO(r.err);
        CHECK(r.exit_code != 0);
        CHECK(r.err.find("recipe.yaml:11:3: build.always_copy_files is not supported") != std::string::npos);
    }
}
