// Hostile git repositories and git fields. A checkout's .git/config (and what
// it includes) names programs git would run: core.fsmonitor, hooks,
// core.sshCommand, pagers, credential helpers, filters. `submodules
// --source`, a git_url source, and rerender/lint on a feedstock that is a git
// work tree must run none of them, each giving what its benign twin (the
// same repository without that config) gives. A revision or URL from a
// recipe is never an option nor a transport helper.
#include <catch2/catch.hpp>

#include <fstream>

#include "process/git.hpp"
#include "process/process.hpp"
#include "source/source.hpp"
#include "testproc.hpp"
#include "testskip.hpp"
#include "testutil.hpp"
#include "util/fs.hpp"
#include "util/strings.hpp"

namespace stdfs = std::filesystem;
using sf::test::slurp;

namespace {

void need_git() {
    if (!sf::test::have_tool("git")) sf::test::skip("git is not on PATH");
}

void write(const stdfs::path& p, const std::string& text) {
    stdfs::create_directories(p.parent_path());
    std::ofstream(p) << text;
}

// Makes, under `dir`: up/ (a repository tagged v1.2), repo/ (a work tree
// with up as its submodule third_party/up, tagged v0.1, a .gitattributes
// naming a filter, a recipe/meta.yaml), each committed with fixed dates.
const char* kFixture = R"(set -euo pipefail
d=$1
export GIT_CONFIG_GLOBAL=/dev/null GIT_CONFIG_NOSYSTEM=1 GIT_TERMINAL_PROMPT=0
export GIT_AUTHOR_NAME=t GIT_AUTHOR_EMAIL=t@example.invalid GIT_COMMITTER_NAME=t GIT_COMMITTER_EMAIL=t@example.invalid
export GIT_AUTHOR_DATE=2024-01-01T00:00:00+00:00 GIT_COMMITTER_DATE=2024-01-01T00:00:00+00:00
g() { git -c protocol.file.allow=always -c init.defaultBranch=main -c commit.gpgSign=false "$@"; }
g init -q "$d/up"; echo up > "$d/up/README"; echo '* filter=evil' > "$d/up/.gitattributes"
g -C "$d/up" add -A; g -C "$d/up" commit -qm up; g -C "$d/up" tag v1.2; g -C "$d/up" branch -q feature
g init -q "$d/repo"; echo top > "$d/repo/README"; echo '* filter=evil' > "$d/repo/.gitattributes"
mkdir -p "$d/repo/recipe"
printf 'package:\n  name: gitwt\n  version: 1.0\nbuild:\n  number: 0\nabout:\n  license: MIT\n' > "$d/repo/recipe/meta.yaml"
g -C "$d/repo" add -A; g -C "$d/repo" submodule add -q "$d/up" third_party/up
g -C "$d/repo" commit -qm top; g -C "$d/repo" tag v0.1
)";

// Config that runs `touch OUT/<what>` for every program-running key our git
// calls could meet, directly and through include and includeIf.
// `touch` by its path: a test may give git a PATH that holds only git.
std::string touch() {
    auto t = sf::process::find_executable("touch", sf::process::current_env()["PATH"]);
    return t ? t->string() : "touch";
}

std::string hostile_config(const stdfs::path& out, const stdfs::path& extra) {
    auto t = [&](const std::string& what) { return "\"" + touch() + " " + (out / what).string() + "; false\""; };
    auto bang = [&](const std::string& what) { return "\"!" + touch() + " " + (out / what).string() + "\""; };
    return "[core]\n\tfsmonitor = " + t("fsmonitor") +                   //
           "\n\thooksPath = " + (extra / "hooks").string() +              //
           "\n\tsshCommand = " + t("sshCommand") +                        //
           "\n\tpager = " + t("pager") +                                  //
           "\n\taskPass = " + t("askPass") +                              //
           "\n\teditor = " + t("editor") +                                //
           "\n[diff]\n\texternal = " + (extra / "hooks/diff-external").string() +
           "\n[credential]\n\thelper = " + bang("credential") +          //
           "\n[alias]\n\tdescribe = " + bang("alias") +                  //
           "\n[include]\n\tpath = " + (extra / "include.cfg").string() +  //
           "\n[includeIf \"gitdir:/\"]\n\tpath = " + (extra / "includeif.cfg").string() + "\n";
}

