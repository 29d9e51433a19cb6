// recipe.yaml (v1): rattler-build's hash rules and used variables.
#include <catch2/catch.hpp>

#include <cstdlib>

#include "recipe/v1_recipe.hpp"
#include "render/format.hpp"
#include "render/v1_render.hpp"
#include "testutil.hpp"
#include "util/fs.hpp"
#include "util/hash.hpp"
#include "util/strings.hpp"

using namespace sf;
using namespace sf::render;

TEST_CASE("v1 hash: rattler-build's reference vector (stage1/hash.rs)") {
    nlohmann::json d = {
        {"rust_compiler", "rust"},
        {"build_platform", "osx-64"},
        {"c_compiler", "clang"},
        {"target_platform", "osx-arm64"},
        {"openssl", "3"},
        {"CONDA_BUILD_SYSROOT",
         "/Applications/Xcode_13.2.1.app/Contents/Developer/Platforms/MacOSX.platform/Developer/SDKs/MacOSX11.0.sdk"},
        {"channel_targets", "conda-forge main"},
        {"python", "3.11.* *_cpython"},
        {"c_compiler_version", "14"}};
    CHECK(hash::sha1(v1_hash_input(d)).substr(0, 7) == "507f6e9");
    CHECK(v1_hash_prefix(d, false) == "py311");
}

TEST_CASE("v1 hash input: normalized keys sort as one, typed values stay typed, non-ASCII stays raw") {
    nlohmann::json d = {{"pybind11-abi", 4}, {"is_freethreading", false}, {"k", "caf\xc3\xa9"}, {"a.b", "x"}};
    CHECK(v1_hash_input(d) == "{\"a_b\": \"x\", \"is_freethreading\": false, \"k\": \"caf\xc3\xa9\", \"pybind11_abi\": 4}");
}

TEST_CASE("v1 hash prefix: np before py, perl keeps three parts, noarch python is py") {
    CHECK(v1_hash_prefix({{"python", "3.12.* *_cpython"}, {"numpy", "2.0"}}, false) == "np20py312");
    CHECK(v1_hash_prefix({{"perl", "5.32.1"}}, false) == "pl5321");
    CHECK(v1_hash_prefix({{"python", "3.12"}}, true) == "py");
    CHECK(v1_hash_prefix({{"openssl", "3"}}, false).empty());
}

namespace {

RenderedRecipe render_text(const std::string& text, std::vector<std::pair<std::string, std::string>> overrides = {}) {
    auto r = recipe::parse_v1_recipe(text, "recipe.yaml");
    REQUIRE(r);
    auto sel = variant::select("linux-64", {}, {});
    REQUIRE(sel);
    sel->overrides = std::move(overrides);
    auto rr = render_v1(*r, *sel);
    INFO((rr ? std::string() : rr.error().str()));
    REQUIRE(rr);
    return *rr;
}

}  // namespace

TEST_CASE("v1 used variables: a branch not taken does not count, a free spec does") {
    auto rr = render_text(R"(package:
  name: foo
  version: 1.0
requirements:
  host:
    - if: mpi != "nompi"
      then: libpnetcdf ${{ libpnetcdf }}
    - zlib
)",
                          {{"mpi", "nompi"}, {"libpnetcdf", "1.12"}, {"zlib", "1.3"}, {"unused", "1"}});
    REQUIRE(rr.outputs.size() == 1);
    const auto& used = rr.outputs[0].used;
    CHECK(used.count("mpi") == 1);
    CHECK(used.count("zlib") == 1);
    CHECK(used.count("libpnetcdf") == 0);
    CHECK(used.count("unused") == 0);
    CHECK(used.count("target_platform") == 1);
}

