// The identifier rules (CEP 26), proven on real conda-forge identifiers that
// must pass and on path tricks that must not; and the typed JSON reads.
#include <catch2/catch.hpp>

#include "types/identifiers.hpp"
#include "types/json_fields.hpp"
#include "types/package_record.hpp"
#include "types/version_spec.hpp"

using namespace sf::types;
using json = nlohmann::json;

TEST_CASE("identifiers: real conda-forge names, versions and builds pass", "[identifiers]") {
    for (const char* name : {"python", "python_abi", "ca-certificates", "_openmp_mutex", "_libgcc_mutex", "r-base",
                             "libstdcxx-ng", "pytorch-cpu", "zope.interface", "7zip", "c-compiler", "x"}) {
        INFO(name);
        CHECK(check_package_name(name));
    }
    for (const char* v : {"1.2.3", "1.2.3.post1", "2024.1+cuda12", "1!2.0", "3.12.0rc1", "0.1.0_dev", "2.5.1",
                          "1.0.0RC1", "9e", "2023b"}) {
        INFO(v);
        CHECK(check_version(v));
    }
    for (const char* b : {"0", "py312h1234567_0", "cuda126_mkl_h123_300", "h0_0", "pyhd8ed1ab_0",
                          "py312h2ec8cdc_1_cpython", "cpu_generic_py312h_0", "1+local"}) {
        INFO(b);
        CHECK(check_build_string(b));
    }
    for (const char* s : {"noarch", "linux-64", "linux-aarch64", "osx-arm64", "win-64", "emscripten-wasm32", "zos-z"}) {
        INFO(s);
        CHECK(check_subdir(s));
    }
}

TEST_CASE("identifiers: path tricks and malformed values are refused", "[identifiers]") {
    for (const char* name : {"", "..", ".hidden", "-dash", "Upper", "a/b", "a b", "a\nb", "__glibc", "a--b", "a._b",
                             "a=1", "a@b", "\xc3\xa9"}) {
        INFO(name);
        CHECK_FALSE(check_package_name(name));
    }
    CHECK_FALSE(check_package_name(std::string(65, 'a')));
    CHECK(check_package_name(std::string(64, 'a')));
    for (const char* v : {"", "64/../../../x", "1.0/x", "..", "1..0", "1.0-1", "1 0", "1.0\n", "1.0*", ">=1", "1,2",
                          "1\\0", "1~rc"}) {
        INFO(v);
        CHECK_FALSE(check_version(v));
    }
    CHECK_FALSE(check_version(std::string(65, '1')));
    for (const char* b : {"", "..", "0/../x", "0 1", "0-1", "py!1", "0\t", "h..0"}) {
        INFO(b);
        CHECK_FALSE(check_build_string(b));
    }
    for (const char* s : {"", "linux", "linux-", "-64", "../linux-64", "Linux-64", "linux-64-x", "linux_64",
                          "abcdefghijklmnop-qrstuvwxyz012345"}) {
        INFO(s);
        CHECK_FALSE(check_subdir(s));
    }
}

TEST_CASE("identifiers: errors name the value and say what is allowed", "[identifiers]") {
    auto e = check_version("64/../../../x");
    REQUIRE_FALSE(e);
    CHECK(e.error().message == "invalid version '64/../../../x'");
    CHECK(e.error().hint.find("'+'") != std::string::npos);
    auto n = check_package_name("a\nb");
    REQUIRE_FALSE(n);
    CHECK(n.error().message == "invalid package name 'a\\x0ab'");
}

TEST_CASE("identifiers: prefixes with control characters are refused", "[identifiers]") {
    CHECK(check_prefix("/opt/conda/envs/x"));
    CHECK(check_prefix("relative/prefix with space"));
    CHECK_FALSE(check_prefix(""));
    CHECK_FALSE(check_prefix("/tmp/a\nb"));
    CHECK_FALSE(check_prefix(std::string("/tmp/a\0b", 8)));
    CHECK_FALSE(check_prefix("/tmp/a\tb"));
    CHECK_FALSE(check_prefix("/tmp/a\x7f"));
    CHECK(check_prefix("/tmp/a\nb").error().message.find("\\x0a") != std::string::npos);
}

TEST_CASE("identifiers: recipe noarch values", "[identifiers]") {
    CHECK(*parse_recipe_noarch("") == NoArch::none);
    CHECK(*parse_recipe_noarch("false") == NoArch::none);
    CHECK(*parse_recipe_noarch("python") == NoArch::python);
    CHECK(*parse_recipe_noarch("generic") == NoArch::generic);
    CHECK(*parse_recipe_noarch("true") == NoArch::generic);  // conda-build's legacy boolean
    CHECK(*parse_recipe_noarch("True") == NoArch::generic);
    CHECK_FALSE(parse_recipe_noarch("../../x"));
    CHECK_FALSE(parse_recipe_noarch("Python"));
}

