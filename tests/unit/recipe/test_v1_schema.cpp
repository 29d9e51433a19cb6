#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "recipe/v1_schema.hpp"
#include "recipe/yaml_tree.hpp"

using namespace sf::recipe;

namespace {

// "line:message" of each problem (1-based lines), and the refusal kind.
std::vector<std::string> problems(const std::string& yaml, v1::Refusal kind = v1::Refusal::parse_error) {
    auto tree = parse_yaml_tree(yaml, "recipe.yaml");
    REQUIRE(tree);
    std::vector<std::string> out;
    for (const auto& p : v1::check_keys(*tree))
        if (p.refusal == kind) out.push_back(std::to_string(p.at->line + 1) + ":" + p.message);
    return out;
}

const std::string kPkg = "package:\n  name: foo\n  version: 1.0\n";

}  // namespace

TEST_CASE("v1 schema: each section's keys as rattler-build's parser lists them") {
    CHECK(v1::section_keys("requirements") ==
          std::vector<std::string_view>{"build", "host", "run", "run_constraints", "extras", "run_exports",
                                        "ignore_run_exports"});
    CHECK(v1::section_keys("staging output") ==
          std::vector<std::string_view>{"staging", "source", "requirements", "build"});
    CHECK(v1::section_keys("no such section").empty());
}

TEST_CASE("v1 schema: top-level keys of the two recipe kinds") {
    SECTION("$schema: single-output only") {
        CHECK(problems("$schema: x\n" + kPkg).empty());
        CHECK(problems("$schema: x\nrecipe: {name: a, version: 1}\noutputs:\n  - package: {name: a}\n") ==
              std::vector<std::string>{"1:unknown field '$schema' in multi-output recipe"});
    }
    SECTION("top-level version: multi-output only") {
        CHECK(problems("version: 1\noutputs:\n  - package: {name: a}\n").empty());
        CHECK(problems("version: 1\n" + kPkg) == std::vector<std::string>{"1:unknown field 'version' in recipe"});
    }
    SECTION("extra and context hold anything") {
        CHECK(problems(kPkg + "extra:\n  anything: {goes: here}\ncontext:\n  x: 1\n").empty());
    }
}

TEST_CASE("v1 schema: entries of several kinds") {
    SECTION("a source's kind is git, url or path, in that order") {
        CHECK(problems(kPkg + "source:\n  git: https://x\n  sha256: abc\n") ==
              std::vector<std::string>{"6:unknown field 'sha256' in git source"});
        CHECK(problems(kPkg + "source:\n  - path: ../src\n    use_gitignore: false\n").empty());
    }
    SECTION("a test's siblings of python: are read past, not refused") {
        std::string y = kPkg + "tests:\n  - python:\n      imports: [foo]\n    files: [a]\n";
        CHECK(problems(y).empty());
        CHECK(problems(y, v1::Refusal::ignored) == std::vector<std::string>{"7:field 'files' is ignored in python test"});
    }
    SECTION("outputs: staging or package") {
        std::string y = "recipe: {name: a, version: 1}\noutputs:\n  - staging: {name: s}\n    about: {}\n"
                        "  - package: {name: a}\n    inherit: {from: s, run_exports: false}\n";
        CHECK(problems(y) == std::vector<std::string>{"4:unknown field 'about' in staging output"});
    }
}

TEST_CASE("v1 schema: conditionals") {
    SECTION("both branches are checked") {
        std::string y = kPkg + "requirements:\n  run:\n    - if: linux\n      then: a\n      else: b\n"
                               "build:\n  script:\n    - if: win\n      then:\n        - x\n"
                               "about:\n  homepage: x\n" +
                        "source:\n  - if: linux\n    then: {url: x, sha256: y}\n    else: {url: x, sha_256: y}\n";
        CHECK(problems(y) == std::vector<std::string>{"19:unknown field 'sha_256' in url source"});
    }
    SECTION("a key beside if/then/else") {
        CHECK(problems(kPkg + "source:\n  - if: linux\n    then: {url: x}\n    otherwise: {url: y}\n") ==
              std::vector<std::string>{"7:unknown field 'otherwise' in an if/then/else block"});
    }
    SECTION("a build step's if: is its own field") {
        CHECK(problems(kPkg + "build:\n  steps:\n    - if: unix\n      run: make\n      cwd: src\n").empty());
        CHECK(problems(kPkg + "build:\n  steps:\n    - if: unix\n      then: make\n") ==
              std::vector<std::string>{"7:unknown field 'then' in step"});
    }
}