TEST_CASE("v1 build string: string: reads the final build number and the hash") {
    auto rr = render_text(R"(context:
  build_number: 1
package:
  name: foo
  version: 1.0
build:
  number: ${{ build_number | int + 100 }}
  string: x_h${{ hash }}_${{ build_number | int + 100 }}
)");
    REQUIRE(rr.outputs.size() == 1);
    CHECK(rr.outputs[0].build_number == 101);
    CHECK(rr.outputs[0].build_string.substr(0, 3) == "x_h");
    CHECK(rr.outputs[0].build_string.substr(10) == "_201");
}

TEST_CASE("v1 exact pin_subpackage: the pinned output's version and build enter the hash") {
    auto rr = render_text(R"(recipe:
  name: split
  version: 2.0
outputs:
  - package:
      name: liba
  - package:
      name: b
    requirements:
      run:
        - ${{ pin_subpackage('liba', exact=True) }}
)");
    REQUIRE(rr.outputs.size() == 2);
    const auto& a = rr.outputs[0].name == "liba" ? rr.outputs[0] : rr.outputs[1];
    const auto& b = rr.outputs[0].name == "liba" ? rr.outputs[1] : rr.outputs[0];
    CHECK(b.used.at("liba") == "2.0 " + a.build_string);
    CHECK(b.requirements.run.at(0).str() == "liba ==2.0 " + a.build_string);
}

TEST_CASE("v1 staging: an output inheriting a staging output uses its keys") {
    auto rr = render_text(R"(recipe:
  name: split
  version: 2.0
outputs:
  - staging:
      name: cache
    requirements:
      host:
        - libffi
  - package:
      name: liba
    inherit: cache
  - package:
      name: other
)",
                          {{"libffi", "3.4"}});
    REQUIRE(rr.outputs.size() == 2);
    for (const auto& o : rr.outputs) CHECK(o.used.count("libffi") == (o.name == "liba" ? 1u : 0u));
}

TEST_CASE("v1 noarch python: python leaves the hash, target_platform is noarch") {
    auto rr = render_text(R"(package:
  name: foo
  version: 1.0
build:
  noarch: python
requirements:
  host:
    - python
)",
                          {{"python", "3.12"}});
    REQUIRE(rr.outputs.size() == 1);
    CHECK(rr.outputs[0].used.count("python") == 0);
    CHECK(rr.outputs[0].used.at("target_platform") == "noarch");
    CHECK(rr.outputs[0].build_string.substr(0, 3) == "pyh");
}

TEST_CASE("v1 variants: the report names where each key is first read and how staging splits") {
    auto dir = test::data_dir() / "render" / "good" / "v1-staging-split";
    auto r = recipe::load_v1_recipe(dir);
    REQUIRE(r);
    auto sel = variant::select("linux-64", {dir / "linux_64_.yaml"}, {});
    REQUIRE(sel);
    auto rr = render_v1(*r, *sel);
    REQUIRE(rr);
    rr->key_uses = v1_key_uses(*r, *rr);
    std::string report = str::replace_all(variants_report(*rr), test::data_dir().string() + "/", "");
    CHECK(report.find("staging builds split by: mpi\n") != std::string::npos);
    CHECK(report.find("render/good/v1-staging-split/recipe.yaml:26:15  [staging]") != std::string::npos);  // mpi, in the staging's if:
    auto file = test::data_dir() / "render" / "variants-v1-staging-split.txt";
    if (test::update_snapshots()) {
        REQUIRE(fs::write_file_atomic(file, report));
        return;
    }
    CHECK(test::slurp(file) == report);
}

TEST_CASE("v1 used variables: a virtual package in run enters the hash as its spec") {
    auto rr = render_text(R"(package:
  name: foo
  version: 1.0
requirements:
  run:
    - __glibc >=2.28
)");
    REQUIRE(rr.outputs.size() == 1);
    CHECK(rr.outputs[0].used.at("__glibc") == "__glibc >=2.28");
}

