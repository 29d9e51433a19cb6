#include <catch2/catch.hpp>

#include "feedstock/ci_job.hpp"
#include "testutil.hpp"
#include "util/fs.hpp"

using namespace sf;
using namespace sf::feedstock;

TEST_CASE("config_name follows conda-smithy") {
    SECTION("sorted keys, target_platform left out") {
        CHECK(config_name("linux-64", {{"target_platform", "linux-64"},
                                       {"cuda_compiler_version", "None"},
                                       {"blas_impl", "generic"}}) ==
              "linux_64_blas_implgenericcuda_compiler_versionNone");
    }
    SECTION("'*' and ' ' become '_'") {
        CHECK(config_name("osx-arm64", {{"python", "3.10.* *_cpython"}}) == "osx_arm64_python3.10.____cpython");
    }
    SECTION("a single job has just the platform") { CHECK(config_name("osx-64", {}) == "osx_64_"); }
    SECTION("characters unsafe in file names are replaced") {
        CHECK(config_name("linux-64", {{"docker_image", "quay.io/x:1"}}) == "linux_64_docker_imagequay.io_x_1");
    }
}

TEST_CASE("short_config_name shortens at 49 characters with a hash") {
    std::string n48(48, 'a');
    CHECK(short_config_name(n48) == n48);
    std::string n49 = "linux_64_blas_implgenericcuda_compiler_version12.6";
    REQUIRE(n49.size() >= 49);
    std::string s = short_config_name(n49);
    CHECK(s.size() == 47);
    CHECK(s.substr(0, 35) == n49.substr(0, 35));
    CHECK(s.substr(35, 2) == "_h");
    CHECK(short_config_name(n49 + "x") != s);
    CHECK(short_config_name(n49) == s);  // deterministic
}

TEST_CASE("file_stem keeps full names unless the done-marker gets too long") {
    std::string mid(200, 'k');
    CHECK(file_stem(mid) == mid);
    std::string lng(230, 'k');
    CHECK(file_stem(lng) == short_config_name(lng));
}

TEST_CASE("job_yaml quotes what YAML would not read back as a string, and reads back") {
    CiJob j;
    j.name = "linux_64_flavourx";
    j.platform = "linux-64";
    j.split = {{"flavour", "x"}};
    j.keys = {{"cuda_compiler_version", {"None", "12.6"}},
              {"github_actions_labels", {"cirun-gpu"}},
              {"ci_timeout_minutes", {"900"}},
              {"megabuild", {"true"}},
              {"note", {"it's"}},
              {"numpy", {"2.0", "2.1"}},
              {"python", {"3.12.* *_cpython", "3.13.* *_cp313"}},
              {"target_platform", {"linux-64"}}};
    j.zip_keys = {{"python", "numpy"}};
    std::string y = job_yaml(j);
    CHECK(y.find("- '12.6'\n") != std::string::npos);
    CHECK(y.find("- None\n") != std::string::npos);
    CHECK(y.find("- 'true'\n") != std::string::npos);
    CHECK(y.find("- 'it''s'\n") != std::string::npos);
    CHECK(y.find("- '3.12.* *_cpython'\n") != std::string::npos);
    CHECK(y.find("zip_keys:\n- - python\n  - numpy\n") != std::string::npos);
    CHECK(job_yaml(j) == y);

    fs::TempDir tmp("sf-job");
    auto p = tmp.path() / (j.name + ".yaml");
    REQUIRE(fs::write_file_atomic(p, y));
    auto back = read_job_file(p);
    REQUIRE(back);
    CHECK(back->name == j.name);
    CHECK(back->platform == "linux-64");
    CHECK(back->runner == "cirun-gpu");
    CHECK(back->timeout_minutes == 900);
    CHECK(back->zip_keys == j.zip_keys);
    REQUIRE(back->values("python"));
    CHECK(*back->values("python") == std::vector<std::string>{"3.12.* *_cpython", "3.13.* *_cp313"});
    CHECK(*back->values("note") == std::vector<std::string>{"it's"});
}

TEST_CASE("read_job_file: defaults and bad files") {
    fs::TempDir tmp("sf-job");
    SECTION("no runner key: the platform's default runner and timeout") {
        auto p = tmp.path() / "osx_arm64_.yaml";
        REQUIRE(fs::write_file_atomic(p, "target_platform:\n- osx-arm64\n"));
        auto j = read_job_file(p);
        REQUIRE(j);
        CHECK(j->runner == "macos-14");
        CHECK(j->timeout_minutes == kDefaultTimeoutMinutes);
    }
    SECTION("malformed YAML names the line") {
        auto p = tmp.path() / "bad.yaml";
        REQUIRE(fs::write_file_atomic(p, "target_platform:\n- linux-64\npython: [3.12\n"));
        auto j = read_job_file(p);
        REQUIRE(!j);
        CHECK(j.error().loc.file == p.string());
        CHECK(j.error().loc.line >= 3);
    }
    SECTION("no target_platform") {
        auto p = tmp.path() / "x.yaml";
        REQUIRE(fs::write_file_atomic(p, "python:\n- '3.12'\n"));
        auto j = read_job_file(p);
        REQUIRE(!j);
        CHECK(j.error().message.find("target_platform") != std::string::npos);
    }
    SECTION("no target_platform in a noarch feedstock's file: its name gives the platform (jax)") {
        auto p = tmp.path() / "linux_64_.yaml";
        REQUIRE(fs::write_file_atomic(p, "channel_sources:\n- conda-forge\npython_min:\n- '3.10'\n"));
        auto j = read_job_file(p);
        REQUIRE(j);
        CHECK(j->platform == "linux-64");
        auto q = tmp.path() / "noarch_64_.yaml";
        REQUIRE(fs::write_file_atomic(q, "python_min:\n- '3.10'\n"));
        CHECK(!read_job_file(q));
    }
    SECTION("a timeout that is not a number") {
        auto p = tmp.path() / "x.yaml";
        REQUIRE(fs::write_file_atomic(p, "target_platform: [linux-64]\nci_timeout_minutes: [soon]\n"));
        CHECK(!read_job_file(p));
    }
}

TEST_CASE("job_files lists *.yaml sorted, and fails on a missing dir") {
    fs::TempDir tmp("sf-job");
    REQUIRE(fs::write_file_atomic(tmp.path() / "b.yaml", "x"));
    REQUIRE(fs::write_file_atomic(tmp.path() / "a.yaml", "x"));
    REQUIRE(fs::write_file_atomic(tmp.path() / "README.md", "x"));
    auto f = job_files(tmp.path());
    REQUIRE(f);
    REQUIRE(f->size() == 2);
    CHECK(f->at(0).filename() == "a.yaml");
    auto missing = job_files(tmp.path() / "nope");
    REQUIRE(!missing);
    CHECK(missing.error().str().find("variants directory does not exist") != std::string::npos);
}
