// The command line as a whole: every subcommand with --json prints exactly
// one JSON document on stdout; the exit-code rule (0 ok, 1 the job failed,
// 2 usage or input error) for each subcommand; did-you-mean and the
// subcommand's own --help in usage errors; the shared option spellings.
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <fcntl.h>
#include <sys/stat.h>

#include <filesystem>
#include <set>
#include <random>
#include <string>
#include <vector>

#include "process/process.hpp"
#include "testproc.hpp"
#include "testutil.hpp"
#include "util/fs.hpp"
#include "util/strings.hpp"

using namespace sf;
using test::last_line;
namespace stdfs = std::filesystem;

namespace {

using test::sf_run;

// stdout parses as one JSON document.
nlohmann::json json_of(const process::Outcome& o) {
    INFO("stdout: " << o.out << "\nstderr: " << o.err);
    nlohmann::json j;
    REQUIRE_NOTHROW(j = nlohmann::json::parse(o.out));
    return j;
}

std::string engine_recipe(const std::string& name) { return (test::data_dir() / "engine" / name).string(); }

// One channel with sf-ok built into it, shared by the tests below.
struct Channel {
    fs::TempDir tmp{"sf-it-cli"};
    stdfs::path out = tmp.path() / "out";
    stdfs::path pkg = out / "linux-64/sf-ok-1.0.0-0.conda";
    Channel() {
        auto r = sf_run({"build", engine_recipe("ok"), "--output-folder", out.string(), "-q"});
        INFO(r.err);
        REQUIRE(r.exit_code == 0);
        REQUIRE(stdfs::exists(pkg));
    }
};

Channel& channel() {
    static Channel c;
    return c;
}

// A throwaway upstream checkout for `submodules` (needs git).
std::optional<stdfs::path> submodule_fixture(const stdfs::path& dir) {
    process::Command c;
    c.argv = {"bash", (test::data_dir() / "feedstock/submodules/make_fixture.sh").string(), (dir / "fx").string()};
    c.env = process::minimal_env();
    auto r = process::capture(c);
    if (!r || r->exit_code != 0) return std::nullopt;
    return dir / "fx/pytorch";
}

}  // namespace

TEST_CASE("every subcommand prints one JSON document on stdout with --json") {
    auto& ch = channel();
    fs::TempDir tmp("sf-it-cli-json");
    const std::string ok = engine_recipe("ok");
    const std::string cache = (test::data_dir() / "script/CMakeCache.python311.txt").string();
    const std::string rerender_recipe = (test::data_dir() / "feedstock/rerender/perpython/recipe").string();
    const std::string variants = (tmp.path() / "variants").string();
    stdfs::create_directories(tmp.path() / "payload/share");
    REQUIRE(fs::write_file_atomic(tmp.path() / "payload/share/x.txt", "x\n"));

    struct Case {
        std::vector<std::string> args;
        std::string key;  // a key the document must have
    };
    std::vector<Case> cases = {
        {{"render", ok, "--json"}, ""},
        {{"render", ok, "--output", "--json"}, ""},
        {{"variants", ok, "--json"}, ""},
        {{"build", ok, "--dry-run", "--json", "--output-folder", (tmp.path() / "dry").string()}, "stagings"},
        {{"build", ok, "--json", "-q", "--skip-existing", "--output-folder", ch.out.string()}, "outputs"},
        {{"test", ch.pkg.string(), "--json", "-q"}, "results"},
        {{"package", (tmp.path() / "payload").string(), "--name", "x", "--version", "1", "--build", "0", "-o",
          (tmp.path() / "pk").string(), "--json"},
         "files"},
        {{"index", ch.out.string(), "--json"}, "packages"},
        {{"inspect", ch.pkg.string(), "--json"}, ""},
        {{"install", "-p", (tmp.path() / "prefix").string(), "-c", ch.out.string(), "--pkgs-dir",
          (tmp.path() / "pkgs").string(), "sf-ok", "--json"},
         "installed"},
        {{"cmake-cache", "get", cache, "USE_MAGMA", "--json"}, "value"},
        {{"cmake-cache", "set", cache, "USE_MAGMA:BOOL=ON", "--dry-run", "--json"}, "diff"},
        {{"rerender", rerender_recipe, "--variants-dir", variants, "--platform", "linux-64", "--json"}, "jobs"},
        {{"ci-matrix", "--variants-dir", variants, "--json"}, ""},
        {{"lint", rerender_recipe, "--platform", "linux-64", "--variants-dir", variants, "--json"}, "findings"},
    };
    if (auto fx = submodule_fixture(tmp.path())) {
        auto d = test::data_dir() / "feedstock/submodules";
        cases.push_back({{"submodules", "--source", fx->string(), "--recipe", (d / "recipe").string(), "--map",
                          (d / "map.yaml").string(), "--json"},
                         ""});
    }
    for (const auto& c : cases) {
        INFO(str::join(c.args, " "));
        auto r = sf_run(c.args);
        INFO(r.err);
        CHECK(r.exit_code == 0);
        auto j = json_of(r);
        if (!c.key.empty()) CHECK(j.contains(c.key));
    }
    // A failing run still prints one document: the error.
    auto bad = sf_run({"render", (tmp.path() / "nope").string(), "--json"});
    CHECK(bad.exit_code == 2);
    auto j = json_of(bad);
    CHECK(j["ok"] == false);
    CHECK(j["exit_code"] == 2);
    CHECK(j["error"]["message"].get<std::string>().find("recipe directory not found") != std::string::npos);
}

