// scripts/gpu-check.sh where it cannot run: no GPU, no artifacts. It must
// fail, say why, and check nothing (never pass quietly). The GPU run itself
// needs a GPU machine; its rehearsal on demo artifacts is in
// test_build_e2e.cpp.
#include <catch2/catch.hpp>

#include "process/process.hpp"
#include "testutil.hpp"

using namespace sf;
namespace stdfs = std::filesystem;

namespace {

process::Outcome gpu_check(const std::vector<std::string>& args, process::Env env = process::current_env()) {
    std::vector<std::string> argv = {"bash", (test::source_dir() / "scripts/gpu-check.sh").string()};
    argv.insert(argv.end(), args.begin(), args.end());
    env["SPLITFORGE"] = test::binary().string();
    auto r = process::capture({argv, {}, env});
    REQUIRE(r);
    return *r;
}

bool machine_has_gpu() {
    std::error_code ec;
    if (stdfs::exists("/dev/nvidia0", ec)) return true;
    return stdfs::is_directory("/proc/driver/nvidia/gpus", ec) && !stdfs::is_empty("/proc/driver/nvidia/gpus", ec);
}

}  // namespace

TEST_CASE("gpu-check.sh without a GPU or artifacts fails naming each missing thing") {
    if (machine_has_gpu()) test::skip("this machine has a GPU: the no-GPU path cannot be shown here");
    fs::TempDir tmp;
    auto r = gpu_check({tmp.path().string()});
    INFO(r.out << r.err);
    CHECK(r.exit_code == 1);
    CHECK(r.err.find("gpu-check: no GPU on this machine") != std::string::npos);
    CHECK(r.err.find("no CUDA conda packages: " + tmp.path().string() + "/demo-channel/linux-64/pytorch-gpu-*.conda") !=
          std::string::npos);
    CHECK(r.err.find("no wheels: ") != std::string::npos);
    CHECK(r.err.find("no CUDA libtorch archives: ") != std::string::npos);
    CHECK(r.err.find("gpu-check: FAILED: 4 precondition(s) not met; nothing was checked") != std::string::npos);
    CHECK(r.out.find("PASS") == std::string::npos);
}

TEST_CASE("gpu-check.sh usage errors: no folder, a missing folder, a bad GPU_CHECK_EXPECT_GPU") {
    auto none = gpu_check({});
    CHECK(none.exit_code == 1);
    CHECK(none.err.find("usage: scripts/gpu-check.sh ARTIFACTS_DIR") != std::string::npos);
    auto missing = gpu_check({"/nonexistent/artifacts"});
    CHECK(missing.exit_code == 1);
    CHECK(missing.err.find("/nonexistent/artifacts: no such directory") != std::string::npos);
    fs::TempDir tmp;
    auto env = process::current_env();
    env["GPU_CHECK_EXPECT_GPU"] = "maybe";
    auto bad = gpu_check({tmp.path().string()}, env);
    CHECK(bad.exit_code == 1);
    CHECK(bad.err.find("GPU_CHECK_EXPECT_GPU must be yes or no, not 'maybe'") != std::string::npos);
}
