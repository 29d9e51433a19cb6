// End-to-end: the embedded demo through `splitforge build` (slow: labelled
// `slow`, its own binary test_build_e2e). The megabuild proof comes from the
// engine's JSON report, which lists the ninja edges each step ran (read from
// build/.ninja_log): after the staging build, every per-Python build
// recompiles only Python objects, and the magma flip only linalg objects.
#include <catch2/catch.hpp>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "archive/zip_read.hpp"
#include "env/python_env.hpp"
#include "package/elf.hpp"
#include "process/process.hpp"
#include "s3rver.hpp"
#include "types/match_spec.hpp"
#include "testutil.hpp"
#include "util/strings.hpp"

namespace stdfs = std::filesystem;
using namespace sf;

namespace {

struct Run {
    int rc = -1;
    std::string out, err;
};

Run run(const std::vector<std::string>& args) {
    std::vector<std::string> argv = {test::binary().string()};
    argv.insert(argv.end(), args.begin(), args.end());
    process::Command c{argv, {}, process::current_env(), {}, {}, {}};
    auto r = process::capture(c);
    REQUIRE(r);
    return {r->exit_code, r->out, r->err};
}

std::vector<std::string> objects(const nlohmann::json& edges) {
    std::vector<std::string> out;
    for (const auto& e : edges)
        if (str::ends_with(e.get<std::string>(), ".o")) out.push_back(e.get<std::string>());
    return out;
}

// Up to three Pythons this machine has (3.12 first: the staging Python).
// Three, because CMake recompacts .ninja_log from the third build on.
std::vector<std::string> two_pythons() {
    auto found = env::discover_pythons(process::minimal_env());
    std::vector<std::string> out;
    if (found.count("3.12")) out.push_back("3.12");
    for (const auto& [minor, py] : found)
        if (out.size() < 3 && minor != "3.12" && str::starts_with(minor, "3.") && std::stoi(minor.substr(2)) >= 9)
            out.push_back(minor);
    return out;
}

nlohmann::json build_json(const std::vector<std::string>& args) {
    auto r = run(args);
    INFO(r.err);
    REQUIRE(r.rc == 0);
    auto j = nlohmann::json::parse(r.out, nullptr, false);
    REQUIRE(!j.is_discarded());
    return j;
}

// minitorch's dependencies (minimagma, miniblas: the demo's libcblas) into `channel`.
void build_demo_deps(const stdfs::path& channel) {
    for (const char* dep : {"minimagma", "miniblas"})
        build_json({"build", (test::source_dir() / "demo" / dep / "recipe").string(), "--output-folder", channel.string(),
                    "-q", "--json"});
}

}  // namespace

TEST_CASE("e2e: cpu demo, 2-3 Pythons: megabuild recompiles only Python objects", "[e2e][slow]") {
    auto pys = two_pythons();
    if (pys.size() < 2 || pys[0] != "3.12")
        test::skip("needs python 3.12 and one more CPython 3.9+ with headers, found: " + str::join(pys, ","));
    fs::TempDir tmp("sf-e2e");
    stdfs::path out = tmp.path() / "channel";
    stdfs::path demo = test::source_dir() / "demo";
    build_json({"build", (demo / "minimagma/recipe").string(), "--output-folder", out.string(), "-q", "--json"});
    build_json({"build", (demo / "miniblas/recipe").string(), "--output-folder", out.string(), "-q", "--json"});
    auto build_minitorch = [&] {
        return build_json({"build", (demo / "minitorch/recipe").string(), "--output-folder", out.string(), "-q",
                           "--json", "--skip-existing", "--variant", "cuda_compiler_version=None", "--variant", "blas_impl=generic",
                           "--variant", "python=" + str::join(pys, ",")});
    };
    auto j = build_minitorch();
    REQUIRE(j["stagings"].size() == 1);
    auto staged = objects(j["stagings"][0]["rebuilt"]);
    CHECK(staged.size() >= 5);
    for (const auto& o : staged) CHECK_FALSE(str::starts_with(o, "build/python/"));

    int pytorch = 0;
    for (const auto& o : j["outputs"]) {
        CHECK(o["status"] == "built");
        CHECK(o["test"] != "failed");
        if (o["name"] != "pytorch") continue;
        ++pytorch;
        auto objs = objects(o["rebuilt"]);
        INFO(o["dist"].get<std::string>());
        CHECK(!objs.empty());
        for (const auto& x : objs) CHECK(str::starts_with(x, "build/python/"));
    }
    CHECK(pytorch == static_cast<int>(pys.size()));

    // Each Python's torch imports and multiplies in a fresh prefix.
    for (const auto& py : pys) {
        stdfs::path prefix = tmp.path() / ("prefix-" + py);
        auto inst = run({"install", "-q", "-p", prefix.string(), "-c", out.string(), "pytorch-cpu",
                         "python " + py + ".*"});
        INFO(inst.err);
        REQUIRE(inst.rc == 0);
        process::Command c{{(prefix / "bin/python").string(), "-c",
                            "import torch; print(torch.__version__, torch.matmul([[1,2],[3,4]], [[5,6],[7,8]]))"},
                           {}, {{"PATH", "/usr/bin:/bin"}}, {}, {}, {}};
        auto r = process::capture(c);
        REQUIRE(r);
        INFO(r->err);
        CHECK(r->exit_code == 0);
        CHECK(r->out.find("0.3.0 [[19.0, 22.0], [43.0, 50.0]]") != std::string::npos);
        // The BLAS came with the packages (libtorch's run_exports from the
        // channel's libcblas), not from the host's OpenBLAS.
        CHECK(stdfs::exists(prefix / "lib/libcblas.so.3"));
        bool recorded = false;
        for (const auto& e : stdfs::directory_iterator(prefix / "conda-meta"))
            recorded = recorded || str::starts_with(e.path().filename().string(), "libcblas-3.9.0-");
        CHECK(recorded);
    }

    // The independent oracle (rattler + libarchive from npm) judges the
    // channel and solves the demo's packages from it alone. scripts/deps.sh
    // installs node, so its absence fails the test rather than hiding the check.
    {
        INFO("node not on PATH (bash scripts/deps.sh installs nodejs and npm)");
        REQUIRE(process::find_executable("node", process::minimal_env()["PATH"]));
        const std::string build_dir = test::binary().parent_path().parent_path().filename().string();
        auto env = process::current_env();
        env["SF_BUILD_DIR"] = build_dir;
        process::Command c{{"bash", (test::source_dir() / "scripts/conda-check.sh").string(), out.string(), "--strict",
                            "--solve", "pytorch,libtorch"},
                           {}, env, {}, {}, {}};
        auto r = process::capture(c);
        REQUIRE(r);
        INFO(r->out << r->err);
        CHECK(r->exit_code == 0);
        CHECK(r->out.find(" 0 failed") != std::string::npos);
        CHECK(r->out.find("SOLVED") != std::string::npos);
    }

    // Rerun: everything is in the channel already.
    auto again = build_minitorch();
    for (const auto& o : again["outputs"]) CHECK(o["status"] == "skipped (in channel)");
}