TEST_CASE("exit codes: 0 ok 1 the job failed 2 usage or input error") {
    auto& ch = channel();
    fs::TempDir tmp("sf-it-cli-exit");
    const std::string ok = engine_recipe("ok");
    const std::string missing = (tmp.path() / "missing").string();
    auto code = [](std::vector<std::string> args) {
        auto r = sf_run(args);
        INFO(str::join(args, " ") << "\n" << r.err);
        return r.exit_code;
    };
    // Usage errors: an unknown option on every subcommand.
    for (std::string sub : {"render", "variants", "build", "test", "package", "index", "install", "inspect", "rerender",
                            "ci-matrix", "submodules", "lint"}) {
        INFO(sub);
        CHECK(code({sub, "--no-such-option"}) == 2);
    }
    CHECK(code({"cmake-cache", "get", "--no-such-option"}) == 2);
    CHECK(code({"no-such-command"}) == 2);

    // Input errors: a path that is not there.
    CHECK(code({"render", missing}) == 2);
    CHECK(code({"variants", missing}) == 2);
    CHECK(code({"build", missing}) == 2);
    CHECK(code({"test", missing + ".conda"}) == 2);
    CHECK(code({"package", missing, "--name", "x", "--version", "1", "--build", "0", "-o", missing}) == 2);
    CHECK(code({"index", missing}) == 2);
    CHECK(code({"inspect", missing + ".conda"}) == 2);
    CHECK(code({"install", "-p", (tmp.path() / "p").string(), "-c", missing, "x"}) == 2);
    CHECK(code({"cmake-cache", "get", missing, "X"}) == 2);
    CHECK(code({"rerender", missing}) == 2);
    CHECK(code({"ci-matrix", "--variants-dir", missing}) == 2);
    CHECK(code({"submodules", "--source", tmp.path().string()}) == 2);
    CHECK(code({"lint", missing}) == 2);

    // Success.
    CHECK(code({"render", ok}) == 0);
    CHECK(code({"variants", ok}) == 0);
    CHECK(code({"inspect", ch.pkg.string()}) == 0);
    CHECK(code({"index", ch.out.string()}) == 0);
    CHECK(code({"test", ch.pkg.string(), "-q"}) == 0);

    // The job failed: a build whose test fails, that package's test, an
    // unsatisfiable install, lint errors, rerender --check drift.
    auto out = tmp.path() / "out";
    CHECK(code({"build", engine_recipe("failing_test"), "--output-folder", out.string(), "-q"}) == 1);
    stdfs::path broken;
    for (const auto& e : stdfs::recursive_directory_iterator(out))
        if (str::ends_with(e.path().string(), ".conda")) broken = e.path();
    REQUIRE(!broken.empty());
    CHECK(code({"test", broken.string(), "-q", "-c", out.string()}) == 1);
    CHECK(code({"install", "-p", (tmp.path() / "p").string(), "-c", ch.out.string(), "--pkgs-dir",
                (tmp.path() / "pkgs").string(), "sf-ok >=2"}) == 1);
    CHECK(code({"lint", (test::data_dir() / "feedstock/lint/bad/recipe").string(), "--platform", "linux-64"}) == 1);
    const std::string recipe = (test::data_dir() / "feedstock/rerender/perpython/recipe").string();
    const std::string v = (tmp.path() / "v").string();
    CHECK(code({"rerender", recipe, "--variants-dir", v, "--platform", "linux-64"}) == 0);
    CHECK(code({"rerender", recipe, "--variants-dir", v, "--platform", "linux-64", "--check"}) == 0);
    REQUIRE(fs::write_file_atomic(tmp.path() / "v/stray.yaml", "a: [1]\n"));
    stdfs::remove(*stdfs::directory_iterator(v));
    CHECK(code({"rerender", recipe, "--variants-dir", v, "--platform", "linux-64", "--check"}) == 1);
}