TEST_CASE("identifiers: index.json noarch values", "[identifiers]") {
    json base = {{"name", "a"}, {"version", "1"}, {"build", "0"}};
    auto noarch_of = [&](json value, const char* key = "noarch") {
        json j = base;
        j[key] = value;
        return PackageRecord::from_json(j, "x: info/index.json");
    };
    CHECK(noarch_of("python")->noarch == "python");
    CHECK(noarch_of("generic")->noarch == "generic");
    CHECK(noarch_of(true)->noarch == "generic");
    CHECK(noarch_of(false)->noarch == "");
    CHECK(noarch_of(true, "noarch_python")->noarch == "python");
    auto bad = noarch_of("../../x");
    REQUIRE_FALSE(bad);
    CHECK(bad.error().message == "x: info/index.json: 'noarch': invalid noarch '../../x'");
    CHECK_FALSE(noarch_of(3));
    CHECK_FALSE(noarch_of("yes", "noarch_python"));
}

TEST_CASE("json fields: a wrong type is an error naming the file and the field", "[identifiers]") {
    json j = {{"s", "x"}, {"n", 3}, {"neg", -1}, {"b", true}, {"l", {"a", 1}}, {"nul", nullptr}};
    JsonFields f(j, "pkg.conda: info/paths.json");
    CHECK(*f.string("s") == "x");
    CHECK(*f.string("missing", "d") == "d");
    CHECK(*f.string("nul", "d") == "d");
    auto e = f.string("n");
    REQUIRE_FALSE(e);
    CHECK(e.error().message == "pkg.conda: info/paths.json: 'n' must be a string, not number");
    CHECK(**f.integer("n") == 3);
    CHECK_FALSE(f.integer("s"));
    CHECK_FALSE(f.unsigned_integer("neg"));
    CHECK(**f.boolean("b"));
    CHECK_FALSE(f.boolean("n"));
    CHECK_FALSE(f.strings("l"));
    CHECK_FALSE(f.required_string("missing"));
    CHECK_FALSE(parse_json_object("[1]", "x"));
    CHECK_FALSE(parse_json_object("{", "x"));
}

TEST_CASE("json fields: paths.json and package records with numbers for strings", "[identifiers]") {
    auto p = PathsJson::parse(R"({"paths": [{"_path": "a", "path_type": 1}], "paths_version": 1})", "f: info/paths.json");
    REQUIRE_FALSE(p);
    CHECK(p.error().message == "f: info/paths.json: a: 'path_type' must be a string, not number");
    p = PathsJson::parse(R"({"paths": [{"_path": "a", "file_mode": 2}]})", "f: info/paths.json");
    REQUIRE_FALSE(p);
    CHECK(p.error().message == "f: info/paths.json: a: 'file_mode' must be a string, not number");
    auto r = PackageRecord::from_json(json{{"name", 1}, {"version", "1"}, {"build", "0"}}, "r");
    REQUIRE_FALSE(r);
    CHECK(r.error().message == "r: 'name' must be a string, not number");
    r = PackageRecord::from_json(json{{"name", "a"}, {"version", "1"}, {"build", "0"}, {"depends", {1}}}, "r");
    REQUIRE_FALSE(r);
    CHECK(r.error().message == "r: 'depends' must be a list of strings, but item 1 is a number");
}

// Copying, printing and freeing a nlohmann value recurse once per level:
// 100k levels in an index.json crashed install, inspect and index.
TEST_CASE("json_too_deep: nesting beyond any metadata is caught before parsing", "[identifiers]") {
    auto nested = [](int n, char open, char close) { return std::string(n, open) + std::string(n, close); };
    CHECK_FALSE(sf::types::json_too_deep(R"({"a": [1, {"b": [2]}], "s": "[[[[{{{{"})"));
    CHECK_FALSE(sf::types::json_too_deep(nested(sf::types::kMaxJsonDepth, '[', ']')));
    CHECK(sf::types::json_too_deep(nested(sf::types::kMaxJsonDepth + 1, '[', ']')));
    CHECK(sf::types::json_too_deep("{\"x\": " + nested(100000, '[', ']') + "}"));
    // Brackets inside strings, escaped quotes included, do not count.
    CHECK_FALSE(sf::types::json_too_deep("[\"\\\"" + std::string(500, '[') + "\"]"));
    auto r = sf::types::parse_json_object("{\"x\": " + nested(100000, '[', ']') + "}", "index.json");
    REQUIRE_FALSE(r);
    CHECK(r.error().message == "index.json: JSON nested more than 128 levels deep");
}

// The version-spec parser recurses once per '(' (5000 crashed it).
TEST_CASE("version specs: parentheses nested beyond 64 are refused, not a crash", "[identifiers]") {
    auto nested = [](int n) { return std::string(n, '(') + ">=1" + std::string(n, ')'); };
    CHECK(sf::types::VersionSpec::parse(nested(10)));
    auto deep = sf::types::VersionSpec::parse(nested(100000));
    REQUIRE_FALSE(deep);
    CHECK(deep.error().message.find("parentheses nested more than 64 deep") != std::string::npos);
}
