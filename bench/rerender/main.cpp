// Rerender benchmark: conda-smithy's .ci_support for a real feedstock, all
// platforms, with conda-forge's pinning and the feedstock's migrations.
//
//   bench_rerender [CASE_DIR] [N] [SMITHY_VERSION]
//
// CASE_DIR is a case in the rerender-real layout (feedstock/, pinning/,
// expected/.ci_support/); the default is our pytorch-cpu v2.13.0 case. It
// prints the best and median in-process time over N runs (default 10), the
// ratio to the 200 ms target, and whether the files equal the expected ones.
// conda-smithy itself takes minutes on this feedstock.
#include <algorithm>
#include <chrono>
#include <ctime>
#include <cstdio>
#include <filesystem>
#include <string>
#include <vector>

#include "feedstock/smithy.hpp"
#include "util/fs.hpp"

namespace stdfs = std::filesystem;
using namespace sf;

int main(int argc, char** argv) {
    stdfs::path dir = argc > 1 && *argv[1] ? stdfs::path(argv[1])
                               : stdfs::path(SF_SOURCE_DIR) / "tests/data/feedstock/rerender-pytorch/cases/pytorch-cpu-v2.13.0";
    int n = argc > 2 ? std::max(1, std::atoi(argv[2])) : 10;
    // check.sh's layout: the feedstock dir is named <name>-feedstock.
    fs::TempDir tmp("sf-bench-rr");
    stdfs::path feedstock = tmp.path() / "feedstock-feedstock";
    stdfs::copy(dir / "feedstock", feedstock, stdfs::copy_options::recursive);

    feedstock::SmithyOptions o;
    o.feedstock_dir = feedstock;
    o.exclusive_files = {dir / "pinning/conda_build_config.yaml"};
    if (argc > 3) o.smithy_version = argv[3];
    std::vector<double> ms, cpu_ms;
    feedstock::SmithyResult last;
    for (int i = 0; i < n; ++i) {
        auto t0 = std::chrono::steady_clock::now();
        std::clock_t c0 = std::clock();
        auto r = feedstock::smithy_configs(o);
        std::clock_t c1 = std::clock();
        auto t1 = std::chrono::steady_clock::now();
        cpu_ms.push_back(1000.0 * static_cast<double>(c1 - c0) / CLOCKS_PER_SEC);
        if (!r) {
            std::fprintf(stderr, "bench_rerender: %s\n", r.error().str().c_str());
            return 1;
        }
        last = std::move(*r);
        ms.push_back(std::chrono::duration<double, std::milli>(t1 - t0).count());
    }
    std::sort(ms.begin(), ms.end());
    std::sort(cpu_ms.begin(), cpu_ms.end());
    size_t same = 0;
    for (const auto& f : last.files) {
        auto want = fs::read_file(dir / "expected/.ci_support" / f.name);
        same += want && *want == f.text;
    }
    std::printf("rerender %s: %zu files (%zu equal to expected), %zu targets\n", dir.filename().c_str(),
                last.files.size(), same, last.targets.size());
    std::printf("  wall: best %.1f ms, median %.1f ms over %d runs\n", ms.front(), ms[ms.size() / 2], n);
    std::printf("  cpu:  best %.1f ms; target 200 ms: %.2fx %s\n", cpu_ms.front(), cpu_ms.front() / 200.0,
                cpu_ms.front() <= 200.0 ? "(met)" : "(over)");
    return 0;
}