void make_hostile_extras(const stdfs::path& out, const stdfs::path& extra) {
    auto t = [&](const std::string& what) { return "\"" + touch() + " " + (out / what).string() + "; false\""; };
    write(extra / "include.cfg", "[core]\n\tfsmonitor = " + t("fsmonitor-include") + "\n[pager]\n\tdescribe = " +
                                     t("pager-describe") + "\n\tstatus = " + t("pager-status") +
                                     "\n[uploadpack]\n\tpackObjectsHook = " + t("packObjectsHook") +
                                     "\n[protocol \"ext\"]\n\tallow = always\n");
    write(extra / "includeif.cfg", "[core]\n\thooksPath = " + (extra / "hooks").string() + "\n\tsshCommand = " +
                                       t("sshCommand-includeif") + "\n[filter \"evil\"]\n\tclean = " + t("filter-clean") +
                                       "\n\tsmudge = " + t("filter-smudge") + "\n\tprocess = " + t("filter-process") +
                                       "\n\trequired = false\n[diff]\n\texternal = " +
                                       (extra / "hooks/diff-external").string() + "\n");
    for (const char* h : {"post-checkout", "post-merge", "pre-commit", "post-commit", "reference-transaction",
                          "post-index-change", "pre-auto-gc", "post-rewrite", "fsmonitor-watchman", "diff-external",
                          "push-to-checkout", "pre-push"}) {
        write(extra / "hooks" / h, "#!/bin/sh\n" + touch() + " " + (out / (std::string("hook-") + h)).string() + "\n");
        stdfs::permissions(extra / "hooks" / h, stdfs::perms::owner_all, stdfs::perm_options::add);
    }
}

// Every repository config of the fixture (the submodule's own included).
std::vector<stdfs::path> configs(const stdfs::path& d) {
    return {d / "up/.git/config", d / "repo/.git/config", d / "repo/.git/modules/third_party/up/config"};
}

struct Fixture {
    sf::fs::TempDir tmp{"sf-sec-git"};
    stdfs::path out = tmp.path() / "markers", extra = tmp.path() / "extra";
    stdfs::path benign = tmp.path() / "benign", hostile = tmp.path() / "hostile";
    Fixture() {
        stdfs::create_directories(out);
        write(tmp.path() / "fixture.sh", kFixture);
        for (const auto& d : {benign, hostile}) sf::test::run_ok({"bash", (tmp.path() / "fixture.sh").string(), d.string()});
        make_hostile_extras(out, extra);
        for (const auto& c : configs(hostile)) {
            std::ofstream(c, std::ios::app) << hostile_config(out, extra);
            // The repository's own hooks dir too (core.hooksPath would name it otherwise).
            stdfs::copy(extra / "hooks", c.parent_path() / "hooks",
                       stdfs::copy_options::recursive | stdfs::copy_options::overwrite_existing);
        }
    }
    std::vector<std::string> markers() const {
        std::vector<std::string> m;
        for (const auto& e : stdfs::directory_iterator(out)) m.push_back(e.path().filename().string());
        return m;
    }
    // `s` with the hostile tree's path written as the benign one's.
    std::string as_benign(std::string s) const { return sf::str::replace_all(s, hostile.string(), benign.string()); }
};

using Run = sf::test::Ran;
const auto sf_run = sf::test::run_splitforge;

sf::source::SourceContext source_ctx(const stdfs::path& root) {
    sf::source::SourceContext c;
    c.work_dir = root / "work";
    c.recipe_dir = root / "recipe";
    c.cache_dir = root / "cache";
    c.env = {{"PATH", "/usr/bin:/bin"}, {"HOME", "/nonexistent-home"}};
    stdfs::create_directories(c.recipe_dir);
    return c;
}

}  // namespace

TEST_CASE("security: a hostile checkout config runs nothing for `submodules --source`", "[security][git]") {
    need_git();
    Fixture f;
    Run good = sf_run({"submodules", "--source", (f.benign / "repo").string(), "--json"}, f.tmp.path());
    Run bad = sf_run({"submodules", "--source", (f.hostile / "repo").string(), "--json"}, f.tmp.path());
    INFO(good.err << bad.err);
    CHECK(good.rc == 0);
    CHECK(bad.rc == good.rc);
    CHECK(good.out.find("v1.2") != std::string::npos);
    CHECK(f.as_benign(bad.out) == good.out);
    CHECK(f.markers() == std::vector<std::string>{});
}

TEST_CASE("security: a git_url source from a hostile repository runs nothing", "[security][git]") {
    need_git();
    Fixture f;
    for (std::string rev : {"", "v1.2", "feature"}) {
        DYNAMIC_SECTION("rev '" << rev << "'") {
            std::vector<std::string> readme;
            for (const auto& d : {f.benign, f.hostile}) {
                auto area = f.tmp.path() / ("fetch-" + d.filename().string() + rev);
                sf::types::Source s;
                s.git_url = (d / "up").string();
                s.git_rev = rev;
                auto r = sf::source::fetch_source(s, source_ctx(area));
                INFO((r ? std::string() : r.error().str()));
                REQUIRE(r);
                readme.push_back(slurp(area / "work/README"));
            }
            CHECK(readme == std::vector<std::string>{"up\n", "up\n"});
            CHECK(f.markers() == std::vector<std::string>{});
        }
    }
}

