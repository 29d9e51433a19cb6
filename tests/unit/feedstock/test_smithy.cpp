// conda-smithy's rerender pieces: conda-forge.yml targets, migration files
// and the CFEP-9 variant algebra, PyYAML's scalar quoting, and
// `rerender --check` / `--platform` on a real feedstock. The whole of it is
// checked file for file by the rerender-real CTest tests.
#include <catch2/catch.hpp>

#include "feedstock/forge_config.hpp"
#include "feedstock/migrations.hpp"
#include "feedstock/rerender.hpp"
#include "feedstock/smithy.hpp"
#include "testutil.hpp"
#include "util/fs.hpp"
#include "util/strings.hpp"

using namespace sf;
using namespace sf::feedstock;
namespace stdfs = std::filesystem;

namespace {

using Values = std::vector<std::string>;

Migration migration(std::map<std::string, Values> lists, std::vector<Values> zip = {}) {
    Migration m;
    m.file = "m.yaml";
    m.spec.lists = std::move(lists);
    m.spec.zip_keys = std::move(zip);
    return m;
}

void write(const stdfs::path& p, const std::string& text) {
    stdfs::create_directories(p.parent_path());
    REQUIRE(fs::write_file_atomic(p, text));
}

stdfs::path pytorch_case(const std::string& name) {
    return test::data_dir() / "feedstock/rerender-pytorch/cases" / name;
}

}  // namespace

TEST_CASE("smithy: conda-forge.yml targets follow build_platform and the providers") {
    fs::TempDir tmp("sf-forge");
    write(tmp.path() / "conda-forge.yml",
          "build_platform:\n  linux_aarch64: linux_64\n  osx_arm64: osx_64\n"
          "provider:\n  linux_ppc64le: default\n  win: azure\n"
          "noarch_platforms: [linux_64, win_64]\n"
          "docker:\n  fallback_image: quay.io/x/y\n"
          "conda_build:\n  error_overlinking: true\n  pkg_format: '2'\n");
    auto cfg = read_forge_config(tmp.path());
    REQUIRE(cfg);
    // conda_build: what conda-forge-ci-setup hands to conda-build's .condarc.
    CHECK(cfg->conda_build == std::map<std::string, std::string>{{"error_overlinking", "true"}, {"pkg_format", "2"}});
    std::map<std::string, ForgeTarget> by_name;
    for (const auto& t : cfg->targets()) by_name[t.name] = t;
    // linux_64's provider covers linux_aarch64 built on it; ppc64le has its
    // own (default: github_actions); osx_arm64 is built on osx_64 (azure).
    REQUIRE(by_name.count("linux_64"));
    REQUIRE(by_name.count("linux_aarch64"));
    CHECK(by_name["linux_aarch64"].build_platform == "linux_64");
    CHECK(by_name["linux_aarch64"].subdir() == "linux-aarch64");
    CHECK(by_name["linux_aarch64"].build_subdir() == "linux-64");
    CHECK(by_name["linux_ppc64le"].providers == Values{"github_actions"});
    CHECK(by_name["osx_arm64"].providers == Values{"azure"});
    CHECK(by_name["win_64"].providers == Values{"azure"});  // provider.win covers win_64
    CHECK(by_name["win_64"].keep_noarch);
    CHECK(!by_name["linux_aarch64"].keep_noarch);
    CHECK(!by_name.count("linux_s390x"));  // no provider for itself or its build platform
    CHECK(cfg->docker_fallback_image == "quay.io/x/y");
}

TEST_CASE("smithy: conda-forge.yml errors name the file and line") {
    fs::TempDir tmp("sf-forge");
    write(tmp.path() / "conda-forge.yml", "provider: [a, b]\n");
    auto cfg = read_forge_config(tmp.path());
    REQUIRE(!cfg);
    CHECK(cfg.error().str() == (tmp.path() / "conda-forge.yml").string() + ":1: provider must be a mapping");
}

TEST_CASE("smithy: variant_add takes the higher version per position and moves zip partners along") {
    AlgebraSpec pinning;
    pinning.lists = {{"python", {"3.10", "3.11"}}, {"numpy", {"1.22", "1.23"}}, {"zlib", {"1.2"}}};
    pinning.zip_keys = {{"python", "numpy"}};
    Migration m = migration({{"python", {"3.12", "3.9", "3.13"}}, {"numpy", {"2.0", "1.21", "2.1"}}, {"zlib", {"1.3"}}},
                            {{"python", "numpy"}});
    m.primary_key = {"python"};
    auto out = variant_add(pinning, m);
    REQUIRE(out);
    CHECK(out->lists["python"] == Values{"3.12", "3.11", "3.13"});
    // The partners are picked by position in left+right, as conda-smithy's
    // variant_add does: not realigned with the merged primary key.
    CHECK(out->lists["numpy"] == Values{"1.23", "2.0", "2.1"});
    CHECK(out->lists["zlib"] == Values{"1.3"});
    CHECK(out->zip_keys == std::vector<Values>{{"numpy", "python"}});
}

