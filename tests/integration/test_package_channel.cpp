// End to end: `splitforge package`, `index` and `inspect` on real files, with
// every package judged by the independent conda-check oracle (node).
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "process/process.hpp"
#include "testutil.hpp"
#include "unit/package/fixture.hpp"

using namespace sf;
namespace stdfs = std::filesystem;
using nlohmann::json;

namespace {

process::Outcome run(std::vector<std::string> argv, process::Env extra = {}) {
    process::Command c;
    c.argv = std::move(argv);
    c.env = process::current_env();
    for (auto& [k, v] : extra) c.env[k] = v;
    auto r = process::capture(c);
    REQUIRE(r);
    return *r;
}

process::Outcome sf_run(std::vector<std::string> args, process::Env extra = {}) {
    args.insert(args.begin(), test::binary().string());
    return run(std::move(args), std::move(extra));
}

bool have_node() {
    auto env = process::current_env();
    return process::find_executable("node", env["PATH"]).has_value();
}

// Runs scripts/conda-check.sh on `channel`; "" when node is missing.
std::string conda_check(const stdfs::path& channel, const std::string& solve) {
    if (!have_node()) return {};
    // The build dir holding our binary keeps conda-check's node_modules.
    const std::string build_dir = test::binary().parent_path().parent_path().filename().string();
    std::vector<std::string> argv = {"bash", (test::source_dir() / "scripts/conda-check.sh").string(),
                                     channel.string(), "--strict"};
    if (!solve.empty()) argv.insert(argv.end(), {"--solve", solve});
    auto out = run(argv, {{"SF_BUILD_DIR", build_dir}});
    INFO(out.out << out.err);
    CHECK(out.exit_code == 0);
    CHECK(out.out.find(" 0 failed") != std::string::npos);
    return out.out;
}

const std::string kPrefix = "/opt/build/_h_env_placehold_placehold_placehold_placehold_placehold";

}  // namespace

TEST_CASE("package, index and inspect make a channel conda-check accepts") {
    fs::TempDir tmp("sf-it-pkg");
    const stdfs::path lib = tmp.path() / "demolib", tool = tmp.path() / "tool", ch = tmp.path() / "channel";
    test::make_payload(lib, kPrefix);
    test::put(tool / "bin/demo-tool", "#!/bin/sh\nexec demo \"$@\"\n", 0755);
    test::put(tmp.path() / "tool.json", json{{"name", "demo-tool"},
                                             {"version", "0.1.0"},
                                             {"build", "0"},
                                             {"noarch", "generic"},
                                             {"subdir", "noarch"},
                                             {"depends", {"demolib >=1.2,<2"}},
                                             {"license", "MIT"},
                                             {"timestamp", 1700000000000}}
                                            .dump());

    auto a = sf_run({"package", lib.string(), "--name", "demolib", "--version", "1.2.0", "--build", "h0_0",
                     "--format", "both", "--prefix", kPrefix, "--compression-level", "3", "--threads", "2",
                     "--timestamp", "1700000000000", "-o", (tmp.path() / "out").string(), "--channel", ch.string()});
    INFO(a.err);
    REQUIRE(a.exit_code == 0);
    CHECK(stdfs::exists(ch / "linux-64/demolib-1.2.0-h0_0.conda"));
    CHECK(stdfs::exists(ch / "linux-64/demolib-1.2.0-h0_0.tar.bz2"));

    auto b = sf_run({"package", tool.string(), "--meta", (tmp.path() / "tool.json").string(), "-o",
                     (tmp.path() / "out").string()});
    INFO(b.err);
    REQUIRE(b.exit_code == 0);
    stdfs::copy_file(tmp.path() / "out/demo-tool-0.1.0-0.conda", ch / "noarch/demo-tool-0.1.0-0.conda");

    auto idx = sf_run({"index", ch.string()});
    REQUIRE(idx.exit_code == 0);
    CHECK(idx.out.find("3 package(s)") != std::string::npos);
    CHECK(idx.out.find("1 read, 2 cached") != std::string::npos);
    auto idx2 = sf_run({"index", ch.string()});
    CHECK(idx2.out.find("0 read, 3 cached") != std::string::npos);

    auto ins = sf_run({"inspect", (ch / "linux-64/demolib-1.2.0-h0_0.conda").string(), "--json"});
    REQUIRE(ins.exit_code == 0);
    json j = json::parse(ins.out);
    CHECK(j["index"]["name"] == "demolib");
    REQUIRE(j["paths"].size() == 5);
    CHECK(j["paths"][1]["prefix_placeholder"] == kPrefix);
    CHECK(j["paths"][3]["file_mode"] == "binary");
    auto text = sf_run({"inspect", (ch / "linux-64/demolib-1.2.0-h0_0.tar.bz2").string()});
    CHECK(text.out.find("lib/libdemo.so  [softlink]") != std::string::npos);
    CHECK(text.out.find("include/demo.h  [prefix text]") != std::string::npos);

    // scripts/deps.sh installs node: without it the oracle check fails, never passes silently.
    INFO("node is missing (bash scripts/deps.sh, or apt-get install nodejs npm)");
    REQUIRE(have_node());
    std::string report = conda_check(ch, "demo-tool");
    CHECK(report.find("demolib") != std::string::npos);
}

TEST_CASE("the CLI writes identical bytes twice and refuses escaping symlinks") {
    fs::TempDir tmp("sf-it-pkg");
    const stdfs::path dir = tmp.path() / "files";
    test::make_payload(dir, kPrefix);
    auto pack = [&](const std::string& out) {
        return sf_run({"package", dir.string(), "--name", "repro", "--version", "1", "--build", "0",
                       "--compression-level", "3", "-o", (tmp.path() / out).string()},
                      {{"SOURCE_DATE_EPOCH", "1700000000"}});
    };
    REQUIRE(pack("one").exit_code == 0);
    REQUIRE(pack("two").exit_code == 0);
    const std::string one = test::slurp(tmp.path() / "one/repro-1-0.conda");
    REQUIRE(!one.empty());
    CHECK(one == test::slurp(tmp.path() / "two/repro-1-0.conda"));

    stdfs::create_symlink("/etc/passwd", dir / "bin/passwd");
    auto bad = sf_run({"package", dir.string(), "--name", "repro", "--version", "1", "--build", "0", "--prefix",
                       kPrefix, "-o", (tmp.path() / "three").string()});
    CHECK(bad.exit_code == 2);  // an input error
    CHECK(bad.err.find("bin/passwd") != std::string::npos);
    CHECK(bad.err.find("outside the prefix") != std::string::npos);
    CHECK_FALSE(stdfs::exists(tmp.path() / "three/repro-1-0.conda"));

    auto usage = sf_run({"package", dir.string(), "--name", "Repro", "--version", "1", "--build", "0", "-o",
                         (tmp.path() / "four").string()});
    CHECK(usage.exit_code == 2);
    CHECK(usage.err.find("invalid package name") != std::string::npos);
}