TEST_CASE("security: patches applied with git to a path source with a hostile .git run nothing", "[security][git]") {
    need_git();
    Fixture f;
    // A PATH with git and no `patch`: the patches go through `git apply`.
    auto bin = f.tmp.path() / "bin";
    stdfs::create_directories(bin);
    auto git = sf::process::find_executable("git", sf::process::current_env()["PATH"]);
    REQUIRE(git);
    stdfs::create_symlink(*git, bin / "git");
    std::vector<std::string> readme;
    for (const auto& d : {f.benign, f.hostile}) {
        auto area = f.tmp.path() / ("patch-" + d.filename().string());
        auto ctx = source_ctx(area);
        ctx.env["PATH"] = bin.string();
        write(ctx.recipe_dir / "fix.patch", "--- a/README\n+++ b/README\n@@ -1 +1,2 @@\n up\n+patched\n");
        sf::types::Source s;
        s.path = (d / "up").string();  // copied with its .git, config and .gitattributes
        s.patches = {"fix.patch"};
        auto r = sf::source::fetch_source(s, ctx);
        INFO((r ? std::string() : r.error().str()));
        REQUIRE(r);
        readme.push_back(slurp(area / "work/README"));
    }
    CHECK(readme == std::vector<std::string>{"up\npatched\n", "up\npatched\n"});
    CHECK(f.markers() == std::vector<std::string>{});
}

TEST_CASE("security: rerender and lint of a feedstock that is a hostile git work tree run nothing", "[security][git]") {
    need_git();
    Fixture f;
    std::vector<Run> runs;
    for (const auto& d : {f.benign, f.hostile}) {
        auto recipe = (d / "repo/recipe").string();
        runs.push_back(sf_run({"lint", recipe, "--platform", "linux-64"}, d / "repo"));
        runs.push_back(sf_run({"rerender", recipe, "--platform", "linux-64", "--variants-dir",
                               (d / "repo/variants").string()}, d / "repo"));
    }
    for (size_t i = 0; i < 2; ++i) {
        INFO(runs[i].err << runs[i + 2].err);
        CHECK(runs[i].rc == 0);
        CHECK(runs[i + 2].rc == runs[i].rc);
        CHECK(f.as_benign(runs[i + 2].out) == runs[i].out);
    }
    CHECK(f.markers() == std::vector<std::string>{});
}

TEST_CASE("security: every git call carries the fixed configuration", "[security][git]") {
    sf::process::GitCall call{{"clone", "--quiet"}, {"https://example.invalid/r.git", "dest"}};
    call.env = {{"PATH", "/usr/bin"}, {"GIT_DIR", "/elsewhere"}, {"GIT_SSH_COMMAND", "evil"},
                {"GIT_CONFIG_PARAMETERS", "'core.fsmonitor'='evil'"}, {"SSH_ASKPASS", "evil"}};
    auto c = sf::process::git_command(call);
    REQUIRE(c);
    auto has = [&](const std::string& kv) {
        for (size_t i = 0; i + 1 < c->argv.size(); ++i)
            if (c->argv[i] == "-c" && c->argv[i + 1] == kv) return true;
        return false;
    };
    for (const char* kv : {"core.fsmonitor=false", "core.hooksPath=/dev/null", "protocol.ext.allow=never",
                           "protocol.file.allow=user", "core.sshCommand=ssh", "credential.helper="})
        CHECK(has(kv));
    CHECK(c->argv[1] == "--no-pager");
    CHECK(c->argv[c->argv.size() - 3] == "--end-of-options");
    CHECK(c->env == sf::process::Env{{"PATH", "/usr/bin"},
                                     {"GIT_CONFIG_NOSYSTEM", "1"},
                                     {"GIT_CONFIG_GLOBAL", "/dev/null"},
                                     {"GIT_TERMINAL_PROMPT", "0"},
                                     {"GIT_PAGER", "cat"},
                                     {"LC_ALL", "C"}});
    call.operands = {"--upload-pack=touch /tmp/x"};
    auto bad = sf::process::git_command(call);
    REQUIRE_FALSE(bad);
    CHECK(bad.error().message == "git operand '--upload-pack=touch /tmp/x' is empty or starts with '-'");
}