TEST_CASE("a runtime failure in library code (a lock a temp dir) exits 1 with one error line not 2") {
    auto& ch = channel();
    fs::TempDir tmp("sf-it-cli-runtime");
    auto one_error_line = [](const process::Outcome& r) {
        auto lines = str::split_lines(r.err);
        while (!lines.empty() && str::trim(lines.back()).empty()) lines.pop_back();
        CHECK(lines.size() == 1);
        CHECK(str::starts_with(last_line(r.err), "splitforge: error: "));
    };
    SECTION("the channel's lock file cannot be opened (it is a directory)") {
        const stdfs::path chan = tmp.path() / "chan";
        stdfs::create_directories(chan / "linux-64");
        stdfs::create_directories(chan / ".index.lock");
        auto r = sf_run({"index", chan.string()});
        INFO(r.err);
        CHECK(r.exit_code == 1);
        one_error_line(r);
        CHECK(r.err.find("cannot open lock file") != std::string::npos);
        auto j = sf_run({"index", chan.string(), "--json"});
        CHECK(j.exit_code == 1);
        CHECK(json_of(j)["exit_code"] == 1);
    }
    SECTION("the temp dir cannot be made (TMPDIR is a file)") {
        const stdfs::path file = tmp.path() / "not-a-dir";
        REQUIRE(fs::write_file_atomic(file, "x"));
        auto r = sf_run({"test", ch.pkg.string(), "-q"}, {{"TMPDIR", file.string()}});
        INFO(r.err);
        CHECK(r.exit_code == 1);
        one_error_line(r);
        CHECK(r.err.find("cannot create temp dir") != std::string::npos);
    }
    SECTION("a returned write error: package cannot make its output folder (a file is in the way)") {
        const stdfs::path payload = tmp.path() / "payload";
        REQUIRE(fs::write_file_atomic(payload / "share/a.txt", "a\n"));
        const stdfs::path file = tmp.path() / "not-a-dir";
        REQUIRE(fs::write_file_atomic(file, "x"));
        auto r = sf_run({"package", payload.string(), "--name", "a", "--version", "1", "--build", "0",
                         "--output-folder", (file / "out").string()});
        INFO(r.err);
        CHECK(r.exit_code == 1);
        one_error_line(r);
        // The same command with a bad name is the user's input: exit 2.
        auto bad = sf_run({"package", payload.string(), "--name", "A B", "--version", "1", "--build", "0",
                           "--output-folder", (tmp.path() / "out").string()});
        CHECK(bad.exit_code == 2);
    }
    SECTION("an error wrapped on its way up keeps its kind: a full disk exits 1, a bad field of --meta 2") {
        const stdfs::path payload = tmp.path() / "payload";
        std::mt19937 rng(7);  // bytes no compressor shrinks: the .conda outgrows the limit
        std::string noise(256 * 1024, '\0');
        for (char& c : noise) c = static_cast<char>(rng());
        REQUIRE(fs::write_file_atomic(payload / "share/big.bin", noise));
        auto full = [&] {
            test::FileSizeLimit limit(64 * 1024);  // inherited by the child
            return sf_run({"package", payload.string(), "--name", "a", "--version", "1", "--build", "0",
                           "--compression-level", "1", "--output-folder", (tmp.path() / "out").string()});
        }();
        INFO(full.err);
        CHECK(full.exit_code == 1);
        one_error_line(full);
        CHECK(full.err.find("File too large") != std::string::npos);
        const stdfs::path meta = tmp.path() / "meta.json";
        REQUIRE(fs::write_file_atomic(meta, R"({"name": "a", "version": "1", "build": "0", "subdir": "linux-65"})"));
        auto bad = sf_run({"package", payload.string(), "--meta", meta.string(), "--output-folder",
                           (tmp.path() / "out").string()});
        INFO(bad.err);
        CHECK(bad.exit_code == 2);
        CHECK(bad.err.find("field 'subdir'") != std::string::npos);
    }
}

TEST_CASE("usage errors suggest the nearest command or option and name the subcommand's help") {
    auto r = sf_run({"rendr", "x"});
    CHECK(r.exit_code == 2);
    CHECK(r.err == "splitforge: error: unknown command 'rendr'; did you mean 'render'? (see `splitforge --help`)\n");
    r = sf_run({"render", "--outptu", "json", "x"});
    CHECK(r.exit_code == 2);
    CHECK(r.err == "splitforge: error: render: unknown option '--outptu'; did you mean '--output'? (see `splitforge "
                   "render --help`)\n");
    r = sf_run({"cmake-cache", "gett"});
    CHECK(r.exit_code == 2);
    CHECK(r.err == "splitforge: error: unknown command 'cmake-cache gett'; did you mean 'get'? (see `splitforge "
                   "cmake-cache --help`)\n");
    r = sf_run({"render", "--help"});
    CHECK(r.exit_code == 0);
    CHECK(str::starts_with(str::split_lines(r.out).at(1), "Usage: splitforge render "));
    r = sf_run({"render", engine_recipe("ok"), "--platform", "linux-65"});
    CHECK(r.exit_code == 2);
    CHECK(r.err.find("unknown platform 'linux-65' (did you mean 'linux-64'?") != std::string::npos);
    r = sf_run({"render", engine_recipe("ok"), "--target-platform", "noarch"});
    CHECK(r.exit_code == 2);
    CHECK(r.err.find("'noarch' is not a target platform") != std::string::npos);
}