TEST_CASE("smithy: key_add appends the primary key with its partners and keeps the order") {
    AlgebraSpec pinning;
    pinning.lists = {{"python", {"3.10.* *_cpython", "3.11.* *_cpython"}}, {"is_freethreading", {"false", "false"}}};
    pinning.zip_keys = {{"python", "is_freethreading"}};
    Migration m = migration({{"python", {"3.14.* *_cp314t"}}, {"is_freethreading", {"true"}}});
    m.operation = "key_add";
    m.primary_key = {"python"};
    auto out = variant_add(pinning, m);
    REQUIRE(out);
    CHECK(out->lists["python"] == Values{"3.10.* *_cpython", "3.11.* *_cpython", "3.14.* *_cp314t"});
    CHECK(out->lists["is_freethreading"] == Values{"false", "false", "true"});
    // Adding what is there changes nothing.
    auto again = variant_add(*out, m);
    REQUIRE(again);
    CHECK(again->lists == out->lists);
}

TEST_CASE("smithy: key_remove drops one value and its zip partners") {
    AlgebraSpec pinning;
    pinning.lists = {{"python", {"3.9", "3.10", "3.11"}}, {"numpy", {"1.21", "1.22", "1.23"}}};
    pinning.zip_keys = {{"python", "numpy"}};
    Migration m = migration({{"python", {"3.9"}}});
    m.operation = "key_remove";
    m.primary_key = {"python"};
    auto out = variant_add(pinning, m);
    REQUIRE(out);
    CHECK(out->lists["python"] == Values{"3.10", "3.11"});
    CHECK(out->lists["numpy"] == Values{"1.22", "1.23"});
}

TEST_CASE("smithy: an unknown migration operation is an error naming the file") {
    Migration m = migration({{"python", {"3.9"}}});
    m.operation = "key_rename";
    auto out = variant_add(AlgebraSpec{}, m);
    REQUIRE(!out);
    CHECK(out.error().str() == "m.yaml: unknown migration operation 'key_rename' (conda-smithy knows key_add and key_remove)");
}

TEST_CASE("smithy: migrations apply in timestamp order") {
    AlgebraSpec base;
    base.lists = {{"libfoo", {"1"}}};
    Migration later = migration({{"libfoo", {"3"}}});
    later.migrator_ts = 20;
    Migration earlier = migration({{"libfoo", {"2"}}, {"libbar", {"9"}}});
    earlier.migrator_ts = 10;
    auto out = apply_migrations(base, {later, earlier});
    REQUIRE(out);
    CHECK(out->lists["libfoo"] == Values{"3"});
    CHECK(out->lists["libbar"] == Values{"9"});
}

TEST_CASE("smithy: the pinning's copy of a migration wins when name timestamp and number agree") {
    fs::TempDir tmp("sf-mig");
    auto local = tmp.path() / "fs/.ci_support/migrations";
    auto cfp = tmp.path() / "pin/share/conda-forge/migrations";
    write(tmp.path() / "pin/conda_build_config.yaml", "zlib: ['1']\n");
    write(local / "same.yaml", "migrator_ts: 1\n__migrator: {migration_number: 2}\nzlib: ['2']\n");
    write(cfp / "same.yaml", "migrator_ts: 1\n__migrator: {migration_number: 2}\nzlib: ['3']\n");
    write(local / "bumped.yaml", "migrator_ts: 2\n__migrator: {migration_number: 1}\nzlib: ['2']\n");
    write(cfp / "bumped.yaml", "migrator_ts: 2\n__migrator: {migration_number: 2}\nzlib: ['3']\n");
    write(local / "over.yaml", "migrator_ts: 3\nzlib: ['2']\n");
    write(local / "mine.yaml", "migrator_ts: 4\n__migrator: {use_local: true}\nzlib: ['2']\n");
    write(local / "no_ts.yaml", "zlib: ['2']\n");
    auto files = migration_files(tmp.path() / "fs", tmp.path() / "pin/conda_build_config.yaml");
    REQUIRE(files);
    std::vector<std::string> got;
    for (const auto& f : *files) got.push_back(stdfs::relative(f, tmp.path()).string());
    std::sort(got.begin(), got.end());
    CHECK(got == Values{"fs/.ci_support/migrations/bumped.yaml", "fs/.ci_support/migrations/mine.yaml",
                        "fs/.ci_support/migrations/no_ts.yaml", "pin/share/conda-forge/migrations/same.yaml"});
}