TEST_CASE("e2e: cpu demo, v1 twin: the staging output builds once, each extra Python only its Python objects",
          "[e2e][slow]") {
    auto pys = two_pythons();
    if (pys.size() < 2 || pys[0] != "3.12")
        test::skip("needs python 3.12 and one more CPython 3.9+ with headers, found: " + str::join(pys, ","));
    fs::TempDir tmp("sf-e2e");
    stdfs::path out = tmp.path() / "channel";
    stdfs::path demo = test::source_dir() / "demo";
    // The v0 demo's dependency recipes (miniblas, the demo's libcblas, where the tree has it).
    for (const char* dep : {"minimagma", "miniblas"})
        if (stdfs::exists(demo / dep / "recipe"))
            build_json({"build", (demo / dep / "recipe").string(), "--output-folder", out.string(), "-q", "--json"});
    auto j = build_json({"build", (demo / "minitorch/recipe-v1").string(), "--output-folder", out.string(), "-q",
                         "--json", "--variant", "cuda_compiler_version=None", "--variant", "blas_impl=generic",
                         "--variant", "python=" + str::join(pys, ",")});
    // recipe.yaml's staging output ran its script (build.sh, PYTORCH_BUILD_STAGE=build) once.
    REQUIRE(j["stagings"].size() == 1);
    auto staged = objects(j["stagings"][0]["rebuilt"]);
    CHECK(staged.size() >= 5);
    for (const auto& o : staged) CHECK_FALSE(str::starts_with(o, "build/python/"));
    std::map<std::string, int> built;
    for (const auto& o : j["outputs"]) {
        INFO(o["dist"].get<std::string>());
        CHECK(o["status"] == "built");
        CHECK(o["test"] == "passed");
        ++built[o["name"].get<std::string>()];
        if (o["name"] == "libtorch" || o["name"] == "libtorch-static") CHECK(objects(o["rebuilt"]).empty());
        if (o["name"] != "pytorch") continue;
        auto objs = objects(o["rebuilt"]);
        CHECK(!objs.empty());
        for (const auto& x : objs) CHECK(str::starts_with(x, "build/python/"));
    }
    const int n = static_cast<int>(pys.size());
    CHECK(built == std::map<std::string, int>{{"libtorch", 1}, {"libtorch-static", 1}, {"pytorch", n}, {"pytorch-cpu", n}});
}