// rattler-build's stage0 parser reads `if:` as a conditional only where it
// parses a list item (parse_item_with_converter, parse_source_item,
// parse_test_item) or a list-or-item field (source, build.skip, a python
// test's imports); a section's mapping goes through validate_keys ("unknown
// field 'if'"), a scalar or list field wants a scalar or a sequence, and
// parse_outputs takes no conditional items.
TEST_CASE("v1 schema: an if/then/else block as a whole value") {
    SECTION("a section's own if: is an unknown field, as validate_keys says") {
        CHECK(problems(kPkg + "requirements:\n  if: linux\n  then:\n    host: [zlib]\n") ==
              std::vector<std::string>{"5:unknown field 'if' in requirements", "6:unknown field 'then' in requirements"});
        CHECK(problems(kPkg + "build:\n  if: unix\n  then: {number: 1}\n").at(0) == "5:unknown field 'if' in build");
        CHECK(problems(kPkg + "about:\n  if: unix\n  then: {license: MIT}\n").at(0) == "5:unknown field 'if' in about");
        CHECK(problems(kPkg + "requirements:\n  run_exports:\n    if: unix\n    then: [a]\n").at(0) ==
              "6:unknown field 'if' in run_exports");
        CHECK(problems(kPkg + "build:\n  script:\n    if: unix\n    then: [make]\n").at(0) ==
              "6:unknown field 'if' in script object");
        CHECK(problems(kPkg + "tests:\n  - python:\n      if: unix\n      then: {imports: [a]}\n").at(0) ==
              "6:unknown field 'if' in python test");
    }
    SECTION("a scalar or list field: rattler-build wants a scalar or a sequence") {
        CHECK(problems(kPkg + "requirements:\n  host:\n    if: linux\n    then: [zlib]\n") ==
              std::vector<std::string>{"6:'host' cannot be an if/then/else block"});
        CHECK(problems(kPkg + "build:\n  number:\n    if: linux\n    then: 1\n") ==
              std::vector<std::string>{"6:'number' cannot be an if/then/else block"});
        CHECK(problems(kPkg + "about:\n  license_file:\n    if: unix\n    then: LICENSE\n") ==
              std::vector<std::string>{"6:'license_file' cannot be an if/then/else block"});
    }
    SECTION("list-or-item fields take one: source, build.skip, a python test's imports") {
        CHECK(problems(kPkg + "source:\n  if: linux\n  then: {url: x, sha256: y}\n").empty());
        CHECK(problems(kPkg + "source:\n  if: linux\n  then: {url: x, sha_256: y}\n") ==
              std::vector<std::string>{"6:unknown field 'sha_256' in url source"});
        CHECK(problems(kPkg + "build:\n  skip:\n    if: win\n    then: true\n").empty());
        CHECK(problems(kPkg + "tests:\n  - python:\n      imports:\n        if: unix\n        then: [a]\n").empty());
    }
    SECTION("extra and a script's env are read as written") {
        CHECK(problems(kPkg + "extra:\n  if: x\nbuild:\n  script:\n    env: {if: a, then: b}\n    content: make\n")
                  .empty());
    }
    SECTION("outputs take no if: items (the recipe checker names the output)") {
        CHECK(problems("recipe: {name: a, version: 1}\noutputs:\n  - if: unix\n    then:\n      package: {name: a}\n")
                  .empty());
    }
}

TEST_CASE("v1 schema: a source or test of no kind is refused, as rattler-build's parser refuses it") {
    CHECK(problems(kPkg + "source:\n  - sha256: abc\n") ==
          std::vector<std::string>{"5:a source must have one of: git, url or path"});
    CHECK(problems(kPkg + "tests:\n  - pyhton:\n      imports: [foo]\n") ==
          std::vector<std::string>{
              "5:a test must have one of: python, perl, r, ruby, script, downstream, package_contents"});
}
