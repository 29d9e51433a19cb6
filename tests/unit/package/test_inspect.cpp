// package/inspect: format_inspection prints what a package's metadata holds,
// whatever the types of its fields (a number as the summary or as a paths
// entry threw nlohmann's type_error: `inspect` exited 3, an internal error).
#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>

#include "package/inspect.hpp"

using nlohmann::json;

TEST_CASE("package: format_inspection takes fields of any type") {
    json j = {{"file", "p-1.0-0.conda"},
              {"index", {{"name", "p"}, {"build_number", 0}, {"depends", json::array({"a", 1})}}},
              {"about", {{"summary", 5}}},
              {"paths", json::array({5, {{"_path", 3}, {"path_type", "softlink"}}, {{"_path", "bin/x"}}})},
              {"run_exports", json::object()}};
    std::string out = sf::package::format_inspection(j);
    CHECK(out == "p-1.0-0.conda\n"
                 "  build_number: 0\n"
                 "  depends:\n"
                 "    - a\n"
                 "    - 1\n"
                 "  name: p\n"
                 "  summary: 5\n"
                 "files (3):\n"
                 "  \n"
                 "  3  [softlink]\n"
                 "  bin/x\n");
    j["about"] = "not an object";
    CHECK(sf::package::format_inspection(j).find("summary") == std::string::npos);
}
