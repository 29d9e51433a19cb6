// Hostile identifiers in recipe.yaml (issue 30, round 4): a name, version or
// build string that is no path component, a build number outside
// 0..2^31-1, two outputs of one name and script env names that are no shell
// variable are refused by render, and so by build before any script runs:
// exit 2, one line at recipe.yaml:LINE:COL, nothing written anywhere. Each
// case has a benign twin (the same recipe minus the hostile bit) that renders.
#include <catch2/catch.hpp>

#include <fstream>

#include "craft.hpp"
#include "process/process.hpp"
#include "testproc.hpp"
#include "testutil.hpp"
#include "util/strings.hpp"

using namespace sf::test::craft;

namespace {

using Run = sf::test::Ran;
const auto run = sf::test::run_splitforge;

struct Case {
    std::string name, hostile, benign, message;  // message: "LINE:COL: what"
};

// A single-output recipe whose `build:` section is `build` (the script
// would leave a file behind, so a run shows in scan()).
std::string single(const std::string& name, const std::string& version, const std::string& build) {
    return "package:\n  name: " + name + "\n  version: " + version + "\nbuild:\n" + build +
           "  script: touch ran-" + "$PKG_NAME\n";
}

std::string multi(const std::string& top, const std::string& second_name, const std::string& env_key) {
    return "recipe:\n  name: " + top + "\n  version: 1.0.0\noutputs:\n"
           "  - package:\n      name: a\n    build:\n      script:\n        content: touch ran-a\n"
           "        env:\n          " + env_key + ": x\n"
           "  - package:\n      name: " + second_name + "\n";
}

std::vector<Case> cases() {
    const std::string n0 = "  number: 0\n";
    return {
        {"package name with ../", single("../../../outside/v", "1.0.0", n0), single("v", "1.0.0", n0),
         "2:9: invalid package name '../../../outside/v'"},
        {"package name from an expression", "context:\n  n: ../x\n" + single("${{ n }}", "1.0.0", n0),
         "context:\n  n: x\n" + single("${{ n }}", "1.0.0", n0), "4:9: invalid package name '../x'"},
        {"version with a slash", single("v", "1/2", n0), single("v", "1.2", n0), "3:12: v: invalid version '1/2'"},
        {"build string with a slash", single("v", "1.0.0", n0 + "  string: a/b\n"),
         single("v", "1.0.0", n0 + "  string: a_b\n"), "6:11: v: invalid build string 'a/b'"},
        {"build string from an expression", single("v", "1.0.0", n0 + "  string: ${{ 'x/' ~ hash }}\n"),
         single("v", "1.0.0", n0 + "  string: ${{ 'x_' ~ hash }}\n"), "6:11: v: invalid build string 'x/"},
        {"build number -1", single("v", "1.0.0", "  number: -1\n"), single("v", "1.0.0", "  number: 1\n"),
         "5:11: build number must be a non-negative integer below 2^31, not '-1'"},
        {"build number beyond any integer", single("v", "1.0.0", "  number: 99999999999999999999999\n"),
         single("v", "1.0.0", "  number: 9999\n"), "5:11: build number must be a non-negative integer below 2^31"},
        {"build number 2^31", single("v", "1.0.0", "  number: 2147483648\n"),
         single("v", "1.0.0", "  number: 2147483647\n"),
         "5:11: build number must be a non-negative integer below 2^31, not '2147483648'"},
        {"two outputs of one name", multi("r", "a", "A"), multi("r", "b", "A"),
         "13:13: outputs: the name 'a' is used twice"},
        {"script env name with '='", multi("r", "b", "\"A=B\""), multi("r", "b", "\"A_B\""),
         "11:11: a: invalid script env name 'A=B'"},
        {"empty script env name", multi("r", "b", "\"\""), multi("r", "b", "\"A\""),
         "11:11: a: invalid script env name ''"},
        {"script env name starting with a digit", multi("r", "b", "1A"), multi("r", "b", "A1"),
         "11:11: a: invalid script env name '1A'"},
        {"recipe name with ../", multi("../r", "b", "A"), multi("r", "b", "A"),
         "2:9: invalid package name '../r'"},
    };
}

}  // namespace

TEST_CASE("security: hostile recipe.yaml identifiers fail render and build at their line, before any script",
          "[security]") {
    for (const auto& c : cases()) {
        SECTION(c.name) {
            sf::fs::TempDir tmp("sf-sec-v1id");
            const stdfs::path recipe = tmp.path() / "work/deep/recipe", out = tmp.path() / "work/deep/out";
            stdfs::create_directories(recipe);
            std::ofstream(recipe / "recipe.yaml") << c.hostile;
            const auto before = scan(tmp.path());
            for (std::vector<std::string> args :
                 {std::vector<std::string>{"render", recipe.string(), "--platform", "linux-64"},
                  {"build", recipe.string(), "--output-folder", out.string(), "-q"}}) {
                INFO(args[0] << "\n" << c.hostile);
                Run r = run(args, recipe);
                INFO(r.err);
                CHECK(r.rc == 2);
                CHECK(std::count(r.err.begin(), r.err.end(), '\n') == 1);
                CHECK(r.err.find("recipe.yaml:" + c.message) != std::string::npos);
                // Nothing was created anywhere: no output folder, no script's file.
                CHECK(scan(tmp.path()) == before);
            }
            SECTION("its benign twin renders") {
                std::ofstream(recipe / "recipe.yaml", std::ios::trunc) << c.benign;
                Run r = run({"render", recipe.string(), "--platform", "linux-64"}, recipe);
                INFO(c.benign << "\n" << r.err);
                CHECK(r.rc == 0);
            }
        }
    }
}
