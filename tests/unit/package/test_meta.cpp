#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "package/meta.hpp"

using namespace sf;
using namespace sf::package;
using nlohmann::json;

TEST_CASE("meta_from_json reads every field") {
    json j = {{"name", "libtorch"},
              {"version", "2.5.1"},
              {"build", "cuda126_h1234567_0"},
              {"build_number", 0},
              {"depends", {"libgcc >=13", "libblas * *mkl"}},
              {"constrains", {"pytorch 2.5.1"}},
              {"subdir", "linux-64"},
              {"license", "BSD-3-Clause"},
              {"run_exports", {{"weak", {"libtorch >=2.5.1,<2.6.0a0"}}}},
              {"test", {{"commands", {"test -f $PREFIX/lib/libtorch.so"}}, {"files", {{{"dest", "t.py"}, {"content", "x"}}}}}},
              {"recipe_files", {{{"dest", "meta.yaml"}, {"content", "a: 1"}}}},
              {"timestamp", 1700000000000}};
    auto m = meta_from_json(j, "meta.json");
    REQUIRE(m);
    CHECK(m->name == "libtorch");
    CHECK(m->stem() == "libtorch-2.5.1-cuda126_h1234567_0");
    CHECK(m->depends.size() == 2);
    CHECK(m->run_exports.weak == std::vector<std::string>{"libtorch >=2.5.1,<2.6.0a0"});
    CHECK(m->test.commands.size() == 1);
    CHECK(m->test.files.at(0).dest == "t.py");
    CHECK(m->recipe_files.at(0).content == "a: 1");
    CHECK(*m->timestamp == 1700000000000);
    CHECK(resolved_timestamp(*m) == 1700000000000);
    SECTION("run_exports as a plain list means weak") {
        j["run_exports"] = {"a >=1"};
        auto m2 = meta_from_json(j, "meta.json");
        REQUIRE(m2);
        CHECK(m2->run_exports.weak == std::vector<std::string>{"a >=1"});
        CHECK(m2->run_exports.strong.empty());
    }
}

TEST_CASE("meta_from_json rejects mistakes with the file name") {
    json base = {{"name", "x"}, {"version", "1"}, {"build", "0"}};
    SECTION("unknown key") {
        base["dependz"] = json::array();
        auto r = meta_from_json(base, "m.json");
        REQUIRE_FALSE(r);
        CHECK(r.error().str().find("m.json") == 0);
        CHECK(r.error().message.find("dependz") != std::string::npos);
    }
    SECTION("wrong type") {
        base["build_number"] = "zero";
        CHECK_FALSE(meta_from_json(base, "m.json"));
    }
    SECTION("missing version") {
        base.erase("version");
        CHECK_FALSE(meta_from_json(base, "m.json"));
    }
}

TEST_CASE("validate") {
    PackageMeta m;
    m.name = "ok-name_1.x";
    m.version = "1!2.0.post1+local";
    m.build = "py312h1234567_0";
    CHECK(validate(m));
    SECTION("uppercase names") { m.name = "Torch"; CHECK_FALSE(validate(m)); }
    SECTION("dash in version") { m.version = "1.0-1"; CHECK_FALSE(validate(m)); }
    SECTION("space in build") { m.build = "a b"; CHECK_FALSE(validate(m)); }
    SECTION("noarch needs subdir noarch") { m.noarch = types::NoArch::generic; CHECK_FALSE(validate(m)); m.subdir = types::Platform::noarch(); CHECK(validate(m)); }
    SECTION("subdir noarch needs noarch") { m.subdir = types::Platform::noarch(); CHECK_FALSE(validate(m)); }
}

TEST_CASE("meta_from_json: a noarch kind other than generic or python is refused") {
    auto m = meta_from_json(nlohmann::json{{"name", "a"}, {"version", "1"}, {"build", "0"}, {"noarch", "java"}},
                            "meta.json");
    REQUIRE_FALSE(m);
    CHECK(m.error().message.find("invalid noarch 'java'") != std::string::npos);
    auto ok = meta_from_json(nlohmann::json{{"name", "a"}, {"version", "1"}, {"build", "0"}, {"noarch", "python"},
                                            {"subdir", "noarch"}},
                             "meta.json");
    REQUIRE(ok);
    CHECK(ok->noarch == types::NoArch::python);
}

TEST_CASE("meta_from_json: an unknown subdir is refused") {
    auto m = meta_from_json(nlohmann::json{{"name", "a"}, {"version", "1"}, {"build", "0"}, {"subdir", "linux-128"}},
                            "meta.json");
    REQUIRE_FALSE(m);
    CHECK(m.error().message.find("unknown platform 'linux-128'") != std::string::npos);
}