TEST_CASE("smithy: scalars are quoted where PyYAML would read another type") {
    for (const char* s : {"2.17", "11.0", "15", "yes", "no", "on", "null", "~", "", "1.5e+3", "0x1f", "2025-01-02",
                          "*_cpython", "- x", "a: b", "a #b", "'x"})
        CHECK(yaml_scalar(s).front() == '\'');
    for (const char* s : {"1.14.6", "3.12.* *_cpython", "conda-forge main", "x86_64-apple-darwin13.4.0", "2025.*",
                          "quay.io/condaforge/linux-anvil-x86_64:alma9", "None", "1e5"})
        CHECK(yaml_scalar(s) == s);
    CHECK(yaml_scalar("true") == "true");
    CHECK(yaml_scalar("true", false) == "'true'");
    CHECK(yaml_scalar("it's") == "it's");
    CHECK(yaml_scalar("'a'") == "'''a'''");
}

TEST_CASE("smithy: --check names the keys that differ and --platform leaves other platforms alone") {
    fs::TempDir tmp("sf-smithy");
    auto src = pytorch_case("pytorch-cpu-v2.13.0");
    auto fs_dir = tmp.path() / "pytorch-cpu-feedstock";
    stdfs::copy(src / "feedstock", fs_dir, stdfs::copy_options::recursive);
    RerenderOptions o;
    o.recipe_dir = fs_dir;
    o.exclusive_files = {src / "pinning/conda_build_config.yaml"};
    auto first = rerender(o, RerenderMode::write);
    REQUIRE(first);
    CHECK(first->feedstock);
    CHECK(first->files.size() == 16);
    CHECK(first->warnings.size() == 1);  // arm_variant_type in a selector, not defined for linux-64
    for (const auto& f : first->files)
        CHECK(test::slurp(fs_dir / ".ci_support" / f) == test::slurp(src / "expected/.ci_support" / f));
    CHECK(stdfs::exists(fs_dir / ".ci_support/migrations/python314.yaml"));  // migrations are inputs: kept

    auto one = fs_dir / ".ci_support/osx_arm64_channel_targetsconda-forge_mainis_rcFalse.yaml";
    std::string text = test::slurp(one);
    REQUIRE(fs::write_file_atomic(one, str::replace_all(text, "- '20260526'", "- '20250512'")));
    auto check = rerender(o, RerenderMode::check);
    REQUIRE(check);
    CHECK(!check->up_to_date());
    CHECK(check->stale == Values{one.filename().string()});
    CHECK(check->stale_keys[one.filename().string()] == Values{"libabseil"});

    // A stale file of osx-arm64: rerendering linux-64 only neither fixes nor removes it.
    write(fs_dir / ".ci_support/osx_arm64_old.yaml", "x: [1]\n");
    o.platforms = {"linux-64"};
    auto lin = rerender(o, RerenderMode::write);
    REQUIRE(lin);
    CHECK(lin->files.size() == 6);
    CHECK(lin->removed.empty());
    CHECK(stdfs::exists(fs_dir / ".ci_support/osx_arm64_old.yaml"));
    o.platforms.clear();
    auto all = rerender(o, RerenderMode::write);
    REQUIRE(all);
    CHECK(all->removed == Values{"osx_arm64_old.yaml"});
    CHECK(test::slurp(one) == text);
}

TEST_CASE("smithy: a committed .ci_support symlink is refused, nothing written or removed through it") {
    fs::TempDir tmp("sf-smithy");
    auto src = pytorch_case("pytorch-cpu-v2.13.0");
    auto fs_dir = tmp.path() / "pytorch-cpu-feedstock", outside = tmp.path() / "outside";
    stdfs::copy(src / "feedstock", fs_dir, stdfs::copy_options::recursive);
    stdfs::rename(fs_dir / ".ci_support", outside);
    write(outside / "linux_64_stale.yaml", "x: [1]\n");  // a stale file rerender would remove
    stdfs::create_directory_symlink("../outside", fs_dir / ".ci_support");
    auto names = [&] {
        std::vector<std::string> out;
        for (const auto& e : stdfs::recursive_directory_iterator(outside)) out.push_back(e.path().string() + test::slurp(e.path()));
        std::sort(out.begin(), out.end());
        return out;
    };
    auto before = names();
    RerenderOptions o;
    o.recipe_dir = fs_dir;
    o.exclusive_files = {src / "pinning/conda_build_config.yaml"};
    auto r = rerender(o, RerenderMode::write);
    REQUIRE_FALSE(r);
    CHECK(r.error().loc.str() == (fs_dir / ".ci_support").string());
    CHECK(r.error().message == "is a symlink; refusing to write through it");
    CHECK(names() == before);
}

