// bench/render: renders the whole PyTorch matrix (every platform the recipe
// supports) N times and prints the time per full render.
//   bench_render [RECIPE_DIR] [N]
// conda-build needs seconds to minutes for the same job (multi-output
// recipes are its slow path); this prints our absolute figure.
#include <chrono>
#include <cstdio>
#include <string>

#include "render/render.hpp"

int main(int argc, char** argv) {
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