TEST_CASE("shared spellings: a meta.yaml path and render --output paths and --format and the old --output FORMAT") {
    const std::string ok = engine_recipe("ok");
    auto by_dir = sf_run({"render", ok, "--format", "builds"});
    auto by_file = sf_run({"render", ok + "/meta.yaml", "--format", "builds"});
    CHECK(by_dir.exit_code == 0);
    CHECK(by_dir.out == "sf-ok\t1.0.0\t0\n");
    CHECK(by_file.out == by_dir.out);
    auto old = sf_run({"render", ok, "--output", "builds"});
    CHECK(old.out == by_dir.out);
    CHECK(old.err.find("note: `render --output FORMAT` is now `--format FORMAT`") != std::string::npos);
    auto paths = sf_run({"render", ok, "--output", "--output-folder", "/tmp/ch", "--platform", "linux-64"});
    CHECK(paths.out == "/tmp/ch/linux-64/sf-ok-1.0.0-0.conda\n");
    auto paths_dir = sf_run({"render", ok, "--output", "--output-dir", "/tmp/ch", "--platform", "linux-64"});
    CHECK(paths_dir.out == paths.out);
    auto not_recipe = sf_run({"render", (test::data_dir() / "script/CMakeCache.python311.txt").string()});
    CHECK(not_recipe.exit_code == 2);
    CHECK(last_line(not_recipe.err).find("not a recipe (give the recipe directory, its meta.yaml or its recipe.yaml") !=
          std::string::npos);
}

TEST_CASE("two -m files naming different target platforms are an error") {
    fs::TempDir tmp("sf-it-cli-tp");
    REQUIRE(fs::write_file_atomic(tmp.path() / "a.yaml", "target_platform:\n  - linux-64\n"));
    REQUIRE(fs::write_file_atomic(tmp.path() / "b.yaml", "target_platform:\n  - osx-arm64\n"));
    auto r = sf_run({"render", engine_recipe("ok"), "-m", (tmp.path() / "a.yaml").string(), "-m",
                     (tmp.path() / "b.yaml").string()});
    CHECK(r.exit_code == 2);
    CHECK(r.err == "splitforge: error: " + (tmp.path() / "b.yaml").string() +
                       ":1: target_platform osx-arm64 conflicts with linux-64 from " + (tmp.path() / "a.yaml").string() +
                       " (give -m files for one platform, or choose with --platform)\n");
    auto chosen = sf_run({"render", engine_recipe("ok"), "-m", (tmp.path() / "a.yaml").string(), "-m",
                          (tmp.path() / "b.yaml").string(), "--platform", "linux-64"});
    CHECK(chosen.exit_code == 0);
}

TEST_CASE("index refuses a flat folder of packages and --keep-going builds the rest") {
    fs::TempDir tmp("sf-it-cli-idx");
    stdfs::create_directories(tmp.path() / "flat");
    stdfs::copy_file(channel().pkg, tmp.path() / "flat/sf-ok-1.0.0-0.conda");
    auto r = sf_run({"index", (tmp.path() / "flat").string()});
    CHECK(r.exit_code == 2);
    CHECK(r.err.find("package files directly in the folder: not a channel") != std::string::npos);
    CHECK_FALSE(stdfs::exists(tmp.path() / "flat/noarch"));

    auto kg = sf_run({"build", engine_recipe("failing_test"), "--output-folder", (tmp.path() / "out").string(), "-q",
                      "--keep-going", "--json"});
    CHECK(kg.exit_code == 1);
    CHECK(kg.err.find("FAILED, going on (--keep-going)") != std::string::npos);
    auto j = json_of(kg);
    REQUIRE(j["outputs"].size() == 1);
    CHECK(j["outputs"][0]["status"] == "failed");
}

TEST_CASE("colour only on request: --color always colours errors and NO_COLOR and pipes do not") {
    auto plain = sf_run({"render", "/nonexistent"});
    CHECK(plain.err.find('\033') == std::string::npos);
    auto forced = sf_run({"--color", "always", "render", "/nonexistent"});
    CHECK(forced.err.find("\033[1;31merror\033[0m") != std::string::npos);
    auto after = sf_run({"render", "/nonexistent", "--color=always"});
    CHECK(after.err.find("\033[1;31m") != std::string::npos);
    auto no_color = sf_run({"render", "/nonexistent"}, {{"NO_COLOR", "1"}});
    CHECK(no_color.err.find('\033') == std::string::npos);
}

TEST_CASE("progress lines only on a terminal: pipes get warnings and the summary, --progress overrides") {
    fs::TempDir tmp("sf-it-cli-progress");
    const std::string recipe = engine_recipe("ok");
    auto build = [&](const std::string& out, std::vector<std::string> extra = {}) {
        std::vector<std::string> args = {"build", recipe, "--output-folder", (tmp.path() / out).string(), "-q"};
        args.insert(args.end(), extra.begin(), extra.end());
        return sf_run(args);
    };
    auto piped = build("piped");
    INFO(piped.err);
    REQUIRE(piped.exit_code == 0);
    CHECK(piped.err.find("==> ") == std::string::npos);
    CHECK(piped.err.find("[1/1]") == std::string::npos);
    CHECK(piped.err.find("\ntotal ") != std::string::npos);  // the summary stays
    CHECK(piped.err.find("built") != std::string::npos);

    auto always = build("always", {"--progress", "always"});
    INFO(always.err);
    REQUIRE(always.exit_code == 0);
    CHECK(always.err.find("[1/1]") != std::string::npos);

    // A terminal on stderr: script(1) gives the command a pty.
    if (!stdfs::exists("/usr/bin/script")) test::skip("no /usr/bin/script to fake a terminal with");
    auto on_tty = [&](const std::string& out, const std::string& extra) {
        std::string cmd = test::binary().string() + " build " + recipe + " --output-folder " +
                          (tmp.path() / out).string() + " -q" + extra;
        process::Command c;
        c.argv = {"/usr/bin/script", "-qec", cmd, "/dev/null"};
        c.env = process::minimal_env();
        auto r = process::capture(c);
        REQUIRE(r);
        INFO(r->out << r->err);
        CHECK(r->exit_code == 0);
        return r->out + r->err;
    };
    CHECK(on_tty("tty", "").find("[1/1]") != std::string::npos);
    auto never = on_tty("never", " --progress never");
    CHECK(never.find("[1/1]") == std::string::npos);
    CHECK(never.find("total ") != std::string::npos);
}