TEST_CASE("v1 env: env.get and env.exists see the selection's environment over the process's") {
    auto r = recipe::parse_v1_recipe(R"(package:
  name: foo
  version: ${{ env.get("SF_TEST_V1_VERSION", default="0.1") }}
build:
  skip: env.exists("SF_TEST_V1_SKIP")
)",
                                     "recipe.yaml");
    REQUIRE(r);
    auto sel = variant::select("linux-64", {}, {});
    REQUIRE(sel);
    auto rr = render_v1(*r, *sel);
    REQUIRE(rr);
    REQUIRE(rr->outputs.size() == 1);
    CHECK(rr->outputs[0].version == "0.1");
    sel->extra_environ = {{"SF_TEST_V1_VERSION", "2.0"}};
    rr = render_v1(*r, *sel);
    REQUIRE(rr);
    CHECK(rr->outputs.at(0).version == "2.0");
    sel->extra_environ.emplace_back("SF_TEST_V1_SKIP", "1");
    rr = render_v1(*r, *sel);
    REQUIRE(rr);
    CHECK(rr->outputs.empty());
}

TEST_CASE("v1 used variables: only build and host hold free specs") {
    auto rr = render_text(R"(package:
  name: foo
  version: 1.0
requirements:
  host:
    - zlib
  run:
    - libpng
)",
                          {{"zlib", "1.3"}, {"libpng", "1.6"}});
    REQUIRE(rr.outputs.size() == 1);
    CHECK(rr.outputs[0].used.count("zlib") == 1);
    CHECK(rr.outputs[0].used.count("libpng") == 0);
}

TEST_CASE("v1 build.script: the staging and package scripts reach the engine with their env") {
    auto rr = render_text(R"(recipe:
  name: split
  version: 2.0
outputs:
  - staging:
      name: cache
    build:
      script:
        file: build
        env:
          STAGE: build
          VER: ${{ 1 + 1 }}
  - package:
      name: liba
    inherit: cache
    build:
      script:
        file: build.sh
        env:
          STAGE: liba
  - package:
      name: libb
    build:
      script:
        - echo one
        - if: linux
          then: echo two
  - package:
      name: libc
    build:
      script:
        content: |
          echo c
          echo d
  - package:
      name: libd
    build:
      script: install_d.sh
  - package:
      name: libe
)");
    REQUIRE(rr.tops.size() == 1);
    REQUIRE(rr.tops[0].stagings.size() == 1);
    const StagingOutput& cache = rr.tops[0].stagings[0];
    CHECK(cache.name == "cache");
    CHECK(cache.script == "build.sh");
    CHECK(cache.script_lines.empty());
    CHECK(cache.script_env == std::map<std::string, std::string>{{"STAGE", "build"}, {"VER", "2"}});
    std::map<std::string, const RenderedOutput*> by;
    for (const auto& o : rr.outputs) by[o.name] = &o;
    REQUIRE(by.size() == 5);
    CHECK(by["liba"]->script == "build.sh");
    CHECK(by["liba"]->script_env == std::map<std::string, std::string>{{"STAGE", "liba"}});
    CHECK(by["libb"]->script_lines == std::vector<std::string>{"echo one", "echo two"});
    CHECK(by["libc"]->script.empty());
    CHECK(by["libc"]->script_lines == std::vector<std::string>{"echo c", "echo d"});
    CHECK(by["libd"]->script == "install_d.sh");
    CHECK(by["libe"]->script.empty());
    CHECK(by["libe"]->script_lines.empty());
    CHECK(by["libe"]->script_env.empty());
}