namespace {

// A feedstock of one recipe under tmp, rerendered with a small pinning.
Result<RerenderResult> rerender_mini(const stdfs::path& dir, const std::string& meta, const std::string& cbc,
                                     const std::string& forge_yml) {
    write(dir / "conda-forge.yml", forge_yml);
    write(dir / "recipe/meta.yaml", meta);
    if (!cbc.empty()) write(dir / "recipe/conda_build_config.yaml", cbc);
    write(dir / "pinning.yaml",
          "python:\n  - 3.12.* *_cpython\n  - 3.13.* *_cp313\nopenssl:\n  - '3.5'\n"
          "channel_sources:\n  - conda-forge\nchannel_targets:\n  - conda-forge main\n");
    RerenderOptions o;
    o.recipe_dir = dir;
    o.exclusive_files = {dir / "pinning.yaml"};
    return rerender(o, RerenderMode::write);
}

}  // namespace

// tokenizers-feedstock (177f67a4) and protobuf-feedstock (d7117fb8): conda-smithy
// renders with Config(platform, arch), so build_platform is the target and a
// `[build_platform != target_platform]` line is never selected, not even for
// osx_arm64, which CI builds on osx_64.
TEST_CASE("smithy: a v0 recipe renders as a native build of each target") {
    fs::TempDir tmp("sf-smithy");
    auto dir = tmp.path() / "mini-feedstock";
    auto r = rerender_mini(dir,
                           "package:\n  name: mini\n  version: '1.0'\nrequirements:\n  build:\n"
                           "    - openssl  # [build_platform != target_platform]\n  host:\n    - python\n"
                           "    - openssl  # [linux]\n  run:\n    - python\n",
                           "", "build_platform:\n  osx_arm64: osx_64\n");
    REQUIRE(r);
    CHECK(r->files.size() == 8);
    for (const auto& f : r->files) {
        INFO(f);
        bool has = test::slurp(dir / ".ci_support" / f).find("\nopenssl:") != std::string::npos;
        CHECK(has == str::starts_with(f, "linux_64"));
    }
}

// pyyaml-feedstock (96ccf42b): `noarch: python  # [use_noarch]` with use_noarch
// from the recipe's conda_build_config.yaml. conda-smithy moves that file away
// and passes the merged spec, so MetaData's first parse (which decides the
// noarch Python reduction) sees conda-build's defaults only: use_noarch is
// unknown there, nothing is reduced, and both jobs list every Python.
TEST_CASE("smithy: the noarch reduction is decided without the spec's keys") {
    fs::TempDir tmp("sf-smithy");
    auto dir = tmp.path() / "mini-feedstock";
    auto r = rerender_mini(dir,
                           "package:\n  name: mini\n  version: '1.0'\nbuild:\n  noarch: python  # [use_noarch]\n"
                           "requirements:\n  host:\n    - python\n  run:\n    - python\n",
                           "use_noarch:\n  - true  # [linux64]\n  - false\n", "{}\n");
    REQUIRE(r);
    CHECK(r->files == Values{"linux_64_python3.12.____cpythonuse_noarchfalse.yaml",
                             "linux_64_python3.12.____cpythonuse_noarchtrue.yaml",
                             "linux_64_python3.13.____cp313use_noarchfalse.yaml",
                             "linux_64_python3.13.____cp313use_noarchtrue.yaml", "osx_64_python3.12.____cpython.yaml",
                             "osx_64_python3.13.____cp313.yaml", "win_64_python3.12.____cpython.yaml",
                             "win_64_python3.13.____cp313.yaml"});
}

// conda-build-feedstock (ab2712a0): a noarch: python recipe keeps the newest
// python only (distribute_variants), and conda-smithy's loop keys come from
// those variants: python has one value and names no file.
TEST_CASE("smithy: a noarch recipe's reduced python is no loop key") {
    fs::TempDir tmp("sf-smithy");
    auto dir = tmp.path() / "mini-feedstock";
    auto r = rerender_mini(dir,
                           "package:\n  name: mini\n  version: '1.0'\nbuild:\n  noarch: python\nrequirements:\n"
                           "  host:\n    - python {{ python_min }}.*\n    - pip\n  run:\n    - python\n",
                           "python_min:\n  - 3.11\n  - 3.10\n", "{}\n");
    REQUIRE(r);
    CHECK(r->files == Values{"linux_64_python_min3.10.yaml", "linux_64_python_min3.11.yaml"});
    CHECK(test::slurp(dir / ".ci_support/linux_64_python_min3.10.yaml").find("python:\n- 3.13.* *_cp313\n") !=
          std::string::npos);
}