// The CI fan-out (issue 35): one job builds the staging tree and archives
// it, the per-Python jobs restore it in a fresh checkout and compile only
// their Python objects: libtorch's objects keep their mtimes, so ninja has
// nothing to redo for them.
TEST_CASE("e2e: cpu demo through a staging archive: each Python job rebuilds only its Python objects",
          "[e2e][slow]") {
    auto pys = two_pythons();
    if (pys.size() < 2 || pys[0] != "3.12")
        test::skip("needs python 3.12 and one more CPython 3.9+ with headers, found: " + str::join(pys, ","));
    fs::TempDir tmp("sf-e2e");
    const stdfs::path channel = tmp.path() / "deps", out = tmp.path() / "build_artifacts";
    const stdfs::path demo = test::source_dir() / "demo";
    build_demo_deps(channel);
    const std::vector<std::string> common = {(demo / "minitorch/recipe").string(), "-c", channel.string(),
                                             "-q", "--json", "--variant",
                                             "cuda_compiler_version=None", "--variant", "blas_impl=generic"};
    auto with = [&](const stdfs::path& folder, std::vector<std::string> extra) {
        std::vector<std::string> args = {"build", "--output-folder", folder.string()};
        args.insert(args.end(), common.begin(), common.end());
        args.insert(args.end(), extra.begin(), extra.end());
        return build_json(args);
    };
    auto staging = with(out, {"--staging-only", "--variant", "python=" + str::join(pys, ",")});
    CHECK(staging["outputs"].empty());
    REQUIRE(staging["staging_archives"].size() == 1);
    const std::string archive = staging["staging_archives"][0].get<std::string>();
    CHECK(objects(staging["stagings"][0]["rebuilt"]).size() >= 5);

    for (const auto& py : pys) {
        // Each job: a fresh checkout (no work dir), its own output folder.
        stdfs::remove_all(out / ".splitforge-work");
        const stdfs::path job_out = tmp.path() / ("job-py" + py);
        auto j = with(job_out, {"--from-staging", archive, "--variant", "python=" + py});
        REQUIRE(j["stagings"].size() == 1);
        CHECK(j["stagings"][0]["rebuilt"].empty());
        int pytorch = 0;
        for (const auto& o : j["outputs"]) {
            INFO(o["dist"].get<std::string>());
            CHECK(o["test"] != "failed");
            if (o["name"] == "libtorch") CHECK(objects(o["rebuilt"]).empty());
            if (o["name"] != "pytorch") continue;
            ++pytorch;
            CHECK(o["status"] == "built");
            auto objs = objects(o["rebuilt"]);
            CHECK(!objs.empty());
            for (const auto& x : objs) CHECK(str::starts_with(x, "build/python/"));
        }
        CHECK(pytorch == 1);
    }
}

// The compiler's own view of the restored job (strace, independent of the
// ninja log): every compile a driver ran writes a Python object.
TEST_CASE("e2e: cpu demo from a staging archive: strace sees no compile outside the Python part", "[e2e][slow]") {
    auto pys = two_pythons();
    if (pys.size() < 2 || pys[0] != "3.12")
        test::skip("needs python 3.12 and one more CPython 3.9+ with headers, found: " + str::join(pys, ","));
    const auto path = process::minimal_env()["PATH"];
    const auto strace = process::find_executable("strace", path);
    if (!strace) test::skip("strace not on PATH (bash scripts/deps.sh installs it)");
    fs::TempDir tmp("sf-e2e");
    {
        process::Command probe{{strace->string(), "-f", "-qq", "-o", "/dev/null", "true"}, {}, process::current_env(), {}, {}, {}};
        auto r = process::capture(probe);
        if (!r || r->exit_code != 0) test::skip("strace cannot trace here (ptrace not permitted): " + (r ? r->err : ""));
    }
    const stdfs::path channel = tmp.path() / "deps", out = tmp.path() / "build_artifacts";
    const stdfs::path demo = test::source_dir() / "demo";
    build_demo_deps(channel);
    std::vector<std::string> args = {"build", (demo / "minitorch/recipe").string(), "-c", channel.string(), "-q",
                                     "--json", "--variant", "cuda_compiler_version=None", "--variant",
                                     "blas_impl=generic", "--output-folder"};
    auto staging = args;
    staging.insert(staging.end(), {out.string(), "--staging-only", "--variant", "python=3.12"});
    auto s = build_json(staging);
    REQUIRE(s["staging_archives"].size() == 1);
    stdfs::remove_all(out / ".splitforge-work");

    const stdfs::path log = tmp.path() / "execve.log";
    std::vector<std::string> traced = {strace->string(), "-f", "-qq", "-e", "trace=execve", "-s", "4096", "-o",
                                       log.string(), test::binary().string()};
    traced.insert(traced.end(), args.begin(), args.end());
    traced.insert(traced.end(), {(tmp.path() / "job").string(), "--from-staging",
                                 s["staging_archives"][0].get<std::string>(), "--variant", "python=" + pys[1]});
    process::Command c{traced, {}, process::current_env(), {}, {}, {}};
    auto r = process::capture(c);
    REQUIRE(r);
    INFO(r->err);
    REQUIRE(r->exit_code == 0);

    // `PID execve("EXE", ["argv0", "-c", ..., "-o", "OUT", ...], ...) = 0`. Under
    // load strace -f splits a call that another process interrupts into
    // `PID execve(... <unfinished ...>` and `PID <... execve resumed>) = 0`.
    std::ifstream in(log);
    std::string line;
    std::vector<std::string> compiled;
    std::map<std::string, std::string> unfinished;  // pid -> its execve's first half
    while (std::getline(in, line)) {
        const std::string pid = line.substr(0, line.find(' '));
        if (line.find("execve(\"") != std::string::npos && str::ends_with(line, "<unfinished ...>")) {
            unfinished[pid] = line;
            continue;
        }
        if (line.find("<... execve resumed>") != std::string::npos) {
            auto it = unfinished.find(pid);
            if (it == unfinished.end()) continue;
            line = it->second + " " + line;
            unfinished.erase(it);
        }
        auto call = line.find("execve(\"");
        if (call == std::string::npos || !str::ends_with(line, "= 0")) continue;
        std::string exe = line.substr(call + 8, line.find('"', call + 8) - call - 8);
        std::string base = stdfs::path(exe).filename().string();
        bool driver = base == "gcc" || base == "g++" || base == "cc" || base == "c++" ||
                      str::ends_with(base, "-gcc") || str::ends_with(base, "-g++") || str::starts_with(base, "gcc-") ||
                      str::starts_with(base, "g++-") || base == "clang" || base == "clang++" || base == "nvcc";
        if (!driver || line.find("\"-c\"") == std::string::npos) continue;
        auto o = line.find("\"-o\", \"");
        REQUIRE(o != std::string::npos);
        compiled.push_back(line.substr(o + 7, line.find('"', o + 7) - o - 7));
    }
    INFO(str::join(compiled, " "));
    CHECK(!compiled.empty());
    for (const auto& obj : compiled) CHECK(str::starts_with(obj, "python/"));
}

