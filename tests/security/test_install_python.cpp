// The installer's Python cases: a noarch: python entry point (or any file)
// that replaces another package's file, or a file in the prefix no package
// owns (a venv's bin/python), warns as conda's clobber check does; a python
// record's python_site_packages_path (CEP 17) places noarch: python files
// when it stays inside the prefix, and is refused when it does not. Each
// case has its benign twin.
#include <catch2/catch.hpp>

#include <fstream>

#include "craft.hpp"
#include "env/install.hpp"
#include "testutil.hpp"
#include "util/fs.hpp"

using namespace sf::test::craft;
using sf::env::install;
using sf::env::InstallOptions;

namespace {

struct Site {
    sf::fs::TempDir tmp{"sf-sec-py"};
    stdfs::path root = tmp.path(), outside = root / "outside", files = root / "files", prefix = root / "prefix";
    Site() { stdfs::create_directories(outside); }
    InstallOptions opts() const {
        InstallOptions o;
        o.pkgs_dir = root / "pkgs";
        o.platform = *sf::types::Platform::parse("linux-64");
        return o;
    }
    std::string write(const Pkg& p) const { return write_pkg(files, p).string(); }
};

Pkg python(std::function<void(json&)> edit = nullptr) {
    Pkg p;
    p.name = "python";
    p.version = "3.12.1";
    p.members = {{"bin/python", 'f', "#!/bin/sh\n", "", 0755}, {"lib/python3.12/os.py", 'f', "\n"}};
    p.edit_index = std::move(edit);
    return p;
}

// noarch: python, with one module and the given entry point.
Pkg noarch(const std::string& entry_point) {
    Pkg p;
    p.name = "evil";
    p.depends = {"python"};
    json link = {{"noarch", {{"type", "python"}, {"entry_points", {entry_point}}}}, {"package_metadata_version", 1}};
    p.members = {{"site-packages/evil/__init__.py", 'f', "def main():\n    return 0\n"},
                 {"info/link.json", 'f', link.dump(), "", 0644, false}};
    p.edit_index = [](json& j) {
        j["noarch"] = "python";
        j["subdir"] = "noarch";
        j.erase("platform");
        j.erase("arch");
    };
    return p;
}

std::vector<std::string> clobber_lines(const sf::env::InstallResult& r) {
    std::vector<std::string> out;
    for (const auto& w : r.warnings)
        if (w.rfind("clobber: ", 0) == 0) out.push_back(w);
    return out;
}

}  // namespace

TEST_CASE("security: an entry point named python over the python package's bin/python warns", "[security][install]") {
    Site s;
    const std::string py = s.write(python());
    SECTION("the twin: another name clobbers nothing") {
        auto r = install(s.prefix, {py, s.write(noarch("evil-tool = evil:main"))}, s.opts());
        INFO((r ? "" : r.error().str()));
        REQUIRE(r);
        CHECK(clobber_lines(*r).empty());
        CHECK(stdfs::exists(s.prefix / "bin/evil-tool"));
    }
    SECTION("python = evil:main") {
        auto r = install(s.prefix, {py, s.write(noarch("python = evil:main"))}, s.opts());
        INFO((r ? "" : r.error().str()));
        REQUIRE(r);
        REQUIRE(clobber_lines(*r).size() == 1);
        // Which copy wins follows the link order; the warning names both and the winner.
        const std::string w = clobber_lines(*r)[0];
        CHECK(w.rfind("clobber: bin/python is in both ", 0) == 0);
        CHECK(w.find("python-3.12.1-0") != std::string::npos);
        CHECK(w.find("evil-1.0-0") != std::string::npos);
    }
}

TEST_CASE("security: a file over one no package owns (a venv's python) warns", "[security][install]") {
    Site s;
    // A venv's layout, as the system provider makes it: python is met by the prefix.
    stdfs::create_directories(s.prefix / "lib/python3.12/site-packages");
    stdfs::create_directories(s.prefix / "bin");
    std::ofstream(s.prefix / "bin/python3.12") << "#!/bin/sh\n";
    stdfs::create_symlink("python3.12", s.prefix / "bin/python");
    auto o = s.opts();
    o.in_prefix = {"python"};
    SECTION("the twin") {
        auto r = install(s.prefix, {s.write(noarch("evil-tool = evil:main"))}, o);
        INFO((r ? "" : r.error().str()));
        REQUIRE(r);
        CHECK(clobber_lines(*r).empty());
    }
    SECTION("python = evil:main") {
        auto r = install(s.prefix, {s.write(noarch("python = evil:main"))}, o);
        INFO((r ? "" : r.error().str()));
        REQUIRE(r);
        REQUIRE(clobber_lines(*r).size() == 1);
        CHECK(clobber_lines(*r)[0] ==
              "clobber: bin/python is already in the prefix and belongs to no package; evil-1.0-0's copy replaces it");
    }
}

TEST_CASE("security: python_site_packages_path is honoured inside the prefix and refused outside", "[security][install]") {
    Site s;
    const std::string pkg = s.write(noarch("evil-tool = evil:main"));
    SECTION("the twin: no field, lib/python3.12/site-packages") {
        auto r = install(s.prefix, {s.write(python()), pkg}, s.opts());
        INFO((r ? "" : r.error().str()));
        REQUIRE(r);
        CHECK(stdfs::exists(s.prefix / "lib/python3.12/site-packages/evil/__init__.py"));
    }
    SECTION("lib/python3.12t/site-packages") {
        auto py = s.write(python([](json& j) { j["python_site_packages_path"] = "lib/python3.12t/site-packages"; }));
        auto r = install(s.prefix, {py, pkg}, s.opts());
        INFO((r ? "" : r.error().str()));
        REQUIRE(r);
        CHECK(stdfs::exists(s.prefix / "lib/python3.12t/site-packages/evil/__init__.py"));
        CHECK_FALSE(stdfs::exists(s.prefix / "lib/python3.12/site-packages/evil"));
    }
    // Section names stay the same on every run (Catch re-enters the case per section).
    for (std::string bad : {std::string("../outside"), std::string("<absolute>"), std::string("conda-meta/sp"), std::string("")}) {
        DYNAMIC_SECTION("refused: '" << bad << "'") {
            if (bad == "<absolute>") bad = s.outside.string();
            auto py = s.write(python([bad](json& j) { j["python_site_packages_path"] = bad; }));
            auto r = install(s.prefix, {py, pkg}, s.opts());
            REQUIRE_FALSE(r);
            CHECK(r.error().message ==
                  "python-3.12.1-0: python_site_packages_path '" + bad + "' is not a relative path inside the prefix");
            CHECK(scan(s.outside).empty());
            CHECK_FALSE(stdfs::exists(s.prefix / "bin/python"));
        }
    }
}
