// bench_wheel: what `splitforge wheel` adds to a megabuild (issue 23's cost
// bar: wheels and libtorch archives together at most 15% of the build).
// Builds the demo (minimagma, then minitorch for the given Pythons and
// variants) into a fresh channel, timed, then times `splitforge wheel` on it
// (deflate, then stored; best of --runs) and prints each wheel's size next
// to the conda packages it repacks.
//   bench_wheel [--splitforge PATH] [--pythons 3.12,3.13] [--cpu-only] [--runs N] [--ldpath DIR]...
// (--ldpath: where the libraries no package provides are, e.g. the system's
// OpenBLAS while the demo's BLAS is no channel package.)
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "process/process.hpp"
#include "util/fs.hpp"
#include "util/strings.hpp"

namespace stdfs = std::filesystem;
using namespace sf;

namespace {

// Runs splitforge; seconds taken and stdout. Exits on failure.
std::pair<double, std::string> timed(const std::vector<std::string>& argv) {
    process::Command c{argv, {}, process::current_env(), {}, {}, {}};
    auto t = std::chrono::steady_clock::now();
    auto r = process::capture(c);
    double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t).count();
    if (!r || r->exit_code != 0) {
        std::cerr << "bench_wheel: failed: " << str::join(argv, " ") << "\n" << (r ? r->err : "") << "\n";
        std::exit(1);
    }
    return {s, r->out};
}

}  // namespace

int main(int argc, char** argv) {
    stdfs::path sf = stdfs::read_symlink("/proc/self/exe").parent_path().parent_path() / "src/splitforge";
    std::string pythons = "3.12,3.13";
    bool cpu_only = false;
    int runs = 3;
    std::vector<std::string> ldpaths;
    for (int i = 1; i < argc; ++i) {
        std::string a = argv[i];
        if (a == "--splitforge" && i + 1 < argc) sf = argv[++i];
        else if (a == "--pythons" && i + 1 < argc) pythons = argv[++i];
        else if (a == "--cpu-only") cpu_only = true;
        else if (a == "--runs" && i + 1 < argc) runs = std::max(1, std::stoi(argv[++i]));
        else if (a == "--ldpath" && i + 1 < argc) ldpaths.insert(ldpaths.end(), {"--ldpath", argv[++i]});
        else {
            std::cerr << "usage: bench_wheel [--splitforge PATH] [--pythons 3.12,3.13] [--cpu-only] [--runs N] "
                         "[--ldpath DIR]...\n";
            return 2;
        }
    }
    const stdfs::path demo = stdfs::path(SF_SOURCE_DIR) / "demo";
    fs::TempDir tmp("sf-bench-wheel");
    const stdfs::path ch = tmp.path() / "channel";
    timed({sf.string(), "build", (demo / "minimagma/recipe").string(), "--output-folder", ch.string(), "-q"});
    std::vector<std::string> build = {sf.string(), "build", (demo / "minitorch/recipe").string(), "--output-folder",
                                      ch.string(), "-q", "--skip-unavailable", "--variant", "python=" + pythons};
    if (cpu_only) build.insert(build.end(), {"--variant", "cuda_compiler_version=None"});
    const double mega = timed(build).first;

    std::printf("demo megabuild (Pythons %s%s): %.2f s\n", pythons.c_str(), cpu_only ? ", cpu" : "", mega);
    for (std::string compression : {"deflate", "stored"}) {
        double best = 1e9;
        std::string out;
        for (int k = 0; k < runs; ++k) {
            const stdfs::path dest = tmp.path() / ("wheels-" + compression + std::to_string(k));
            std::vector<std::string> w = {sf.string(), "wheel", ch.string(), "--output-folder", dest.string(),
                                          "--compression", compression, "--json"};
            w.insert(w.end(), ldpaths.begin(), ldpaths.end());
            auto [s, o] = timed(w);
            if (s < best) best = s, out = o;
        }
        std::printf("wheels (%s, best of %d): %.2f s = %.1f%% of the megabuild\n", compression.c_str(), runs, best,
                    100.0 * best / mega);
        const nlohmann::json doc = nlohmann::json::parse(out);
        for (const auto& j : doc.at("wheels"))
            std::printf("  %-62s %9.1f KiB wheel  %8.1f KiB conda  %5.2f s\n",
                        stdfs::path(j["wheel"].get<std::string>()).filename().c_str(),
                        j["wheel_size"].get<double>() / 1024, j["conda_size"].get<double>() / 1024,
                        j["seconds"].get<double>());
    }
    return 0;
}