TEST_CASE("packages are reproducible by default: two builds of the demo give identical bytes") {
    // No SOURCE_DATE_EPOCH (the test's environment is minimal): the
    // timestamp comes from the newest file of the recipe, not the clock.
    fs::TempDir tmp("sf-it-cli-repro");
    const std::string recipe = (test::source_dir() / "demo/minimagma/recipe").string();
    std::vector<std::string> bytes;
    for (std::string d : {"one", "two"}) {
        auto out = tmp.path() / d;
        auto r = sf_run({"build", recipe, "--output-folder", out.string(), "-q"});
        INFO(r.err);
        REQUIRE(r.exit_code == 0);
        for (const auto& e : stdfs::directory_iterator(out / "linux-64"))
            if (str::ends_with(e.path().string(), ".conda")) bytes.push_back(test::slurp(e.path()));
    }
    REQUIRE(bytes.size() == 2);
    CHECK(!bytes[0].empty());
    CHECK(bytes[0] == bytes[1]);

    // The timestamp is the recipe's newest file, not the clock.
    auto built = json_of(sf_run({"inspect", (tmp.path() / "one/linux-64/minimagma-2.8.0-h9bf148f_0.conda").string(), "--json"}));
    CHECK(built["index"]["timestamp"] == *fs::newest_mtime(recipe) * 1000);

    // `package` too: the newest file of DIR decides.
    stdfs::create_directories(tmp.path() / "payload/share");
    const auto file = tmp.path() / "payload/share/x.txt";
    REQUIRE(fs::write_file_atomic(file, "x\n"));
    const struct timespec times[2] = {{1600000000, 0}, {1600000000, 0}};
    REQUIRE(::utimensat(AT_FDCWD, file.c_str(), times, AT_SYMLINK_NOFOLLOW) == 0);
    std::vector<std::string> pk;
    for (std::string d : {"p1", "p2"}) {
        auto r = sf_run({"package", (tmp.path() / "payload").string(), "--name", "x", "--version", "1", "--build", "0",
                         "-o", (tmp.path() / d).string()});
        REQUIRE(r.exit_code == 0);
        pk.push_back(test::slurp(tmp.path() / d / "x-1-0.conda"));
    }
    CHECK(pk[0] == pk[1]);
    auto made = json_of(sf_run({"inspect", (tmp.path() / "p1/x-1-0.conda").string(), "--json"}));
    CHECK(made["index"]["timestamp"] == 1600000000000);
}

TEST_CASE("extra: splitforge: is checked: unknown keys and nested timeouts are errors with a suggestion") {
    fs::TempDir tmp("sf-it-cli-extra");
    const std::string base = test::slurp(test::data_dir() / "engine/ok/meta.yaml");
    auto recipe = tmp.path() / "r";
    stdfs::create_directories(recipe);
    auto with = [&](const std::string& extra) {
        REQUIRE(fs::write_file_atomic(recipe / "meta.yaml", base + "extra:\n  splitforge:\n" + extra));
        return sf_run({"render", recipe.string()});
    };
    const std::string meta = (recipe / "meta.yaml").string();
    auto typo = with("    output_key:\n      - with_magma\n");
    CHECK(typo.exit_code == 2);
    CHECK(typo.err == "splitforge: error: " + meta +
                          ":20: extra/splitforge: unknown key 'output_key' (did you mean 'output_keys'? known keys: "
                          "output_keys, use_keys, ignore_keys, runners, timeout_minutes, lint_skip, time_limit, resume_jobs, ci_setup, smoke, smoke_script)\n");
    auto platform = with("    runners:\n      linux64: ubuntu-latest\n");
    CHECK(platform.err == "splitforge: error: " + meta +
                              ":21: extra/splitforge: runners: unknown platform 'linux64' (did you mean 'linux-64'? use "
                              "a subdir (linux-64), <subdir>-cuda or default)\n");
    auto nested = with("    runners:\n      linux-64: x\n      timeout_minutes: 900\n");
    CHECK(nested.exit_code == 2);
    CHECK(nested.err.find("runners: unknown platform 'timeout_minutes'") != std::string::npos);
    auto minutes = with("    timeout_minutes: {linux-64: soon}\n");
    CHECK(minutes.err.find("timeout_minutes/linux-64: 'soon' is not a whole number of minutes") != std::string::npos);
    auto good = with("    output_keys:\n      - a\n    runners: {linux-64: x, linux-64-cuda: y, default: z}\n"
                     "    timeout_minutes: {linux-64: 900, default: 360}\n");
    CHECK(good.exit_code == 0);
    // rerender reads the same settings and refuses the same mistakes.
    with("    runners:\n      linux-64: x\n      timeout_minutes: 900\n");
    auto rer = sf_run({"rerender", recipe.string(), "--variants-dir", (tmp.path() / "v").string(), "--platform",
                       "linux-64"});
    CHECK(rer.exit_code == 2);
    CHECK(rer.err.find("unknown platform 'timeout_minutes'") != std::string::npos);
}

