// End-to-end (slow, its own binary): build-locally.sh --podman runs a
// feedstock's job in a container as conda-forge's run_docker_build.sh does.
// No registry is reachable here, so scripts/container-image.sh makes the
// image from a debootstrap of Debian; where no engine can run, SKIPPED.
#include <catch2/catch.hpp>

#include <sys/stat.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <string>
#include <vector>

#include "env/python_env.hpp"
#include "process/process.hpp"
#include "testproc.hpp"
#include "testutil.hpp"
#include "util/strings.hpp"

namespace stdfs = std::filesystem;
using namespace sf;

namespace {

test::Ran run_env(const std::vector<std::string>& argv, const process::Env& extra, const stdfs::path& cwd = {}) {
    process::Command c;
    c.argv = argv;
    c.env = process::current_env();
    for (const auto& [k, v] : extra) c.env[k] = v;
    if (!cwd.empty()) c.cwd = cwd;
    auto r = process::capture(c);
    REQUIRE(r);
    return {r->exit_code, r->out, r->err};
}

// image= and containers_conf= from scripts/container-image.sh, or SKIPPED.
std::map<std::string, std::string> container_image(const stdfs::path& conf) {
    auto r = run_env({"bash", (test::source_dir() / "scripts/container-image.sh").string(), "podman"},
                     {{"SF_CONTAINERS_CONF", conf.string()}});
    if (r.rc == 77) test::skip(test::last_line(r.err));
    INFO(r.err);
    REQUIRE(r.rc == 0);
    std::map<std::string, std::string> kv;
    for (const auto& line : str::split_lines(r.out))
        if (auto eq = line.find('='); eq != std::string::npos) kv[line.substr(0, eq)] = line.substr(eq + 1);
    REQUIRE(!kv["image"].empty());
    return kv;
}

}  // namespace

TEST_CASE("build-locally.sh --podman builds the demo's cpu config in a local Debian image", "[container][slow]") {
    auto found = env::discover_pythons(process::minimal_env(), {"3.12"});
    if (!found.count("3.12") || found.at("3.12").prefix == "/usr")
        test::skip("needs a CPython 3.12 with headers in a prefix of its own (pyenv) to lend the container");
    const stdfs::path py = found.at("3.12").prefix;
    fs::TempDir tmp("sf-e2e-podman");
    auto image = container_image(tmp.path() / "containers.conf");

    // The feedstock: this checkout's build-locally.sh, the demo's minitorch
    // (recipe and the sources it points to), one config, and the channel
    // holding what it needs (built here, as a channel would have them).
    const stdfs::path feed = tmp.path() / "feedstock", demo = test::source_dir() / "demo";
    stdfs::create_directories(feed / "variants");
    stdfs::copy_file(test::source_dir() / "build-locally.sh", feed / "build-locally.sh");
    stdfs::copy(demo / "minitorch", feed / "minitorch", stdfs::copy_options::recursive);
    std::ofstream(feed / "variants/linux_64_cpu_generic.yaml")
        << "target_platform:\n- linux-64\ncuda_compiler_version:\n- None\nblas_impl:\n- generic\npython:\n- '3.12'\n";
    const stdfs::path channel = feed / "build_artifacts/channel";
    for (const char* dep : {"minimagma", "miniblas"}) {
        auto r = test::run_splitforge({"build", (demo / dep / "recipe").string(), "--output-folder", channel.string(), "-q"});
        INFO(r.err);
        REQUIRE(r.rc == 0);
    }

    process::Env env = {{"SF_RECIPE", "minitorch/recipe"},
                        {"SPLITFORGE", test::binary().string()},
                        {"HOST_USER_ID", "4321"},
                        {"HOST_GROUP_ID", "4321"},
                        {"CPU_COUNT", "2"},
                        // The interpreter, lent read-only at its own path.
                        {"CONDA_FORGE_DOCKER_RUN_ARGS",
                         "-v " + py.string() + ":" + py.string() + ":ro -e PATH=" + py.string() +
                             "/bin:/usr/local/bin:/usr/bin:/bin"}};
    if (!image["containers_conf"].empty()) env["CONTAINERS_CONF"] = image["containers_conf"];
    auto r = run_env({"bash", (feed / "build-locally.sh").string(), "--podman", image["image"], "linux_64_cpu_generic"},
                     env, feed);
    INFO(r.out << r.err);
    REQUIRE(r.rc == 0);
    CHECK(r.err.find("running linux_64_cpu_generic in podman image " + image["image"]) != std::string::npos);
    CHECK(stdfs::exists(feed / "build_artifacts/build-done-linux_64_cpu_generic"));
    // It ran in the container: the job inside names the container's paths.
    CHECK(r.err.find("(log: /home/conda/feedstock_root/build_artifacts/linux_64_cpu_generic-log.txt)") != std::string::npos);
    CHECK(test::slurp(feed / "build_artifacts/linux_64_cpu_generic-log.txt").find("pytorch-0.3.0-cpu_generic_py312") !=
          std::string::npos);

    std::vector<std::string> built;
    for (const auto& e : stdfs::directory_iterator(channel / "linux-64"))
        if (str::starts_with(e.path().filename().string(), "libtorch-0.3.0-cpu_generic") ||
            str::starts_with(e.path().filename().string(), "pytorch-0.3.0-cpu_generic_py312"))
            built.push_back(e.path().string());
    REQUIRE(built.size() == 2);
    std::vector<std::string> check = {"check"};
    check.insert(check.end(), built.begin(), built.end());
    auto c = test::run_splitforge(check);
    INFO(c.out << c.err);
    CHECK(c.rc == 0);

    // build_artifacts/ is HOST_USER_ID's, as the job left it.
    std::vector<std::string> not_theirs;
    for (const auto& e : stdfs::recursive_directory_iterator(feed / "build_artifacts")) {
        struct stat st {};
        if (::lstat(e.path().c_str(), &st) == 0 && st.st_uid != 4321) not_theirs.push_back(e.path().string());
    }
    CHECK(not_theirs == std::vector<std::string>{});
}