// Issue 35's resume proof: the edges of one uninterrupted staging build
// against a chain of --time-limit jobs at -j1 (limits 1 s, 2 s, 4 s, ...),
// each in a fresh output folder resuming the previous job's partial archive:
// the same edges, none run twice.
TEST_CASE("e2e: cpu demo staging under --time-limit: chained resumes run the uninterrupted build's edges, each once",
          "[e2e][slow]") {
    auto found = env::discover_pythons(process::minimal_env());
    if (!found.count("3.12")) test::skip("needs python 3.12 with headers");
    fs::TempDir tmp("sf-e2e-resume");
    const stdfs::path channel = tmp.path() / "deps", demo = test::source_dir() / "demo";
    build_demo_deps(channel);
    auto job = [&](const stdfs::path& folder, std::vector<std::string> extra) {
        std::vector<std::string> argv = {test::binary().string(), "build", (demo / "minitorch/recipe").string(),
                                         "-c", channel.string(), "-q", "--json", "--staging-only",
                                         "--output-folder", folder.string(), "--variant", "cuda_compiler_version=None",
                                         "--variant", "blas_impl=generic", "--variant", "python=3.12"};
        argv.insert(argv.end(), extra.begin(), extra.end());
        process::Command c{argv, {}, process::current_env(), {}, {}, {}};
        c.env["CPU_COUNT"] = "1";  // one edge at a time: a stop lands between edges of a long chain
        auto r = process::capture(c);
        REQUIRE(r);
        return Run{r->exit_code, r->out, r->err};
    };
    auto edges = [](const Run& r) {
        INFO(r.err);
        REQUIRE((r.rc == 0 || r.rc == 75));
        auto j = nlohmann::json::parse(r.out);
        REQUIRE(j["stagings"].size() == 1);
        REQUIRE(j["staging_archives"].size() == 1);
        CHECK(j["partial"] == (r.rc == 75));
        return std::make_pair(j["stagings"][0]["rebuilt"].get<std::vector<std::string>>(),
                              j["staging_archives"][0].get<std::string>());
    };
    auto [want, full_archive] = edges(job(tmp.path() / "full", {}));
    REQUIRE(want.size() >= 5);

    std::vector<std::string> got;
    std::string archive;
    int links = 0, rc = 75;
    for (; rc == 75 && links < 12; ++links) {
        // Limits double from 1 s: on a loaded machine a 2 s job may spend it
        // all before its first edge, and the chain must still end.
        std::vector<std::string> extra = {"--time-limit", std::to_string(1 << links) + "s"};
        if (!archive.empty()) extra.insert(extra.end(), {"--from-staging", archive});
        auto r = job(tmp.path() / ("job-" + std::to_string(links)), extra);
        rc = r.rc;
        if (links == 0 && rc == 0) test::skip("the demo's staging build finished within 1 s at -j1: nothing to resume");
        auto [done, file] = edges(r);
        INFO("link " << links << ": " << str::join(done, " "));
        got.insert(got.end(), done.begin(), done.end());
        // The next job's copy: the partial is its own output folder's, which
        // that job would not have.
        archive = (tmp.path() / ("part-" + std::to_string(links) + ".tar.zst")).string();
        stdfs::copy_file(file, archive);
    }
    REQUIRE(rc == 0);
    INFO("links: " << links << ", edges: " << str::join(got, " "));
    CHECK(links >= 2);
    std::sort(want.begin(), want.end());
    std::sort(got.begin(), got.end());
    CHECK(std::adjacent_find(got.begin(), got.end()) == got.end());  // no edge twice
    CHECK(got == want);
}