TEST_CASE("v1 tests: a script test's requirements and files reach the test, its pins resolved") {
    auto rr = render_text(R"(recipe:
  name: split
  version: 2.0
outputs:
  - package:
      name: liba
  - package:
      name: b
    tests:
      - python:
          imports:
            - b
      - script:
          - b --version
        requirements:
          run:
            - pytest
            - ${{ pin_subpackage('liba', exact=True) }}
        files:
          recipe:
            - smoke_test.py
          source:
            - tests/
)");
    REQUIRE(rr.outputs.size() == 2);
    const auto& a = rr.outputs[0].name == "liba" ? rr.outputs[0] : rr.outputs[1];
    const auto& b = rr.outputs[0].name == "liba" ? rr.outputs[1] : rr.outputs[0];
    CHECK(b.test.imports == std::vector<std::string>{"b"});
    CHECK(b.test.commands == std::vector<std::string>{"b --version"});
    REQUIRE(b.test.requires_.size() == 2);
    CHECK(b.test.requires_[0].str() == "pytest");
    CHECK(b.test.requires_[1].str() == "liba ==2.0 " + a.build_string);
    CHECK(b.test.files == std::vector<std::string>{"smoke_test.py"});
    CHECK(b.test.source_files == std::vector<std::string>{"tests/"});
    CHECK(a.test.empty());
    // Each tests: item on its own too, for an environment of its own.
    REQUIRE(b.test_elements.size() == 2);
    CHECK(b.test_elements[0].imports == std::vector<std::string>{"b"});
    CHECK(b.test_elements[0].requires_.empty());
    CHECK(b.test_elements[1].commands == std::vector<std::string>{"b --version"});
    REQUIRE(b.test_elements[1].requires_.size() == 2);
    CHECK(b.test_elements[1].requires_[1].str() == "liba ==2.0 " + a.build_string);
    CHECK(a.test_elements.empty());
}

namespace {

// A recipe directory with recipe.yaml and, when asked, build.sh.
RenderedRecipe render_dir_with(const fs::TempDir& tmp, const std::string& text, bool with_build_sh) {
    REQUIRE(fs::write_file_atomic(tmp.path() / "recipe.yaml", text));
    if (with_build_sh) REQUIRE(fs::write_file_atomic(tmp.path() / "build.sh", "echo built\n"));
    auto r = recipe::load_v1_recipe(tmp.path());
    REQUIRE(r);
    auto sel = variant::select("linux-64", {}, {});
    REQUIRE(sel);
    auto rr = render_v1(*r, *sel);
    INFO((rr ? std::string() : rr.error().str()));
    REQUIRE(rr);
    return *rr;
}

const RenderedOutput& output_named(const RenderedRecipe& rr, const std::string& name) {
    for (const auto& o : rr.outputs)
        if (o.name == name) return o;
    FAIL("no output " << name);
    return rr.outputs.front();
}

}  // namespace

TEST_CASE("v1 default script: build.sh for a single-output recipe and a staging output, never a package output") {
    SECTION("single output, no build.script") {
        fs::TempDir tmp("sf-v1-default");
        auto rr = render_dir_with(tmp, "package:\n  name: one\n  version: 1.0\n", true);
        CHECK(rr.outputs.at(0).script == "build.sh");
    }
    SECTION("single output, script env only: the default content still finds build.sh") {
        fs::TempDir tmp("sf-v1-default");
        auto rr = render_dir_with(tmp, "package:\n  name: one\n  version: 1.0\nbuild:\n  script:\n    env:\n      A: b\n", true);
        CHECK(rr.outputs.at(0).script == "build.sh");
        CHECK(rr.outputs.at(0).script_env == std::map<std::string, std::string>{{"A", "b"}});
    }
    SECTION("no build.sh in the recipe: nothing to run") {
        fs::TempDir tmp("sf-v1-default");
        auto rr = render_dir_with(tmp, "package:\n  name: one\n  version: 1.0\n", false);
        CHECK(rr.outputs.at(0).script.empty());
    }
    SECTION("multi-output: the staging output finds build.sh, package outputs do not") {
        fs::TempDir tmp("sf-v1-default");
        auto rr = render_dir_with(tmp, R"(recipe:
  name: split
  version: 1.0
outputs:
  - staging:
      name: cache
  - package:
      name: liba
    inherit: cache
  - package:
      name: libb
)", true);
        REQUIRE(rr.tops.size() == 1);
        REQUIRE(rr.tops[0].stagings.size() == 1);
        CHECK(rr.tops[0].stagings[0].script == "build.sh");
        CHECK(output_named(rr, "liba").script.empty());
        CHECK(output_named(rr, "libb").script.empty());
    }
    SECTION("multi-output: the top-level build.script reaches outputs inheriting the top level only") {
        fs::TempDir tmp("sf-v1-default");
        auto rr = render_dir_with(tmp, R"(recipe:
  name: split
  version: 1.0
build:
  script: top.sh
outputs:
  - staging:
      name: cache
    build:
      script: cache.sh
  - package:
      name: liba
    inherit: cache
  - package:
      name: libb
)", false);
        CHECK(rr.tops[0].stagings[0].script == "cache.sh");
        CHECK(output_named(rr, "liba").script.empty());
        CHECK(output_named(rr, "libb").script == "top.sh");
    }
}

