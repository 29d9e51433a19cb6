// Small cases, each pinning one conda-build behaviour (tests/data/render/
// golden/CASES.md): expected files from the reference conda-build 24.11.2,
// made by scripts/peer-golden.sh, never by hand.
#include <catch2/catch.hpp>

#include <cstdlib>
#include <fstream>
#include <optional>

#include "golden_compare.hpp"
#include "render/render.hpp"
#include "util/strings.hpp"

using namespace sf;
namespace stdfs = std::filesystem;

namespace {

// Environment variables a case sets while it renders (its `env` file).
class ScopedEnv {
public:
    explicit ScopedEnv(const stdfs::path& file) {
        std::ifstream in(file);
        for (std::string line; std::getline(in, line);) {
            auto eq = line.find('=');
            if (eq == std::string::npos) continue;
            names_.push_back(line.substr(0, eq));
            ::setenv(names_.back().c_str(), line.substr(eq + 1).c_str(), 1);
        }
    }
    ~ScopedEnv() {
        for (const auto& n : names_) ::unsetenv(n.c_str());
    }

private:
    std::vector<std::string> names_;
};

// The expected results come from a scrubbed environment (scripts/peer-golden.sh
// runs env -i); a variable the build environment reads, such as CI's
// CPU_COUNT, is taken away while the cases render.
class WithoutEnv {
public:
    explicit WithoutEnv(std::vector<std::string> names) {
        for (auto& n : names) {
            const char* v = std::getenv(n.c_str());
            saved_.emplace_back(n, v ? std::optional<std::string>(v) : std::nullopt);
            ::unsetenv(n.c_str());
        }
    }
    ~WithoutEnv() {
        for (const auto& [n, v] : saved_)
            if (v) ::setenv(n.c_str(), v->c_str(), 1);
    }

private:
    std::vector<std::pair<std::string, std::optional<std::string>>> saved_;
};

// Where we differ from conda-build on purpose, and why.
const std::map<std::string, std::string> kDeliberate = {
    {"jinja-build-env-paths",
     "conda-build's PREFIX, BUILD_PREFIX and SRC_DIR are paths of its build folder, made of the time of day; we render "
     "them as $PREFIX, $BUILD_PREFIX and $SRC_DIR, which expand to the real paths where scripts and tests run"},
};

}  // namespace

TEST_CASE("golden-local: small cases render as conda-build renders them") {
    auto root = test::data_dir() / "render" / "golden";
    std::vector<stdfs::path> dirs;
    for (const auto& d : stdfs::directory_iterator(root))
        if (d.is_directory()) dirs.push_back(d.path());
    std::sort(dirs.begin(), dirs.end());
    REQUIRE(dirs.size() >= 30);
    WithoutEnv scrubbed({"CPU_COUNT"});
    for (const auto& dir : dirs) {
        std::string name = dir.filename().string();
        ScopedEnv env(dir / "env");
        std::vector<stdfs::path> m, e;
        if (stdfs::exists(dir / "variants.yaml")) m.push_back(dir / "variants.yaml");
        if (stdfs::exists(dir / "pinning.yaml")) e.push_back(dir / "pinning.yaml");
        auto sel = variant::select("linux-64", m, {}, e);
        REQUIRE(sel);
        auto rr = render::render_dir(dir / "recipe", *sel);
        std::string diff;
        if (!rr) {
            diff = rr.error().str();
        } else {
            diff = test::diff_builds(*rr, test::slurp(dir / "expected.builds.tsv"));
            diff += test::diff_packages(*rr, dir / "expected.requirements.json", dir / "expected.hash.json");
        }
        INFO(name << "\n" << diff);
        if (kDeliberate.count(name)) {
            INFO("a deliberate difference that no longer shows: " << kDeliberate.at(name));
            CHECK_FALSE(diff.empty());
        } else {
            CHECK(diff.empty());
        }
    }
}

TEST_CASE("golden-local: a computed build string no package may carry renders with a warning") {
    auto dir = test::data_dir() / "render" / "golden" / "build-string-prefix-from-spec";
    auto sel = variant::select("linux-64", {dir / "variants.yaml"}, {}, {});
    REQUIRE(sel);
    auto rr = render::render_dir(dir / "recipe", *sel);
    REQUIRE(rr);
    REQUIRE(rr->outputs.size() == 1);
    const auto& o = rr->outputs.front();
    CHECK(o.build_string.rfind("py>=314pl5*h", 0) == 0);
    CHECK(o.unbuildable.find("no package may carry build string 'py>=314pl5*h") == 0);
    REQUIRE(rr->warnings.size() == 1);
    CHECK(rr->warnings.front().message.find("invalid build string") != std::string::npos);
    sel->strict = true;
    auto strict = render::render_dir(dir / "recipe", *sel);
    REQUIRE_FALSE(strict);
    CHECK(strict.error().message.find("prefix-spec: invalid build string 'py>=314pl5*h") == 0);
}