// Issue 36: --nightly gives one version to the demo's packages, the pins
// between them, and so to the wheel and the libtorch archive made from them.
TEST_CASE("e2e: cpu demo --nightly 20261202: packages, wheel and libtorch archive are 0.3.0.dev20261202, uploaded to s3rver they pass smoke", "[e2e][slow]") {
    auto found = env::discover_pythons(process::minimal_env());
    if (!found.count("3.12")) test::skip("needs python 3.12 with headers");
    fs::TempDir tmp("sf-e2e-nightly");
    const stdfs::path out = tmp.path() / "ch", demo = test::source_dir() / "demo";
    build_demo_deps(out);
    auto j = build_json({"build", (demo / "minitorch/recipe").string(), "--output-folder", out.string(), "-q", "--json",
                         "--nightly", "20261202", "--variant", "cuda_compiler_version=None", "--variant",
                         "blas_impl=generic", "--variant", "python=3.12"});
    std::vector<std::string> libtorch;
    for (const auto& o : j["outputs"]) {
        INFO(o["dist"].get<std::string>());
        CHECK(o["status"] == "built");
        CHECK(o["test"] == "passed");  // pytorch-cpu's test env solves only if the specs between outputs agree
        CHECK(o["dist"].get<std::string>().find("-0.3.0.dev20261202-") != std::string::npos);
        if (o["name"] == "libtorch") libtorch.push_back(o["package"].get<std::string>());
    }
    REQUIRE(libtorch.size() == 1);
    auto w = run({"wheel", out.string(), "--output-folder", (tmp.path() / "wheels").string()});
    INFO(w.err);
    REQUIRE(w.rc == 0);
    auto a = run({"libtorch-archive", libtorch[0], "--output-folder", (tmp.path() / "lt").string()});
    INFO(a.err);
    REQUIRE(a.rc == 0);
    std::vector<std::string> names;
    for (const char* d : {"wheels", "lt"})
        for (const auto& e : stdfs::directory_iterator(tmp.path() / d)) names.push_back(e.path().filename().string());
    INFO(str::join(names, " "));
    REQUIRE(names.size() == 2);
    CHECK(names[0].find("torch-0.3.0.dev20261202+cpu-cp312-") == 0);
    CHECK(names[1] == "libtorch-cxx11-abi-shared-with-deps-0.3.0.dev20261202+cpu.zip");

    // Published as PyTorch publishes: uploaded to a bucket (s3rver), then
    // smoke-tested from there in a fresh prefix by the demo's smoke test.
    test::S3rver s3(tmp.path() / "s3");
    std::vector<std::string> up = {"env", "AWS_ACCESS_KEY_ID=S3RVER", "AWS_SECRET_ACCESS_KEY=S3RVER",
                                   "AWS_ENDPOINT_URL=" + s3.endpoint(), "AWS_REGION=us-east-1",
                                   test::binary().string(), "upload", "--to", "s3://forge/demo"};
    for (const char* sub : {"linux-64", "noarch"})
        for (const auto& e : stdfs::directory_iterator(out / sub))
            if (str::ends_with(e.path().string(), ".conda")) up.push_back(e.path().string());
    auto u = test::run(up);
    INFO(u.out << u.err);
    REQUIRE(u.rc == 0);
    auto smoke = run({"smoke", "--channel", s3.endpoint() + "/forge/demo", "pytorch-cpu", "python 3.12.*", "--script",
                      (demo / "minitorch/recipe/smoke_test.py").string(), "--arg=--expect-gpu", "--arg=no",
                      "--pkgs-dir", (tmp.path() / "pkgs").string(), "--json"});
    INFO(smoke.err);
    REQUIRE(smoke.rc == 0);
    INFO(smoke.out);
    bool nightly_torch = false;
    const auto installed = nlohmann::json::parse(smoke.out)["installed"];
    for (const auto& d : installed)
        nightly_torch = nightly_torch || d.get<std::string>().rfind("pytorch-cpu-0.3.0.dev20261202-", 0) == 0;
    CHECK(nightly_torch);
}

TEST_CASE("e2e: two cpu demo builds in different output folders give byte-identical packages", "[e2e][slow]") {
    // The compiled libraries (libtorch, pytorch's extension) are the hard
    // part: the random work dir reaches the compiler (SRC_DIR: prefix maps)
    // and the linker's build-id (the build tree's RPATH: rehashed after
    // post-processing). No SOURCE_DATE_EPOCH: timestamps come from the files.
    auto found = env::discover_pythons(process::minimal_env());
    if (!found.count("3.12")) test::skip("needs python 3.12 with headers");
    fs::TempDir tmp("sf-e2e-repro");
    stdfs::path demo = test::source_dir() / "demo";
    std::vector<std::map<std::string, std::string>> built;
    for (std::string d : {"one", "second-build"}) {  // paths of different lengths
        stdfs::path out = tmp.path() / d;
        build_json({"build", (demo / "minimagma/recipe").string(), "--output-folder", out.string(), "-q", "--json",
                    "--no-test"});
        build_json({"build", (demo / "miniblas/recipe").string(), "--output-folder", out.string(), "-q", "--json",
                    "--no-test"});
        build_json({"build", (demo / "minitorch/recipe").string(), "--output-folder", out.string(), "-q", "--json",
                    "--no-test", "--variant", "cuda_compiler_version=None", "--variant", "blas_impl=generic",
                    "--variant", "python=3.12"});
        std::map<std::string, std::string> pkgs;
        for (const auto& e : stdfs::directory_iterator(out / "linux-64"))
            if (str::ends_with(e.path().string(), ".conda"))
                pkgs[e.path().filename().string()] = test::slurp(e.path());
        built.push_back(std::move(pkgs));
    }
    std::vector<std::string> names, differ;
    for (const auto& [name, bytes] : built[0]) {
        names.push_back(name);
        auto other = built[1].find(name);
        if (other == built[1].end() || other->second != bytes) differ.push_back(name);
    }
    INFO("packages: " << str::join(names, ", "));
    CHECK(built[0].size() == built[1].size());
    for (const char* want : {"libtorch-0.3.0-cpu_generic_", "pytorch-0.3.0-cpu_generic_py312_", "minimagma-", "libcblas-"}) {
        bool there = false;
        for (const auto& n : names) there = there || str::starts_with(n, want);
        CHECK(there);
    }
    INFO("extract both and cmp the members to see what differs");
    CHECK(differ == std::vector<std::string>{});
}

