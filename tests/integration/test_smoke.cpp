// `splitforge smoke`: what was published, installed from where it was
// published (a channel served by nginx here) into a fresh prefix, then the
// smoke test run by the installed python. The pip-index side is in
// test_wheel.cpp, next to the wheels it installs.
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "nginx.hpp"
#include "security/craft.hpp"
#include "testproc.hpp"
#include "util/fs.hpp"

using namespace sf;
namespace stdfs = std::filesystem;
namespace craft = sf::test::craft;

namespace {

// A channel with `pyshim` (bin/python: the host's python3) and `answer`
// (share/answer.txt), which needs it.
stdfs::path make_channel(const stdfs::path& root) {
    auto py = process::find_executable("python3", process::current_env()["PATH"]);
    REQUIRE(py);
    craft::Pkg shim = craft::pkg_with("pyshim", {{"bin/python", 'f', "#!/bin/sh\nexec " + py->string() + " \"$@\"\n", "", 0755}});
    craft::Pkg answer = craft::pkg_with("answer", {{"share/answer.txt", 'f', "42\n"}}, {"pyshim"});
    return craft::write_channel(root / "ch", {shim, answer});
}

// Reads the installed file from the fresh prefix (the test runs in its parent).
stdfs::path write_script(const stdfs::path& dir) {
    const auto p = dir / "smoke_test.py";
    std::ofstream(p) << "import sys\n"
                        "got = open('prefix/share/answer.txt').read().strip()\n"
                        "if got != sys.argv[1]:\n"
                        "    print('wrong answer', got)\n"
                        "    sys.exit(3)\n"
                        "print('answer', got)\n";
    return p;
}

// The crafted channel served by nginx, the smoke test, a package cache, and
// `splitforge smoke --channel <served>/CH SPEC --script S --pkgs-dir P EXTRA...`.
struct Served {
    fs::TempDir tmp{"sf-smoke"};
    test::Nginx web{tmp.path()};  // before anything is written: it skips where nginx is missing
    stdfs::path script;
    std::string pkgs = (tmp.path() / "pkgs").string();
    Served() {
        make_channel(tmp.path());
        script = write_script(tmp.path());
    }
    test::Ran smoke(const std::string& ch, const std::string& spec, std::vector<std::string> extra = {}) const {
        std::vector<std::string> args = {"smoke", "--channel", web.url(ch), spec, "--script", script.string(),
                                         "--pkgs-dir", pkgs};
        args.insert(args.end(), extra.begin(), extra.end());
        return test::run_splitforge(args);
    }
};

}  // namespace

TEST_CASE("smoke --channel: installs from the served channel into a fresh prefix and runs the smoke test", "[smoke]") {
    const Served s;
    const auto& tmp = s.tmp;
    const auto& web = s.web;
    const auto& script = s.script;
    auto ok = s.smoke("/ch", "answer", {"--arg", "42", "--json"});
    INFO(ok.err);
    REQUIRE(ok.rc == 0);
    auto j = nlohmann::json::parse(ok.out);
    CHECK(j["passed"] == true);
    CHECK(j["installed"].size() == 2);
    CHECK(ok.err.find("answer 42") != std::string::npos);  // the script's own output, streamed

    auto wrong = s.smoke("/ch", "answer", {"--arg", "41"});
    CHECK(wrong.rc == 1);
    CHECK(test::last_line(wrong.err).find("smoke test " + script.string() + " failed (exit 3)") != std::string::npos);

    // Kept where asked: the prefix is there afterwards, and a directory that exists is refused.
    const auto kept = tmp.path() / "kept";
    auto keep = s.smoke("/ch", "answer", {"--arg", "42", "--work-dir", kept.string()});
    CHECK(keep.rc == 0);
    CHECK(stdfs::is_regular_file(kept / "prefix/share/answer.txt"));
    auto again = s.smoke("/ch", "answer", {"--arg", "42", "--work-dir", kept.string()});
    CHECK(again.rc == 2);
}

TEST_CASE("smoke: nothing to install, no bin/python, no script, or no place is one line", "[smoke]") {
    const Served s;
    const auto& tmp = s.tmp;
    const auto& web = s.web;
    const auto& script = s.script;
    auto missing = s.smoke("/ch", "nosuchpkg");
    CHECK(missing.rc == 1);
    CHECK(test::last_line(missing.err).find("nosuchpkg") != std::string::npos);
    CHECK(missing.err.find("Traceback") == std::string::npos);

    // pyshim alone has bin/python; a channel without it cannot run the script.
    craft::Pkg lone = craft::pkg_with("lone", {{"share/lone.txt", 'f', "x"}});
    craft::write_channel(tmp.path() / "ch2", {lone});
    auto nopy = s.smoke("/ch2", "lone");
    CHECK(nopy.rc == 1);
    CHECK(test::last_line(nopy.err).find("installed no bin/python") != std::string::npos);

    auto noscript = test::run_splitforge({"smoke", "--channel", web.url("/ch"), "answer", "--script",
                                          (tmp.path() / "none.py").string()}, tmp.path());
    CHECK(noscript.rc == 2);
    CHECK(test::last_line(noscript.err).find("none.py not found") != std::string::npos);
    auto noplace = test::run_splitforge({"smoke", "answer", "--script", script.string()});
    CHECK(noplace.rc == 2);
    CHECK(test::last_line(noplace.err).find("give --channel URL or --index URL") != std::string::npos);
    auto both = test::run_splitforge({"smoke", "--channel", web.url("/ch"), "--index", web.url("/simple"), "answer"});
    CHECK(both.rc == 2);
}
