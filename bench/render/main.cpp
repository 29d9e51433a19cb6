// bench/render: renders the whole PyTorch matrix (every platform the recipe
// supports) N times and prints the time per full render.
//   bench_render [RECIPE_DIR] [N]
// conda-build needs seconds to minutes for the same job (multi-output
// recipes are its slow path); this prints our absolute figure.
//
//   bench_render --fresh SPLITFORGE RECIPE_DIR CONFIG [N]
// What a CI job pays: one config, one fresh `splitforge render` process,
// median of N runs; with PEER=DIR (../shared/peer's install) the reference
// conda-build renders the same config in the same run, interleaved with
// ours, and the ratio of the medians is printed. The goal is 100x.
//
//   bench_render --fresh-v1 SPLITFORGE [CORPUS] [N]
// The same for recipe.yaml: every config of CORPUS/MANIFEST.tsv (default
// ../shared/golden-v1), one fresh process each, median of N, and its ratio
// to the 15 ms budget a CI job's render may take.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

#include "process/process.hpp"
#include "render/render.hpp"

namespace {

// Wall time of one run of `cmd`, in ms; exits on failure.
double run_ms(const sf::process::Command& cmd) {
    auto t0 = std::chrono::steady_clock::now();
    auto r = sf::process::capture(cmd);
    double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    if (!r || r->exit_code != 0) {
        std::fprintf(stderr, "bench_render: %s failed: %s\n", cmd.argv.front().c_str(),
                     r ? r->err.substr(0, 400).c_str() : r.error().str().c_str());
        std::exit(1);
    }
    return ms;
}

double median(std::vector<double> times) {
    std::sort(times.begin(), times.end());
    return times[times.size() / 2];
}

int fresh(int argc, char** argv) {
    if (argc < 5) {
        std::fprintf(stderr, "usage: bench_render --fresh SPLITFORGE RECIPE_DIR CONFIG [N]\n");
        return 2;
    }
    // Absolute paths: conda-build runs from an empty directory.
    std::string binary = std::filesystem::absolute(argv[2]).string();
    std::string recipe = std::filesystem::absolute(argv[3]).string();
    std::string config = std::filesystem::absolute(argv[4]).string();
    int n = argc > 5 ? std::stoi(argv[5]) : 15;
    sf::process::Command ours;
    ours.argv = {binary, "render", recipe, "-m", config, "--platform", "linux-64", "--format", "builds"};
    ours.env = sf::process::current_env();
    const char* peer = std::getenv("PEER");
    // The peer's activate.sh puts render_nofinal.py on PATH; the script is
    // fixed, the data goes in as positional arguments.
    sf::process::Command cb;
    if (peer) {
        cb.argv = {"bash", "-c", "source \"$0/activate.sh\" >/dev/null && exec render_nofinal.py \"$@\"", peer,
                   recipe, "-m", config, "--override-channels", "-c", std::string("file://") + peer + "/empty-channel",
                   "--no-source", "--output", "--platform", "linux-64"};
        cb.env = sf::process::current_env();
        cb.cwd = std::filesystem::temp_directory_path();
    }
    // Interleaved, one conda-build run per `every` of ours: a slow spell of
    // the machine slows both, and the ratio stays about the tools.
    int cb_n = std::max(3, n / 5);
    int every = std::max(1, n / cb_n);
    std::vector<double> us, them;
    run_ms(ours);  // warm-up: page cache
    for (int i = 0; i < n; ++i) {
        us.push_back(run_ms(ours));
        if (peer && i % every == every - 1 && static_cast<int>(them.size()) < cb_n) them.push_back(run_ms(cb));
    }
    std::printf("recipe: %s\nconfig: %s\n", recipe.c_str(), config.c_str());
    std::printf("splitforge, fresh process:  %8.1f ms (median of %d)\n", median(us), n);
    if (!peer) {
        std::printf("conda-build: not measured (set PEER to ../shared/peer's install, e.g. PEER=/tmp/peer)\n");
        return 0;
    }
    std::printf("conda-build 24.11.2:        %8.1f ms (median of %zu, interleaved)\n", median(them), them.size());
    std::printf("ratio (conda-build / ours): %8.1fx (goal: 100x)\n", median(them) / median(us));
    return 0;
}

int fresh_v1(int argc, char** argv) {
    if (argc < 3) {
        std::fprintf(stderr, "usage: bench_render --fresh-v1 SPLITFORGE [CORPUS] [N]\n");
        return 2;
    }
    namespace stdfs = std::filesystem;
    std::string binary = stdfs::absolute(argv[2]).string();
    stdfs::path corpus = argc > 3 ? stdfs::path(argv[3]) : stdfs::path(SF_SOURCE_DIR) / ".." / "shared" / "golden-v1";
    int n = argc > 4 ? std::stoi(argv[4]) : 15;
    std::FILE* f = std::fopen((corpus / "MANIFEST.tsv").c_str(), "r");
    if (!f) {
        std::fprintf(stderr, "bench_render: no MANIFEST.tsv under %s\n", corpus.c_str());
        return 1;
    }
    char line[4096];
    double worst = 0;
    std::printf("recipe.yaml, one config per fresh process (median of %d), budget 15 ms:\n", n);
    while (std::fgets(line, sizeof line, f)) {
        std::string l(line), fs = l.substr(0, l.find('\t'));
        if (fs == "feedstock" || fs.empty() || fs == "\n") continue;
        size_t c1 = l.find('\t'), c2 = l.find('\t', c1 + 1), c3 = l.find('\t', c2 + 1);
        std::string cfg = l.substr(c2 + 1, c3 - c2 - 1);
        sf::process::Command cmd;
        cmd.argv = {binary, "render", (corpus / "recipes" / fs / "recipe").string(), "-m",
                    (corpus / "recipes" / fs / ".ci_support" / cfg).string(), "--platform", "linux-64", "--format", "builds"};
        cmd.env = sf::process::current_env();
        run_ms(cmd);
        std::vector<double> times;
        for (int i = 0; i < n; ++i) times.push_back(run_ms(cmd));
        double m = median(times);
        worst = std::max(worst, m);
        std::printf("  %-10s %-55s %6.1f ms  (%.2f of budget)\n", fs.c_str(), cfg.c_str(), m, m / 15.0);
    }
    std::fclose(f);
    std::printf("slowest: %.1f ms, ratio to the 15 ms budget: %.2f\n", worst, worst / 15.0);
    return 0;
}

}  // namespace