TEST_CASE("e2e: cuda demo: the magma flip recompiles only linalg objects and a rebuild gives the same bytes", "[e2e][slow]") {
    if (!process::find_executable("nvcc", process::minimal_env()["PATH"] + ":/usr/local/cuda/bin"))
        test::skip("no nvcc on PATH or in /usr/local/cuda/bin");
    auto pys = two_pythons();
    if (pys.empty() || pys[0] != "3.12") test::skip("needs python 3.12 with headers, found: " + str::join(pys, ","));
    fs::TempDir tmp("sf-e2e");
    stdfs::path out = tmp.path() / "channel";
    stdfs::path demo = test::source_dir() / "demo";
    build_json({"build", (demo / "minimagma/recipe").string(), "--output-folder", out.string(), "-q", "--json"});
    build_json({"build", (demo / "miniblas/recipe").string(), "--output-folder", out.string(), "-q", "--json"});
    auto j = build_json({"build", (demo / "minitorch/recipe").string(), "--output-folder", out.string(), "-q",
                         "--json", "--variant", "cuda_compiler_version=13.0", "--variant", "blas_impl=generic",
                         "--variant", "python=3.12"});
    REQUIRE(j["stagings"].size() == 1);
    // build.sh builds everything, flips USE_MAGMA and rebuilds linalg: the
    // objects the log records twice are what the flip recompiled.
    std::map<std::string, int> seen;
    for (const auto& o : objects(j["stagings"][0]["rebuilt"])) ++seen[o];
    int flipped = 0;
    for (const auto& [o, n] : seen)
        if (n > 1) {
            ++flipped;
            CHECK(o.find("torch_cuda_linalg.dir/") != std::string::npos);
        }
    CHECK(flipped > 0);
    std::vector<std::string> names;
    for (const auto& o : j["outputs"]) names.push_back(o["dist"].get<std::string>());
    INFO(str::join(names, " "));
    CHECK(std::count_if(names.begin(), names.end(),
                        [](const std::string& n) { return n.find("libtorch-cuda-linalg") == 0; }) == 2);

    // Built again into the same folder (the same work dir path): the same
    // bytes, nvcc's temp file names included. Across folders nvcc's
    // anonymous-namespace symbols still carry a hash of the .cu file's path.
    std::map<std::string, std::string> first;
    for (const auto& e : stdfs::directory_iterator(out / "linux-64"))
        if (str::ends_with(e.path().string(), ".conda")) first[e.path().filename().string()] = test::slurp(e.path());
    build_json({"build", (demo / "minitorch/recipe").string(), "--output-folder", out.string(), "-q", "--json",
                "--no-test", "--variant", "cuda_compiler_version=13.0", "--variant", "blas_impl=generic", "--variant",
                "python=3.12"});
    std::vector<std::string> differ;
    for (const auto& [name, bytes] : first)
        if (test::slurp(out / "linux-64" / name) != bytes) differ.push_back(name);
    CHECK(first.size() >= 5);
    CHECK(differ == std::vector<std::string>{});
}

namespace {

// Runs `argv` with exactly `env`, from `cwd`.
process::Outcome run_in(const std::vector<std::string>& argv, const stdfs::path& cwd, const process::Env& env) {
    auto r = process::capture({argv, cwd, env, {}, {}, {}});
    REQUIRE(r);
    return *r;
}

}  // namespace