TEST_CASE("v1 staging outputs: each keeps its sources, requirements and script, and outputs name the one they inherit") {
    auto rr = render_text(R"(recipe:
  name: split
  version: 2.0
source:
  path: src
outputs:
  - staging:
      name: cache-a
    source:
      path: extra-a
    requirements:
      host:
        - zlib
      ignore_run_exports:
        by_name:
          - libzlib
    build:
      script: a.sh
  - staging:
      name: cache-b
    requirements:
      build:
        - cmake
    build:
      script:
        - echo b
  - package:
      name: from-a
    inherit: cache-a
  - package:
      name: from-b
    inherit:
      from: cache-b
      run_exports: false
  - package:
      name: top
)");
    REQUIRE(rr.tops.size() == 1);
    const auto& top = rr.tops[0];
    REQUIRE(top.sources.size() == 1);  // the top level's own
    REQUIRE(top.stagings.size() == 2);
    const auto& a = top.stagings[0];
    const auto& b = top.stagings[1];
    CHECK(a.name == "cache-a");
    REQUIRE(a.sources.size() == 2);
    CHECK(a.sources[0].path == "src");
    CHECK(a.sources[1].path == "extra-a");
    CHECK(types::dependency_strings(a.requirements.host) == std::vector<std::string>{"zlib"});
    CHECK(a.ignore_run_exports == std::vector<std::string>{"libzlib"});
    CHECK(a.script == "a.sh");
    CHECK(b.name == "cache-b");
    CHECK(b.sources.size() == 1);
    CHECK(types::dependency_strings(b.requirements.build) == std::vector<std::string>{"cmake"});
    CHECK(b.script_lines == std::vector<std::string>{"echo b"});
    // The plan's view: both stagings' requirements together.
    CHECK(types::dependency_strings(top.requirements.host) == std::vector<std::string>{"zlib"});
    CHECK(types::dependency_strings(top.requirements.build) == std::vector<std::string>{"cmake"});
    CHECK(output_named(rr, "from-a").inherits == "cache-a");
    CHECK(output_named(rr, "from-a").inherit_run_exports);
    CHECK(output_named(rr, "from-b").inherits == "cache-b");
    CHECK_FALSE(output_named(rr, "from-b").inherit_run_exports);
    CHECK(output_named(rr, "top").inherits.empty());
}

TEST_CASE("v1 python tests: pip_check is on unless the recipe turns it off") {
    auto rr = render_text(R"(recipe:
  name: split
  version: 2.0
outputs:
  - package:
      name: checked
    tests:
      - python:
          imports:
            - checked
  - package:
      name: unchecked
    tests:
      - python:
          imports:
            - unchecked
          pip_check: false
)");
    CHECK(output_named(rr, "checked").test.pip_check);
    CHECK_FALSE(output_named(rr, "unchecked").test.pip_check);
}