int main(int argc, char** argv) {
    if (argc > 1 && std::string(argv[1]) == "--fresh") return fresh(argc, argv);
    if (argc > 1 && std::string(argv[1]) == "--fresh-v1") return fresh_v1(argc, argv);
    std::string dir = argc > 1 ? argv[1] : std::string(SF_SOURCE_DIR) + "/recipe";
    int n = argc > 2 ? std::stoi(argv[2]) : 20;
    const char* platforms[] = {"linux-64", "linux-aarch64", "osx-64", "osx-arm64", "win-64"};
    auto raw = sf::recipe::RawRecipe::load(dir);
    if (!raw) {
        std::fprintf(stderr, "bench_render: %s\n", raw.error().str().c_str());
        return 1;
    }
    size_t packages = 0;
    // One full render of the matrix = every platform, sharing one cache (what
    // `splitforge rerender` does); each iteration starts from a fresh cache.
    auto run_once = [&] {
        packages = 0;
        auto cache = sf::render::make_render_cache();
        for (const char* p : platforms) {
            auto rr = sf::render::render(*raw, *sf::variant::select(p, {}, {}), cache.get());
            if (!rr) {
                std::fprintf(stderr, "bench_render: %s\n", rr.error().str().c_str());
                std::exit(1);
            }
            packages += rr->outputs.size();
        }
    };
    run_once();  // warm-up
    auto t0 = std::chrono::steady_clock::now();
    for (int i = 0; i < n; ++i) run_once();
    double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count() / n;
    std::printf("recipe: %s\n", dir.c_str());
    std::printf("full matrix: 5 platforms, %zu packages\n", packages);
    std::printf("time per full render of the matrix: %.1f ms (mean of %d)\n", ms, n);
    std::printf("time per package: %.3f ms\n", ms / static_cast<double>(packages));
    std::printf("budget ratio (ours / 100 ms target): %.2f\n", ms / 100.0);
    for (const char* p : platforms) {
        auto sel = *sf::variant::select(p, {}, {});
        size_t count = 0;
        auto s0 = std::chrono::steady_clock::now();
        for (int i = 0; i < n; ++i) count = sf::render::render(*raw, sel)->outputs.size();
        double pms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - s0).count() / n;
        std::printf("  %-14s %3zu packages  %6.1f ms\n", p, count, pms);
    }
    return 0;
}
