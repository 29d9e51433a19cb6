// Rerender benchmark: conda-smithy's .ci_support for a real feedstock, all
// platforms, with conda-forge's pinning and the feedstock's migrations.
//
//   bench_rerender [CASE_DIR|CORPUS_DIR] [N] [SMITHY_VERSION] [TARGET_MS]
//
// CASE_DIR is a case in the rerender-real layout (feedstock/, pinning/,
// expected/.ci_support/); the default is our pytorch-cpu v2.13.0 case. A
// CORPUS_DIR (holding cases/, e.g. ../shared/rerender-v1) runs every case.
// Per case it prints the best and median in-process time over N runs
// (default 10), the ratio to the target (200 ms; 300 ms for a corpus of
// rattler-build feedstocks, the v1 target), and how many files equal the
// expected ones. In a corpus, each case reproduces the conda-smithy that
// MANIFEST.tsv records for it (unless SMITHY_VERSION is given), as the
// rerender-real adapter does. conda-smithy itself takes tens of seconds to
// minutes.
#include <algorithm>
#include <chrono>
#include <ctime>
#include <cstdio>
#include <filesystem>
#include <string>
#include <vector>

#include "feedstock/forge_config.hpp"
#include "feedstock/smithy.hpp"
#include "util/fs.hpp"
#include "util/strings.hpp"

namespace stdfs = std::filesystem;
using namespace sf;

namespace {

struct Args {
    int n = 10;
    std::string smithy_version;
    double target_ms = 0;  // 0: by the feedstock's kind
};

// MANIFEST.tsv's conda_smithy_version of `case_name`, or "".
std::string manifest_version(const stdfs::path& corpus, const std::string& case_name) {
    auto text = fs::read_file(corpus / "MANIFEST.tsv");
    if (!text) return "";
    auto lines = str::split_lines(*text);
    if (lines.empty()) return "";
    auto head = str::split(lines[0], '\t');
    auto col = std::find(head.begin(), head.end(), "conda_smithy_version") - head.begin();
    for (size_t i = 1; i < lines.size(); ++i) {
        auto row = str::split(lines[i], '\t');
        if (!row.empty() && row[0] == case_name && static_cast<size_t>(col) < row.size()) return row[col];
    }
    return "";
}

// One case: 1 when it failed to rerender.
int bench_case(const stdfs::path& dir, const Args& a) {
    // check.sh's layout: the feedstock dir is named <name>-feedstock.
    fs::TempDir tmp("sf-bench-rr");
    stdfs::path feedstock = tmp.path() / "feedstock-feedstock";
    stdfs::copy(dir / "feedstock", feedstock, stdfs::copy_options::recursive);

    feedstock::SmithyOptions o;
    o.feedstock_dir = feedstock;
    o.exclusive_files = {dir / "pinning/conda_build_config.yaml"};
    o.smithy_version = a.smithy_version;
    auto forge = feedstock::read_forge_config(feedstock);
    bool v1 = forge && forge->rattler_build();
    double target = a.target_ms > 0 ? a.target_ms : v1 ? 300.0 : 200.0;
    std::vector<double> ms, cpu_ms;
    feedstock::SmithyResult last;
    for (int i = 0; i < a.n; ++i) {
        auto t0 = std::chrono::steady_clock::now();
        std::clock_t c0 = std::clock();
        auto r = feedstock::smithy_configs(o);
        std::clock_t c1 = std::clock();
        auto t1 = std::chrono::steady_clock::now();
        cpu_ms.push_back(1000.0 * static_cast<double>(c1 - c0) / CLOCKS_PER_SEC);
        if (!r) {
            std::fprintf(stderr, "bench_rerender: %s: %s\n", dir.filename().c_str(), r.error().str().c_str());
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
    std::printf("rerender %s%s: %zu files (%zu equal to expected), %zu targets\n", dir.filename().c_str(),
                v1 ? " (recipe.yaml)" : "", last.files.size(), same, last.targets.size());
    std::printf("  wall: best %.1f ms, median %.1f ms over %d runs\n", ms.front(), ms[ms.size() / 2], a.n);
    std::printf("  cpu:  best %.1f ms; target %.0f ms: %.2fx %s\n", cpu_ms.front(), target, cpu_ms.front() / target,
                cpu_ms.front() <= target ? "(met)" : "(over)");
    return 0;
}

}  // namespace

int main(int argc, char** argv) {
    stdfs::path dir = argc > 1 && *argv[1] ? stdfs::path(argv[1])
                               : stdfs::path(SF_SOURCE_DIR) / "tests/data/feedstock/rerender-pytorch/cases/pytorch-cpu-v2.13.0";
    Args a;
    if (argc > 2) a.n = std::max(1, std::atoi(argv[2]));
    if (argc > 3) a.smithy_version = argv[3];
    if (argc > 4) a.target_ms = std::atof(argv[4]);
    if (!stdfs::is_directory(dir / "cases")) return bench_case(dir, a);
    std::vector<stdfs::path> cases;
    for (const auto& e : stdfs::directory_iterator(dir / "cases")) cases.push_back(e.path());
    std::sort(cases.begin(), cases.end());
    int failed = 0;
    for (const auto& c : cases) {
        Args one = a;
        if (one.smithy_version.empty()) one.smithy_version = manifest_version(dir, c.filename().string());
        failed += bench_case(c, one);
    }
    return failed ? 1 : 0;
}