TEST_CASE("v1 pins: lower_bound and upper_bound as versions or expressions, and an empty one is an error at its line") {
    auto rr = render_text(R"(recipe:
  name: split
  version: 2.1.3
outputs:
  - package:
      name: liba
  - package:
      name: b
    requirements:
      run:
        - ${{ pin_subpackage('liba', lower_bound='2.0', upper_bound='x.x') }}
        - ${{ pin_compatible('numpy', upper_bound=None, build='py*') }}
)");
    const auto& b = output_named(rr, "b");
    REQUIRE(b.requirements.run.size() == 2);
    CHECK(b.requirements.run[0].str() == "liba >=2.0,<2.2.0a0");
    const types::Pin* p = b.requirements.run[1].pin();
    REQUIRE(p);  // resolved by the engine against the host env
    CHECK(p->min_pin == "x.x.x.x.x.x");
    CHECK(p->max_pin.empty());
    CHECK(p->build == "py*");

    auto r = recipe::parse_v1_recipe("package:\n  name: a\n  version: 1\nrequirements:\n  run:\n"
                                     "    - ${{ pin_compatible('numpy', upper_bound='') }}\n", "recipe.yaml");
    REQUIRE(r);
    auto sel = variant::select("linux-64", {}, {});
    REQUIRE(sel);
    auto bad = render_v1(*r, *sel);
    REQUIRE_FALSE(bad);
    CHECK(bad.error().str().find("recipe.yaml:6") != std::string::npos);
    CHECK(bad.error().str().find("upper_bound is an empty string") != std::string::npos);
}

TEST_CASE("v1 skip: a template's text is evaluated again, as rattler-build's is_skipped does") {
    auto text = [](const std::string& skip) {
        return "recipe:\n  name: split\n  version: 1.0\noutputs:\n  - package:\n      name: lib\n"
               "  - package:\n      name: lib-tests\n    build:\n      skip: " + skip + "\n";
    };
    // The string 'false' is not a skip (a non-empty string would be truthy).
    auto kept = render_text(text("${{ 'true' if aarch64 else 'false' }}"));
    CHECK(kept.outputs.size() == 2);
    auto gone = render_text(text("${{ 'true' if linux else 'false' }}"));
    REQUIRE(gone.outputs.size() == 1);
    CHECK(gone.outputs[0].name == "lib");
    // Empty text is no condition; a plain expression is one as before.
    CHECK(render_text(text("${{ '' }}")).outputs.size() == 2);
    CHECK(render_text(text("linux")).outputs.size() == 1);
}

TEST_CASE("v1 scripts: env.get of an unset name renders empty there (rattler-build defers script text)") {
    const std::string unset = "SF_TEST_V1_SURELY_UNSET_8f3a";
    REQUIRE(std::getenv(unset.c_str()) == nullptr);
    auto rr = render_text("package:\n  name: foo\n  version: 1.0\nbuild:\n  script:\n"
                          "    - export X=${{ env.get(\"" + unset + "\") }}\n"
                          "tests:\n  - script:\n      - test -n \"${{ env.get(\"" + unset + "\") }}\"\n");
    REQUIRE(rr.outputs.size() == 1);
    CHECK(rr.outputs[0].script_lines == std::vector<std::string>{"export X="});
    // Outside a script it is still an error naming the variable.
    auto r = recipe::parse_v1_recipe("package:\n  name: foo\n  version: ${{ env.get(\"" + unset + "\") }}\n", "recipe.yaml");
    REQUIRE(r);
    auto sel = variant::select("linux-64", {}, {});
    REQUIRE(sel);
    auto bad = render_v1(*r, *sel);
    REQUIRE_FALSE(bad);
    CHECK(bad.error().str().find(unset) != std::string::npos);
}