TEST_CASE("install warns when two packages ship the same file") {
    fs::TempDir tmp("sf-it-cli-clobber");
    auto ch = tmp.path() / "ch";
    for (std::string name : {"aaa", "bbb"}) {
        auto dir = tmp.path() / name;
        stdfs::create_directories(dir / "bin");
        REQUIRE(fs::write_file_atomic(dir / "bin/foo", name + "\n"));
        auto r = sf_run({"package", dir.string(), "--name", name, "--version", "1", "--build", "0", "--subdir",
                         "linux-64", "-o", (tmp.path() / "pk").string(), "--channel", ch.string()});
        INFO(r.err);
        REQUIRE(r.exit_code == 0);
    }
    auto prefix = tmp.path() / "prefix";
    auto r = sf_run({"install", "-p", prefix.string(), "-c", ch.string(), "--pkgs-dir", (tmp.path() / "pkgs").string(),
                     "--platform", "linux-64", "aaa", "bbb"});
    INFO(r.err);
    CHECK(r.exit_code == 0);
    CHECK(r.err.find("warning: clobber: bin/foo is in both ") != std::string::npos);
    // Installed later, on top of one already there: warned too.
    auto prefix2 = tmp.path() / "prefix2";
    REQUIRE(sf_run({"install", "-q", "-p", prefix2.string(), "-c", ch.string(), "--pkgs-dir",
                    (tmp.path() / "pkgs").string(), "--platform", "linux-64", "aaa"})
                .exit_code == 0);
    auto later = sf_run({"install", "-p", prefix2.string(), "-c", ch.string(), "--pkgs-dir",
                         (tmp.path() / "pkgs").string(), "--platform", "linux-64", "bbb", "--json"});
    CHECK(later.exit_code == 0);
    auto j = json_of(later);
    REQUIRE(j["warnings"].size() == 1);
    CHECK(j["warnings"][0] == "clobber: bin/foo is in both aaa-1-0 and bbb-1-0; bbb-1-0's copy is installed");
}

TEST_CASE("lint on the real pytorch-cpu feedstock with its .ci_support") {
    // The rerender cases: the feedstock's recipe and its committed .ci_support.
    auto cases = test::data_dir() / "feedstock/rerender-pytorch/cases";
    auto fs13 = cases / "pytorch-cpu-v2.13.0";
    auto r = sf_run({"lint", (fs13 / "feedstock/recipe").string(), "--variants-dir",
                     (fs13 / "expected/.ci_support").string(), "--json"});
    INFO(r.out << r.err);
    CHECK(r.exit_code == 0);
    auto j = json_of(r);
    CHECK(j["findings"].empty());

    auto fs25 = cases / "pytorch-cpu-v2.5.1";
    auto old = sf_run({"lint", (fs25 / "feedstock/recipe").string(), "--variants-dir", (fs25 / "expected/.ci_support").string(), "--json"});
    INFO(old.out << old.err);
    // One finding, and a true one (below); no key of a skipped output
    // (with_magma on osx) is asked of the CI files.
    CHECK(old.exit_code == 0);
    CHECK(json_of(old)["findings"].size() == 1);
    old = sf_run({"lint", (fs25 / "feedstock/recipe").string(), "--variants-dir", (fs25 / "expected/.ci_support").string()});
    // Every CI file renders (no "builds nothing", no render error for a
    // platform the feedstock does not build).
    CHECK(old.out.find("builds nothing") == std::string::npos);
    CHECK(old.out.find("cannot render") == std::string::npos);
    // A real finding: `# [aarch]` is no selector name (aarch64 is), so the switch is always False.
    CHECK(old.out.find("meta.yaml:35:30: warning: key 'aarch' is used by the recipe but missing from the variants") !=
          std::string::npos);
}