namespace {

struct FieldCase {
    std::string name, recipe_file, text, message;
    int line;
};

std::vector<FieldCase> field_cases(const std::string& good_rev, const std::string& good_url) {
    auto meta = [](const std::string& src) {
        return "package:\n  name: g\n  version: 1.0\nsource:\n" + src + "build:\n  number: 0\n";
    };
    auto v1 = [](const std::string& src) {
        return "schema_version: 1\npackage:\n  name: g\n  version: 1.0\nsource:\n" + src + "build:\n  number: 0\n";
    };
    const std::string url = "  git_url: " + good_url + "\n";
    return {
        {"git_rev", "meta.yaml", meta(url + "  git_rev: " + good_rev + "\n"), "git_rev '--orphan=x' starts with '-'", 6},
        {"git_tag", "meta.yaml", meta(url + "  git_tag: " + good_rev + "\n"), "git_tag '--orphan=x' starts with '-'", 6},
        {"git_branch in a list", "meta.yaml", meta("  - url: https://example.invalid/a.tar.gz\n    sha256: " +
                                                   std::string(64, '0') + "\n  - git_url: " + good_url +
                                                   "\n    folder: b\n    git_branch: " + good_rev + "\n"),
         "git_branch '--orphan=x' starts with '-'", 9},
        {"git_url ext::", "meta.yaml", meta("  git_url: " + good_url + "\n"),
         "names the git transport helper 'ext::', which runs a program", 5},
        {"recipe.yaml rev", "recipe.yaml", v1("  git: " + good_url + "\n  rev: " + good_rev + "\n"),
         "rev '--orphan=x' starts with '-'", 7},
        {"recipe.yaml tag", "recipe.yaml", v1("  git: " + good_url + "\n  tag: " + good_rev + "\n"),
         "tag '--orphan=x' starts with '-'", 7},
        {"recipe.yaml git -", "recipe.yaml", v1("  git: " + good_url + "\n  branch: main\n"),
         "git '--upload-pack=touch x' starts with '-'", 6},
    };
}

}  // namespace

TEST_CASE("security: git revisions and URLs from a recipe are never options or transport helpers", "[security][git]") {
    auto good = field_cases("v1.2", "https://example.invalid/r.git");
    auto bad = field_cases("--orphan=x", "https://example.invalid/r.git");
    bad[3] = field_cases("v1.2", "'ext::sh -c touch% /tmp/sf-ext-marker'")[3];
    bad[6] = field_cases("v1.2", "'--upload-pack=touch x'")[6];
    for (size_t i = 0; i < bad.size(); ++i) {
        DYNAMIC_SECTION(bad[i].name) {
            sf::fs::TempDir tmp("sf-sec-gitfield");
            for (int hostile = 0; hostile < 2; ++hostile) {
                auto dir = tmp.path() / (hostile ? "bad" : "good");
                const auto& c = hostile ? bad[i] : good[i];
                write(dir / c.recipe_file, c.text);
                Run r = sf_run({"render", dir.string(), "--platform", "linux-64"}, tmp.path());
                INFO(c.text << r.err);
                if (!hostile) {
                    CHECK(r.rc == 0);
                    continue;
                }
                CHECK(r.rc == 2);
                auto lines = sf::str::split_lines(sf::str::trim(r.err));
                REQUIRE(lines.size() == 1);
                CHECK(lines[0].find((dir / c.recipe_file).string() + ":" + std::to_string(c.line) + ":") !=
                      std::string::npos);
                CHECK(lines[0].find(c.message) != std::string::npos);
            }
        }
    }
}

TEST_CASE("security: a git source fetch refuses an option as revision or URL, and a transport helper", "[security][git]") {
    need_git();
    Fixture f;
    auto fetch = [&](const std::string& url, const std::string& rev, const std::string& area) {
        sf::types::Source s;
        s.git_url = url;
        s.git_rev = rev;
        return sf::source::fetch_source(s, source_ctx(f.tmp.path() / area));
    };
    const std::string up = (f.benign / "up").string();
    REQUIRE(fetch(up, "v1.2", "good"));  // the twin
    auto orphan = fetch(up, "--orphan=x", "orphan");
    REQUIRE_FALSE(orphan);
    CHECK(orphan.error().message == "git_rev '--orphan=x' starts with '-', which git would read as an option");
    auto ext = fetch("ext::sh -c touch% " + (f.out / "ext").string(), "", "ext");
    REQUIRE_FALSE(ext);
    CHECK(ext.error().message.find("names the git transport helper 'ext::'") != std::string::npos);
    auto fd = fetch("fd::3", "", "fd");
    REQUIRE_FALSE(fd);
    auto opt = fetch("--upload-pack=touch " + (f.out / "upload-pack").string(), "", "opt");
    REQUIRE_FALSE(opt);
    CHECK(f.markers() == std::vector<std::string>{});
}