TEST_CASE("v1 matrix: keys the recipe cannot read multiply nothing, and the limit is the readable matrix's") {
    std::vector<std::pair<std::string, std::string>> many;
    for (const char* k : {"k1", "k2", "k3", "k4", "k5"}) many.emplace_back(k, "1,2,3,4,5,6,7,8,9,10");
    many.emplace_back("zlib", "1.2,1.3");
    // 10^5 points in all, but the recipe reads only zlib: two combinations.
    auto rr = render_text("package:\n  name: foo\n  version: 1.0\nrequirements:\n  host:\n    - zlib\n", many);
    CHECK(rr.variants.size() == 2);
    CHECK(rr.outputs.size() == 2);
    // A recipe reading all five keys meets the limit, naming it.
    auto r = recipe::parse_v1_recipe("package:\n  name: foo\n  version: 1.0\nrequirements:\n  host:\n"
                                     "    - k1\n    - k2\n    - k3\n    - k4\n    - k5\n", "recipe.yaml");
    REQUIRE(r);
    auto sel = variant::select("linux-64", {}, {});
    REQUIRE(sel);
    sel->overrides = many;
    auto big = render_v1(*r, *sel);
    REQUIRE_FALSE(big);
    CHECK(big.error().str().find("more than the limit") != std::string::npos);
}

TEST_CASE("v1 startingwith: minijinja's string tests in a recipe") {
    auto text = "package:\n  name: foo\n  version: 1.0\nbuild:\n  skip: python is startingwith('3.14') and linux\n"
                "requirements:\n  host:\n    - python\n";
    CHECK(render_text(text, {{"python", "3.14.* *_cp314"}}).outputs.empty());
    CHECK(render_text(text, {{"python", "3.13.* *_cp313"}}).outputs.size() == 1);
}

TEST_CASE("v1 build.script: a file that evaluates to '' renders, and its output cannot be built") {
    // cuda-python-feedstock: `file: ${{ 'x.bat' if win else 'x.sh' if linux else '' }}` with osx skipped.
    // rattler-build keeps Path("") at render time and fails only when it resolves it for a build.
    std::string text = R"(package:
  name: foo
  version: 1.0
build:
  skip: osx
  script:
    file: ${{ 'build_output.bat' if win else '' }}
    env:
      SUBDIR: lib
)";
    auto rr = render_text(text);
    REQUIRE(rr.outputs.size() == 1);
    CHECK(rr.outputs[0].script.empty());
    CHECK(rr.outputs[0].script_lines.empty());
    CHECK(rr.outputs[0].script_env == std::map<std::string, std::string>{{"SUBDIR", "lib"}});
    CHECK(rr.outputs[0].unbuildable.find("recipe.yaml:7:11: build.script file is empty") != std::string::npos);

    CHECK(render_text(str::replace_all(text, "skip: osx", "skip: linux")).outputs.empty());
}

TEST_CASE("v1 down_prioritize_variant: a key some platforms lack needs a default, as in rattler-build") {
    const char* text = R"(package:
  name: foo
  version: 1.0
build:
  variant:
    down_prioritize_variant: ${{ 0 if (microarch_level | default(1)) == 1 else 1 }}
)";
    auto absent = render_text(text);
    REQUIRE(absent.outputs.size() == 1);
    CHECK(absent.outputs[0].used.count("microarch_level") == 0);
    auto present = render_text(text, {{"microarch_level", "3"}});
    REQUIRE(present.outputs.size() == 1);
    CHECK(present.outputs[0].used.count("microarch_level") == 1);

    auto r = recipe::parse_v1_recipe(R"(package:
  name: foo
  version: 1.0
build:
  noarch: ${{ "python" if use_noarch else "generic" }}
)",
                                     "recipe.yaml");
    REQUIRE(r);
    auto sel = variant::select("linux-64", {}, {});
    REQUIRE(sel);
    auto bad = render_v1(*r, *sel);
    REQUIRE_FALSE(bad);
    CHECK(bad.error().str() == "recipe.yaml:5:27: 'use_noarch' is undefined (a variant key only some platforms "
                               "define? give it a fallback: use_noarch | default(...))");
}