TEST_CASE("inside a feedstock, lint and variants use its .ci_support by themselves") {
    // Issue 34 item 8: no -m, no -e, no variants/: the feedstock's own job files.
    auto fs13 = test::data_dir() / "feedstock/rerender-pytorch/cases/pytorch-cpu-v2.13.0";
    fs::TempDir tmp("sf-ci-support");
    stdfs::copy(fs13 / "feedstock", tmp.path() / "fs", stdfs::copy_options::recursive);
    stdfs::copy(fs13 / "expected/.ci_support", tmp.path() / "fs/.ci_support", stdfs::copy_options::recursive);
    const std::string recipe = (tmp.path() / "fs/recipe").string();
    std::size_t linux64 = 0;
    stdfs::path a_job;
    for (const auto& e : stdfs::directory_iterator(tmp.path() / "fs/.ci_support"))
        if (str::starts_with(e.path().filename().string(), "linux_64_")) ++linux64, a_job = e.path();
    REQUIRE(linux64 > 0);
    auto v = sf_run({"variants", recipe, "--platform", "linux-64"});
    INFO(v.out << v.err);
    CHECK(v.exit_code == 0);
    CHECK(v.err.find("the variants of this feedstock's .ci_support/ (" + std::to_string(linux64) +
                     " job file(s) for this platform) [ci-support-default]") != std::string::npos);
    std::size_t headers = 0;
    for (const auto& line : str::split_lines(v.out)) headers += str::starts_with(line, "== .ci_support/linux_64_");
    CHECK(headers == linux64);
    auto j = sf_run({"variants", recipe, "--platform", "linux-64", "--json"});
    CHECK(j.exit_code == 0);
    CHECK(json_of(j)["ci_support"].size() == linux64);
    // A -m file is the user's choice: only it.
    auto one = sf_run({"variants", recipe, "-m", a_job.string()});
    CHECK(one.exit_code == 0);
    CHECK(one.err.find("[ci-support-default]") == std::string::npos);
    auto lint = sf_run({"lint", recipe, "--platform", "linux-64"});
    INFO(lint.out << lint.err);
    CHECK(lint.exit_code == 0);
    CHECK(lint.out.find("is undefined") == std::string::npos);
}

// conda-build's find_config_files (24.11.2): with no -e, the user's file
// (.condarc's conda_build/config_file, else ~/conda_build_config.yaml) and
// then ./conda_build_config.yaml come first, under the recipe's own file and
// the -m files; --ignore-system-variants (conda-smithy's
// ignore_system_variants) and any -e file leave both out.
TEST_CASE("render reads ~/conda_build_config.yaml and ./conda_build_config.yaml first, as conda-build does") {
    fs::TempDir tmp("sf-system-variants");
    const stdfs::path home = tmp.path() / "home", cwd = tmp.path() / "cwd", recipe = tmp.path() / "recipe";
    for (const auto& d : {home, cwd, recipe}) stdfs::create_directories(d);
    auto write = [](const stdfs::path& p, const std::string& text) { REQUIRE(fs::write_file_atomic(p, text)); };
    write(recipe / "meta.yaml", "package:\n  name: x\n  version: 1\nbuild:\n  string: foo{{ foo }}_{{ blas_impl }}\n");
    write(recipe / "conda_build_config.yaml", "blas_impl:\n  - generic\n");
    write(home / "conda_build_config.yaml", "foo:\n  - '1'\n  - '2'\nblas_impl:\n  - openblas\n");
    process::Env env = {{"HOME", home.string()}, {"CONDARC", (tmp.path() / "no-condarc").string()}};
    auto builds = [&](std::vector<std::string> extra, const process::Env& e) {
        std::vector<std::string> args = {"render", recipe.string(), "--platform", "linux-64"};
        args.insert(args.end(), extra.begin(), extra.end());
        auto r = sf_run(args, e, cwd);
        INFO(r.out << r.err);
        std::set<std::string> got;
        for (const auto& line : str::split_lines(r.out))
            if (str::starts_with(str::trim(line), "string: ")) got.insert(std::string(str::trim(line).substr(8)));
        return std::make_pair(r.exit_code, got);
    };
    // The user's foo; the recipe's blas_impl wins over the user's.
    CHECK(builds({}, env) == std::make_pair(0, std::set<std::string>{"foo1_generic", "foo2_generic"}));
    // Left out: foo is undefined.
    CHECK(builds({"--ignore-system-variants"}, env).first != 0);
    write(tmp.path() / "e.yaml", "foo:\n  - '7'\n");
    CHECK(builds({"-e", (tmp.path() / "e.yaml").string()}, env) == std::make_pair(0, std::set<std::string>{"foo7_generic"}));
    // A -m file comes last.
    write(tmp.path() / "m.yaml", "foo:\n  - '4'\n");
    CHECK(builds({"-m", (tmp.path() / "m.yaml").string()}, env) == std::make_pair(0, std::set<std::string>{"foo4_generic"}));
    // ./conda_build_config.yaml after the user's.
    write(cwd / "conda_build_config.yaml", "foo:\n  - '3'\n");
    CHECK(builds({}, env) == std::make_pair(0, std::set<std::string>{"foo3_generic"}));
    stdfs::remove(cwd / "conda_build_config.yaml");
    // .condarc's conda_build/config_file instead of ~/conda_build_config.yaml.
    write(tmp.path() / "custom.yaml", "foo:\n  - '5'\n");
    write(tmp.path() / "condarc", "conda_build:\n  config_file: " + (tmp.path() / "custom.yaml").string() + "\n");
    process::Env rc = env;
    rc["CONDARC"] = (tmp.path() / "condarc").string();
    CHECK(builds({}, rc) == std::make_pair(0, std::set<std::string>{"foo5_generic"}));
}