TEST_CASE("e2e: a libtorch archive from a cpu demo build: the consumer builds and runs with LD_LIBRARY_PATH unset",
          "[e2e][slow]") {
    auto found = env::discover_pythons(process::minimal_env());
    if (!found.count("3.12")) test::skip("needs python 3.12 with headers");
    fs::TempDir tmp("sf-e2e-libtorch");
    stdfs::path demo = test::source_dir() / "demo";
    stdfs::path build_dir = tmp.path() / "build-here", out = build_dir / "channel";
    // The demo's BLAS is a channel package: the archive bundles it, not the host's.
    build_json({"build", (demo / "miniblas/recipe").string(), "--output-folder", out.string(), "-q", "--json"});
    build_json({"build", (demo / "minitorch/recipe").string(), "--output-folder", out.string(), "-q", "--json",
                "--no-test", "--variant", "cuda_compiler_version=None", "--variant", "blas_impl=generic",
                "--variant", "python=3.12"});
    stdfs::path libtorch_pkg, static_pkg;
    for (const auto& e : stdfs::directory_iterator(out / "linux-64")) {
        if (str::starts_with(e.path().filename().string(), "libtorch-0.3.0-cpu_generic_")) libtorch_pkg = e.path();
        if (str::starts_with(e.path().filename().string(), "libtorch-static-0.3.0-cpu_generic_")) static_pkg = e.path();
    }
    REQUIRE(!libtorch_pkg.empty());
    REQUIRE(!static_pkg.empty());
    auto made = run({"libtorch-archive", libtorch_pkg.string(), "--output-folder", tmp.path().string(), "--json"});
    INFO(made.err);
    REQUIRE(made.rc == 0);
    auto j = nlohmann::json::parse(made.out);
    stdfs::path zip = j["archives"][0]["path"].get<std::string>();
    CHECK(zip.filename() == "libtorch-cxx11-abi-shared-with-deps-0.3.0+cpu.zip");

    // PyTorch's four kinds, each linked into the consumer by `check
    // --consumer` (the without-deps ones get their run dependencies from -c).
    stdfs::path kinds_dir = tmp.path() / "kinds";
    auto four = run({"libtorch-archive", libtorch_pkg.string(), static_pkg.string(), "--kind", "shared-with-deps",
                     "--kind", "shared-without-deps", "--kind", "static-with-deps", "--kind", "static-without-deps",
                     "--output-folder", kinds_dir.string(), "--json"});
    INFO(four.err);
    REQUIRE(four.rc == 0);
    std::vector<std::string> zips;
    const auto four_json = nlohmann::json::parse(four.out);
    for (const auto& a : four_json["archives"]) zips.push_back(a["path"].get<std::string>());
    REQUIRE(zips.size() == 4);
    for (const char* kind : {"shared-with-deps", "shared-without-deps", "static-with-deps", "static-without-deps"})
        CHECK(stdfs::exists(kinds_dir / ("libtorch-cxx11-abi-" + std::string(kind) + "-0.3.0+cpu.zip")));
    {
        auto names = [&](const std::string& kind) {
            fs::TempDir x("sf-e2e-kind");
            REQUIRE(archive::extract_zip(kinds_dir / ("libtorch-cxx11-abi-" + kind + "-0.3.0+cpu.zip"), x.path() / "u"));
            std::set<std::string> libs;
            for (const auto& e : stdfs::directory_iterator(x.path() / "u/libtorch/lib")) libs.insert(e.path().filename().string());
            return libs;
        };
        auto swd = names("shared-without-deps"), stwd = names("static-with-deps"), stwo = names("static-without-deps");
        CHECK(swd.count("libtorch_cpu.so") == 1);
        CHECK(swd.count("libcblas.so.3") == 0);  // the dependency is not bundled
        CHECK(stwd.count("libtorch_cpu.a") == 1);
        CHECK(stwd.count("libcblas.so.3") == 1);
        CHECK(stwd.count("libtorch_cpu.so") == 0);
        CHECK(stwo == std::set<std::string>{"libc10.a", "libshm.a", "libtorch.a", "libtorch_cpu.a"});
    }
    std::vector<std::string> check_args = {"check", "--consumer", "-c", out.string()};
    check_args.insert(check_args.end(), zips.begin(), zips.end());
    auto checked = run(check_args);
    INFO(checked.out << checked.err);
    CHECK(checked.rc == 0);
    CHECK(checked.err.find("4 passed, 0 failed") != std::string::npos);
    CHECK(checked.err.find("consumer: ok: torch 0.3.0") != std::string::npos);
    // Without a channel, a without-deps archive's consumer cannot get its dependencies: one line, exit 2.
    auto no_channel = run({"check", "--consumer", (kinds_dir / "libtorch-cxx11-abi-shared-without-deps-0.3.0+cpu.zip").string()});
    CHECK(no_channel.rc == 2);
    CHECK(no_channel.err.find("a without-deps archive's consumer needs its run dependencies") != std::string::npos);

    // The build, its channel and the package cache are gone: only the zip is left.
    stdfs::remove_all(build_dir);
    stdfs::path unzipped = tmp.path() / "unzipped";
    REQUIRE(archive::extract_zip(zip, unzipped));
    CHECK(test::slurp(unzipped / "libtorch/build-version") == "0.3.0+cpu\n");
    for (const auto& e : stdfs::directory_iterator(unzipped / "libtorch/lib")) {
        auto elf = package::read_elf(e.path());
        REQUIRE(elf);
        INFO(e.path().filename().string() << " RPATH " << elf->rpath);
        for (const auto& entry : str::split(elf->rpath, ':'))  // conda-build's "$ORIGIN/." included
            CHECK((entry == "$ORIGIN" || entry == "$ORIGIN/." || entry.empty()));
    }
    process::Env env = process::minimal_env();
    env.erase("LD_LIBRARY_PATH");
    stdfs::path cb = tmp.path() / "consumer-build";
    auto conf = run_in({"cmake", "-S", (demo / "libtorch-consumer").string(), "-B", cb.string(),
                        "-DCMAKE_PREFIX_PATH=" + (unzipped / "libtorch").string()}, tmp.path(), env);
    INFO(conf.out << conf.err);
    REQUIRE(conf.exit_code == 0);
    auto comp = run_in({"cmake", "--build", cb.string()}, tmp.path(), env);
    INFO(comp.out << comp.err);
    REQUIRE(comp.exit_code == 0);
    auto ran = run_in({(cb / "libtorch_consumer").string()}, tmp.path(), env);
    INFO(ran.err);
    CHECK(ran.exit_code == 0);
    CHECK(ran.out.find("ok: torch 0.3.0 (minitorch 0.3.0, BLAS=") != std::string::npos);

    // `splitforge check` builds the same program (compiled in) and agrees.
    auto chk = run({"check", "--consumer", zip.string()});
    INFO(chk.out << chk.err);
    CHECK(chk.rc == 0);
    CHECK(chk.out.find("ok   " + zip.filename().string() + " (libtorch, ") != std::string::npos);
    CHECK(chk.out.find("links, abi, consumer)") != std::string::npos);
}

