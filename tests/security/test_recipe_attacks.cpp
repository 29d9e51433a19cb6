// Hostile recipes, driven through the binary: names, versions and build
// strings with "../" are refused by render, lint and build alike, before any
// directory is made from them; parser bombs end quickly with one line.
#include <catch2/catch.hpp>

#include <sys/stat.h>
#include <unistd.h>

#include <fstream>

#include "testproc.hpp"
#include "craft.hpp"
#include "process/process.hpp"
#include "testutil.hpp"
#include "util/strings.hpp"

using namespace sf::test::craft;

namespace {

struct Run {
    int rc = -1;
    std::string err, out;
};

Run run(std::vector<std::string> args, const stdfs::path& cwd) {
    args.insert(args.begin(), sf::test::binary().string());
    sf::process::Command c{args, cwd, sf::process::current_env(), {}, {}, {}};
    auto r = sf::process::capture(c);
    REQUIRE(r);
    return {r->exit_code, r->err, r->out};
}

using sf::test::last_line;

struct RecipeCase {
    std::string name, meta, config, message;
};

std::vector<RecipeCase> recipe_cases() {
    const std::string head = "package:\n  name: ok\n  version: 1.0\n";
    return {
        {"package name with ../", "package:\n  name: ../../evil\n  version: 1.0\n", "",
         "invalid package name '../../evil'"},
        {"package name from Jinja with ../", "{% set n = '../../evil' %}\npackage:\n  name: {{ n }}\n  version: 1.0\n", "",
         "invalid package name '../../evil'"},
        {"version with ../", "package:\n  name: ok\n  version: ../../1\n", "", "ok: invalid version '../../1'"},
        {"build string from a variant value with ../",
         head + "build:\n  string: '{{ evil }}'\nrequirements:\n  host:\n    - evil\n", "evil:\n  - ../../../outside/x\n",
         "ok: invalid build string '../../../outside/x'"},
        {"output name with ../", head + "outputs:\n  - name: ../../evil\n", "", "invalid package name '../../evil'"},
        {"recursive alias", head + "extra: &e {a: *e}\n", "", "recursive YAML alias"},
        {"alias bomb", head + [] {
             // 10^7 leaves from 7 lines (flow maps: a line ending in ']' is a selector).
             std::string s = "extra:\n  l0: &l0 {a: x, b: x, c: x, d: x, e: x, f: x, g: x, h: x, i: x, j: x}\n";
             for (int i = 1; i < 7; ++i) {
                 std::string prev = "*l" + std::to_string(i - 1);
                 s += "  l" + std::to_string(i) + ": &l" + std::to_string(i) + " {";
                 for (char k = 'a'; k <= 'j'; ++k) s += std::string(k == 'a' ? "" : ", ") + k + ": " + prev;
                 s += "}\n";
             }
             return s;
         }(),
         "", "YAML expands to more than 1000000 nodes"},
        {"variant matrix bomb", head,
         [] {
             std::string s;
             for (int k = 0; k < 4; ++k) {
                 s += "k" + std::to_string(k) + ":\n";
                 for (int v = 0; v < 200; ++v) s += "  - '" + std::to_string(v) + "'\n";
             }
             return s;
         }(),
         "the variant matrix has 1600000000 combinations (k0: 200 x k1: 200 x k2: 200 x k3: 200), more than the limit of 10000"},
    };
}

}  // namespace

TEST_CASE("security: hostile recipes fail in render lint and build before touching the disk", "[security]") {
    for (const auto& c : recipe_cases()) {
        SECTION(c.name) {
            sf::fs::TempDir tmp("sf-sec-recipe");
            stdfs::path recipe = tmp.path() / "work/deep/recipe", out = tmp.path() / "work/deep/out";
            stdfs::create_directories(recipe);
            std::ofstream(recipe / "meta.yaml") << c.meta;
            if (!c.config.empty()) std::ofstream(recipe / "conda_build_config.yaml") << c.config;
            std::ofstream(recipe / "build.sh") << "echo hi\n";
            auto before = scan(tmp.path());
            for (std::vector<std::string> args :
                 {std::vector<std::string>{"render", recipe.string(), "--platform", "linux-64"},
                  {"build", recipe.string(), "--output-folder", out.string(), "-q"},
                  {"lint", recipe.string()}}) {
                INFO(args[0]);
                Run r = run(args, tmp.path());
                INFO(r.err);
                CHECK(r.rc != 0);
                // lint prints its findings on stdout and a summary on stderr.
                std::string line = args[0] == "lint" ? r.out : last_line(r.err);
                CHECK(line.find(c.message) != std::string::npos);
                CHECK(line.find('\n') == line.rfind('\n'));
                CHECK(r.err.find("internal error") == std::string::npos);
            }
            // Nothing was created anywhere (the output folder included).
            CHECK(scan(tmp.path()) == before);
        }
    }
}

TEST_CASE("security: a FIFO or a device as meta.yaml is refused without blocking", "[security]") {
    sf::fs::TempDir tmp("sf-sec-fifo");
    for (std::string kind : {"fifo", "dev-zero"}) {
        SECTION(kind) {
            stdfs::path recipe = tmp.path() / kind;
            stdfs::create_directories(recipe);
            if (kind == "fifo") REQUIRE(::mkfifo((recipe / "meta.yaml").c_str(), 0644) == 0);
            else stdfs::create_symlink("/dev/zero", recipe / "meta.yaml");
            Run r = run({"render", recipe.string(), "--platform", "linux-64"}, tmp.path());
            CHECK(r.rc != 0);
            std::string what = kind == "fifo" ? "a FIFO" : "a character device";
            CHECK(last_line(r.err) == "splitforge: error: " + (recipe / "meta.yaml").string() + ": " + what +
                                          ", not a regular file (splitforge reads only plain files)");
        }
    }
}

TEST_CASE("security: a meta.yaml over 10 MiB is refused", "[security]") {
    sf::fs::TempDir tmp("sf-sec-big");
    stdfs::path recipe = tmp.path() / "r";
    stdfs::create_directories(recipe);
    {
        std::ofstream f(recipe / "meta.yaml");
        f << "package:\n  name: ok\n  version: 1.0\n";
        f << "# " << std::string(11u << 20, 'x') << "\n";
    }
    Run r = run({"render", recipe.string(), "--platform", "linux-64"}, tmp.path());
    CHECK(r.rc != 0);
    CHECK(last_line(r.err) == "splitforge: error: " + (recipe / "meta.yaml").string() +
                                  ": file is larger than 10 MiB (recipes and configs are limited to 10 MiB)");
}

TEST_CASE("security: --platform must be a known subdir", "[security]") {
    sf::fs::TempDir tmp("sf-sec-platform");
    stdfs::path recipe = tmp.path() / "r";
    stdfs::create_directories(recipe);
    std::ofstream(recipe / "meta.yaml") << "package:\n  name: ok\n  version: 1.0\n";
    for (std::string cmd : {"render", "lint"}) {
        SECTION(cmd) {
            std::vector<std::string> args{cmd, recipe.string(), "--platform", "../../etc"};
            Run r = run(args, tmp.path());
            CHECK(r.rc != 0);
            CHECK((last_line(r.err) + r.out).find("unknown platform '../../etc'") != std::string::npos);
            CHECK_FALSE(stdfs::exists(tmp.path() / "out"));
        }
    }
}