TEST_CASE("lint checks are silenced by id on the command line or in extra: splitforge: lint_skip") {
    const std::string recipe = (test::data_dir() / "feedstock/lint/bad/recipe").string();
    auto all = sf_run({"lint", recipe, "--platform", "linux-64"});
    CHECK(all.out.find("[no-test]") != std::string::npos);
    auto skipped = sf_run({"lint", recipe, "--platform", "linux-64", "--skip", "no-test", "--skip", "unlisted-patch"});
    CHECK(skipped.out.find("[no-test]") == std::string::npos);
    CHECK(skipped.out.find("[unlisted-patch]") == std::string::npos);
    CHECK(skipped.out.find("[no-sha256]") != std::string::npos);
    auto typo = sf_run({"lint", recipe, "--skip", "no-tests"});
    CHECK(typo.exit_code == 2);
    CHECK(typo.err.find("unknown lint check 'no-tests' (did you mean 'no-test'?") != std::string::npos);

    fs::TempDir tmp("sf-it-cli-lint");
    auto dir = tmp.path() / "r";
    stdfs::create_directories(dir);
    REQUIRE(fs::write_file_atomic(dir / "meta.yaml", "package:\n  name: x\n  version: 1\nbuild:\n  number: 0\n"
                                                      "extra:\n  splitforge:\n    lint_skip:\n      - no-test\n"));
    auto in_recipe = sf_run({"lint", dir.string(), "--platform", "linux-64", "--json"});
    INFO(in_recipe.out << in_recipe.err);
    CHECK(in_recipe.exit_code == 0);
    CHECK(json_of(in_recipe)["findings"].empty());
}

TEST_CASE("a failed build with --dirty leaves build_env_setup.sh to enter its environment") {
    fs::TempDir tmp("sf-it-cli-dirty");
    auto work = tmp.path() / "work";
    auto r = sf_run({"build", engine_recipe("failing_script"), "--output-folder", (tmp.path() / "out").string(), "-q",
                     "--dirty", "--work-dir", work.string()});
    CHECK(r.exit_code == 1);
    CHECK(r.err.find("to retry by hand: source " + (work / "build_env_setup.sh").string()) != std::string::npos);
    process::Command c;
    c.argv = {"bash", "-c", "source " + (work / "build_env_setup.sh").string() + " && echo \"$PKG_NAME\" && pwd"};
    c.env = process::minimal_env();
    auto sh = process::capture(c);
    REQUIRE(sh);
    CHECK(sh->exit_code == 0);
    CHECK(str::starts_with(sh->out, "sf-failing-script\n"));
    auto plain = sf_run({"build", engine_recipe("failing_script"), "--output-folder", (tmp.path() / "out2").string(),
                         "-q"});
    CHECK(plain.exit_code == 1);
    CHECK(plain.err.find("rerun with --dirty to keep the work dir and its build_env_setup.sh") != std::string::npos);
}

TEST_CASE("submodules lists unmapped submodules and finds the map with --feedstock from anywhere") {
    fs::TempDir tmp("sf-it-cli-subm");
    auto fx = submodule_fixture(tmp.path());
    if (!fx) test::skip("git is not available to make the fixture checkout");
    auto d = test::data_dir() / "feedstock/submodules";
    // A feedstock root somewhere else: recipe/ and feedstock/submodule-map.yaml.
    auto root = tmp.path() / "feedstock-root";
    stdfs::create_directories(root / "feedstock");
    stdfs::copy(d / "recipe", root / "recipe", stdfs::copy_options::recursive);
    stdfs::copy_file(d / "map.yaml", root / "feedstock/submodule-map.yaml");
    auto r = sf_run({"submodules", "--source", fx->string(), "--feedstock", root.string()});
    INFO(r.out << r.err);
    CHECK(r.exit_code == 0);
    CHECK(r.out.find("| (not mapped) (!) | v0.1 ") != std::string::npos);
    CHECK(r.out.find("| sleef ") != std::string::npos);
    CHECK(r.err.find("no name map") == std::string::npos);
    // Without the map, every submodule still shows, and stderr says why none is named.
    auto bare = sf_run({"submodules", "--source", fx->string()}, {}, tmp.path());
    CHECK(bare.err.find("warning: no name map: feedstock/submodule-map.yaml not found") != std::string::npos);
    CHECK(bare.out.find("`third_party/sleef`") != std::string::npos);
    // A checkout without submodules: the empty result says why.
    auto plain = tmp.path() / "plain";
    process::Command c;
    c.argv = {"bash", "-c", "git init -q " + plain.string()};
    c.env = process::minimal_env();
    REQUIRE(process::capture(c));
    auto none = sf_run({"submodules", "--source", plain.string(), "--map", (d / "map.yaml").string()});
    CHECK(none.exit_code == 0);
    CHECK(none.out == "No rows: " + plain.string() + " has no git submodules (is it a `git clone --recursive`?)\n");
}