TEST_CASE("e2e: demo.sh writes wheels and libtorch archives and every artifact passes splitforge check", "[e2e][slow]") {
    auto found = env::discover_pythons(process::minimal_env());
    if (!found.count("3.12")) test::skip("needs python 3.12 with headers");
    INFO("node not on PATH (bash scripts/deps.sh installs nodejs and npm)");
    REQUIRE(process::find_executable("node", process::minimal_env()["PATH"]));
    fs::TempDir tmp("sf-e2e-demo");
    stdfs::path art = tmp.path() / "build_artifacts";
    auto env = process::current_env();
    env["SPLITFORGE"] = test::binary().string();
    env["SF_BUILD_DIR"] = test::binary().parent_path().parent_path().filename().string();
    auto r = run_in({"bash", (test::source_dir() / "scripts/demo.sh").string(), (art / "demo-channel").string(),
                     "--variant", "python=3.12"},
                    test::source_dir(), env);
    INFO(r.out << r.err);
    // Known and open (issue 23, the build-fidelity issue): libtorch_cpu
    // links the host's libopenblas.so.0, which no package of the channel
    // provides, so no wheel can be made. scripts/test.sh fails on a skipped
    // e2e test, so this stays visible until it is fixed.
    if (r.exit_code != 0 && r.err.find("torch wheel: torch/lib/libtorch_cpu.so: needs libopenblas.so.0") != std::string::npos)
        test::skip("demo wheels blocked: libtorch_cpu needs the host's libopenblas.so.0, which no package provides");
    REQUIRE(r.exit_code == 0);
    // The v1 twin's packages depend on what meta.yaml's do (build strings
    // differ only in the hash): name + flavour -> dependency names.
    auto depends = [](const stdfs::path& ch) {
        std::map<std::string, std::set<std::string>> out;
        for (const char* sub : {"linux-64", "noarch"}) {
            if (!stdfs::exists(ch / sub / "repodata.json")) continue;
            auto j = nlohmann::json::parse(test::slurp(ch / sub / "repodata.json"));
            for (const auto& [file, rec] : j["packages.conda"].items()) {
                std::string build = rec["build"], name = rec["name"];
                if (name.rfind("libtorch", 0) != 0 && name.rfind("pytorch", 0) != 0) continue;
                std::set<std::string>& d = out[name + " " + build.substr(0, build.rfind("_h"))];
                for (const auto& dep : rec["depends"]) d.insert(types::MatchSpec::name_of(dep.get<std::string>()));
            }
        }
        return out;
    };
    auto v0 = depends(art / "demo-channel"), v1 = depends(art / "demo-channel-v1");
    CHECK(!v0.empty());
    CHECK(v0 == v1);
    bool cuda = false;
    for (const auto& e : stdfs::directory_iterator(art / "demo-channel/linux-64"))
        cuda = cuda || str::starts_with(e.path().filename().string(), "pytorch-gpu-");
    std::vector<std::string> wheels, zips;
    // demo-wheels/<local label>/: one pip index per variant, as PyTorch's whl/cpu/.
    for (const auto& e : stdfs::recursive_directory_iterator(art / "demo-wheels")) {
        const std::string n = e.path().filename().string();
        if (!str::ends_with(n, ".whl")) continue;
        wheels.push_back(n);
        const std::string label = n.substr(n.find('+') + 1, n.find('-', n.find('+')) - n.find('+') - 1);
        CHECK(e.path().parent_path().filename() == label);
        CHECK(stdfs::exists(e.path().parent_path() / "simple/index.html"));
    }
    CHECK(stdfs::exists(art / "demo-wheels/cpu/simple/torch/index.html"));
    for (const auto& e : stdfs::directory_iterator(art / "demo-libtorch")) zips.push_back(e.path().filename().string());
    std::size_t variants = cuda ? 2 : 1;
    CHECK(wheels.size() == variants);
    for (const auto& w : wheels) CHECK(w.find("-cp312-cp312-manylinux_") != std::string::npos);
    // Both shared kinds per variant, and the static ones from the cpu variant's libtorch-static.
    const std::size_t archives = 2 * variants + 2;
    CHECK(zips.size() == archives);
    for (const char* kind : {"shared-with-deps", "shared-without-deps", "static-with-deps", "static-without-deps"})
        CHECK(std::count(zips.begin(), zips.end(), "libtorch-cxx11-abi-" + std::string(kind) + "-0.3.0+cpu.zip") == 1);
    // One summary line per kind, every artifact passed.
    CHECK(r.out.find("FAIL ") == std::string::npos);
    auto line = [&](const std::string& kind) {
        auto at = r.out.find(kind + ":");
        return at == std::string::npos ? std::string() : r.out.substr(at, r.out.find('\n', at) - at);
    };
    std::string n = std::to_string(variants);
    CHECK(line("wheel").find(n + " checked,   " + n + " passed") != std::string::npos);
    const std::string na = std::to_string(archives);
    CHECK(line("libtorch").find(na + " checked,   " + na + " passed") != std::string::npos);
    CHECK(!line("conda").empty());
    CHECK(r.err.find(" 0 failed") != std::string::npos);

    // gpu-check.sh's steps on these artifacts, expecting no GPU (its rehearsal).
    if (cuda) {
        auto genv = env;
        genv["GPU_CHECK_EXPECT_GPU"] = "no";
        genv["PYTHON"] = found.at("3.12").exe.string();  // the wheels' Python
        auto g = run_in({"bash", (test::source_dir() / "scripts/gpu-check.sh").string(), art.string()}, tmp.path(), genv);
        INFO(g.out << g.err);
        CHECK(g.exit_code == 0);
        CHECK(g.out.find("PASS conda pytorch-gpu + libtorch-cuda-linalg (nomagma)") != std::string::npos);
        CHECK(g.out.find("PASS wheel torch-0.3.0+cu130-cp312-cp312-manylinux_") != std::string::npos);
        CHECK(g.out.find("PASS libtorch consumer against libtorch-cxx11-abi-shared-with-deps-0.3.0+cu") != std::string::npos);
        CHECK(g.out.find(", 0 failed") != std::string::npos);
    }
}
