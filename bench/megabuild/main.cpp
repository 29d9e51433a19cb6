// bench_megabuild: what the staged megabuild saves, on the embedded demo
// (cpu, generic BLAS). In one run it prints
//   A  the 5-Python megabuild (one staging build, 5 per-Python outputs),
//   B  a single-Python build,
//   C  5 independent full builds (each its own fresh staging build),
// and the ratios A/B and C/A. Every timed run starts from a fresh channel
// seeded with minimagma, miniblas and the exported interpreters (made once, untimed),
// so only the minitorch build itself is measured. Tests are skipped unless
// --with-tests is given (they cost the same per output in every mode).
// Each mode also makes its binaries as scripts/demo.sh does (issue 23: "with
// wheels and archives included"): `splitforge wheel` on the mode's channel
// (one wheel per pytorch package) and `splitforge libtorch-archive` on its
// libtorch package, so A = 5 builds' outputs + 5 wheels + 1 archive, B = 1 +
// 1 + 1, C = 5 x (1 + 1 + 1). The ratios are printed with and without them;
// --no-binaries skips them (the numbers of the bench before they counted).
// --fanout instead measures the megabuild across CI jobs (issue 35): one
// `--staging-only` job, then one `--from-staging ARCHIVE --variant
// python=X` job per Python, each in a fresh output folder with no work dir,
// against A's builds; and the archive's size and its write and restore times.
//   bench_megabuild [--splitforge PATH] [--with-tests] [--no-binaries] [--fanout] [--pythons 3.9,3.10,...]
#include <sys/resource.h>

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "env/python_env.hpp"
#include "process/process.hpp"
#include "util/fs.hpp"
#include "util/strings.hpp"

namespace stdfs = std::filesystem;
using namespace sf;

namespace {

stdfs::path g_sf;
bool g_tests = false;
bool g_binaries = true;

// CPU seconds (user + sys) of every process this bench ran and reaped, with
// their reaped descendants: on a shared machine it varies far less with the
// load than the wall clock (but an overlap that saves wall time saves none).
double children_cpu() {
    rusage u{};
    ::getrusage(RUSAGE_CHILDREN, &u);
    auto sec = [](const timeval& t) { return static_cast<double>(t.tv_sec) + t.tv_usec / 1e6; };
    return sec(u.ru_utime) + sec(u.ru_stime);
}

// The per-Python outputs' step times of the last build (its --json summary).
struct PerPython {
    int n = 0;
    double seconds = 0, envs = 0, script = 0, package = 0, test = 0, channel = 0;
};
PerPython g_last;
nlohmann::json g_last_json;  // the last --json summary

PerPython per_python(const std::string& json) {
    PerPython p;
    auto j = nlohmann::json::parse(json, nullptr, false);
    if (j.is_discarded() || !j.contains("outputs")) return p;
    for (const auto& o : j["outputs"]) {
        if (o.value("variant", "").find(" py") == std::string::npos || !o.contains("steps")) continue;
        const auto& s = o["steps"];
        ++p.n;
        p.seconds += o.value("seconds", 0.0);
        p.envs += s.value("envs", 0.0), p.script += s.value("script", 0.0), p.package += s.value("package", 0.0);
        p.test += s.value("test", 0.0), p.channel += s.value("channel", 0.0);
    }
    return p;
}

// Runs splitforge; seconds taken. Exits on failure.
double run_sf(const std::vector<std::string>& argv) {
    process::Command c{argv, {}, process::current_env(), {}, {}, {}};
    auto t = std::chrono::steady_clock::now();
    auto r = process::capture(c);
    double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t).count();
    if (!r || r->exit_code != 0) {
        std::cerr << "bench_megabuild: failed: " << str::join(argv, " ") << "\n" << (r ? r->err : "") << "\n";
        std::exit(1);
    }
    if (std::find(argv.begin(), argv.end(), "--json") != argv.end()) {
        g_last = per_python(r->out);
        g_last_json = nlohmann::json::parse(r->out, nullptr, false);
    }
    return s;
}

double run_build(const stdfs::path& recipe, const stdfs::path& channel, const std::vector<std::string>& extra) {
    std::vector<std::string> argv = {g_sf.string(), "build", recipe.string(), "--output-folder", channel.string(),
                                     "-q", "--compression-level", "3", "--json"};
    if (!g_tests) argv.push_back("--no-test");
    argv.insert(argv.end(), extra.begin(), extra.end());
    return run_sf(argv);
}

// The binaries of one mode's channel, as scripts/demo.sh makes them: the
// wheels of its pytorch packages, the archive of its libtorch package.
double make_binaries(const stdfs::path& channel, const stdfs::path& dest) {
    if (!g_binaries) return 0;
    stdfs::remove_all(dest);
    double s = run_sf({g_sf.string(), "wheel", channel.string(), "--output-folder", (dest / "wheels").string()});
    std::vector<std::string> archive = {g_sf.string(), "libtorch-archive", "--output-folder",
                                        (dest / "libtorch").string()};
    for (const auto& e : stdfs::directory_iterator(channel / "linux-64")) {
        std::string n = e.path().filename().string();
        if (str::starts_with(n, "libtorch-") && n.size() > 9 && std::isdigit(static_cast<unsigned char>(n[9])) &&
            str::ends_with(n, ".conda"))
            archive.push_back(e.path().string());
    }
    if (archive.size() == 4) {
        std::cerr << "bench_megabuild: no libtorch package in " << channel << "\n";
        std::exit(1);
    }
    return s + run_sf(archive);
}

// One mode's time: its builds, and the binaries made from them.
struct Mode {
    double build = 0, binaries = 0, cpu = 0;
    double total() const { return build + binaries; }
    void add(const Mode& o) { build += o.build, binaries += o.binaries, cpu += o.cpu; }
};

void seed(const stdfs::path& base, const stdfs::path& dest) {
    stdfs::remove_all(dest);
    stdfs::copy(base, dest, stdfs::copy_options::recursive);
}

double staging_field(const char* key) {
    const auto& st = g_last_json["stagings"];
    return st.is_array() && !st.empty() ? st[0].value(key, 0.0) : 0.0;
}

// --fanout: the staging job, then each Python's job from its archive, each
// in a fresh output folder seeded from `base` (as a CI job's checkout and
// channel), against the in-place megabuild `mega`.
void fanout(const stdfs::path& tmp, const stdfs::path& base, const stdfs::path& recipe,
            const std::vector<std::string>& cpu, const std::vector<std::string>& pythons, const Mode& mega) {
    auto args = [&](std::vector<std::string> extra) {
        auto v = cpu;
        v.insert(v.end(), extra.begin(), extra.end());
        return v;
    };
    const stdfs::path staging_out = tmp / "fan-staging";
    seed(base, staging_out);
    double cpu0 = children_cpu();
    double staging = run_build(recipe, staging_out, args({"--staging-only", "--variant", "python=" + str::join(pythons, ",")}));
    double staging_cpu = children_cpu() - cpu0, write_s = staging_field("archive_s");
    const std::string archive = g_last_json["staging_archives"][0].get<std::string>();
    std::error_code ec;
    auto size = stdfs::file_size(archive, ec);
    double sum = 0, longest = 0, jobs_cpu = 0, restore = 0;
    for (const auto& py : pythons) {
        const stdfs::path out = tmp / ("fan-py" + py);
        seed(base, out);
        stdfs::remove_all(staging_out / ".splitforge-work");  // another runner: no work dir
        double c0 = children_cpu();
        double s = run_build(recipe, out, args({"--from-staging", archive, "--variant", "python=" + py}));
        jobs_cpu += children_cpu() - c0;
        restore += staging_field("archive_s");
        sum += s, longest = std::max(longest, s);
    }
    const double n = static_cast<double>(pythons.size());
    std::printf("megabuild across CI jobs, cpu generic, %zu Pythons (%s)%s\n", pythons.size(),
                str::join(pythons, ",").c_str(), g_tests ? ", with tests" : ", no tests");
    std::printf("  A  in-place megabuild:                 %7.2f s wall, %7.2f s CPU\n", mega.build, mega.cpu);
    std::printf("  S  staging job (--staging-only):       %7.2f s wall, %7.2f s CPU\n", staging, staging_cpu);
    std::printf("  P  %zu per-Python jobs (--from-staging): %7.2f s wall in all (longest %.2f s), %7.2f s CPU\n",
                pythons.size(), sum, longest, jobs_cpu);
    std::printf("  S + longest P = %.2f s: the critical path with a runner per Python; %.2f of A\n", staging + longest,
                (staging + longest) / mega.build);
    std::printf("  S + all P = %.2f s of machine time; %.2f of A (CPU: %.2f of A)\n", staging + sum,
                (staging + sum) / mega.build, (staging_cpu + jobs_cpu) / mega.cpu);
    std::printf("  staging archive: %.1f KiB, written in %.2f s, restored in %.2f s (mean of %zu)\n", size / 1024.0,
                write_s, restore / n, pythons.size());
}

}  // namespace

int main(int argc, char** argv) {
    stdfs::path self = stdfs::read_symlink("/proc/self/exe");
    g_sf = self.parent_path().parent_path() / "src/splitforge";  // build-X/bench/.. -> build-X/src
    std::vector<std::string> pythons;
    bool fan = false;
    for (int i = 1; i < argc; ++i) {
        std::string a = argv[i];
        if (a == "--splitforge" && i + 1 < argc) g_sf = argv[++i];
        else if (a == "--with-tests") g_tests = true;
        else if (a == "--no-binaries") g_binaries = false;
        else if (a == "--fanout") fan = true;
        else if (a == "--pythons" && i + 1 < argc) pythons = str::split(argv[++i], ',');
        else {
            std::cerr << "usage: bench_megabuild [--splitforge PATH] [--with-tests] [--no-binaries] [--fanout] [--pythons 3.9,...]\n";
            return 2;
        }
    }
    if (pythons.empty()) {
        auto found = env::discover_pythons(process::minimal_env());
        for (const char* v : {"3.9", "3.10", "3.11", "3.12", "3.13"})
            if (found.count(v)) pythons.emplace_back(v);
    }
    if (pythons.size() < 2) {
        std::cerr << "bench_megabuild: needs several of python 3.9-3.13 (found " << pythons.size() << ")\n";
        return 1;
    }
    stdfs::path demo = stdfs::path(SF_SOURCE_DIR) / "demo";
    stdfs::path recipe = demo / "minitorch/recipe";
    fs::TempDir tmp("sf-bench-megabuild");
    std::vector<std::string> cpu = {"--variant", "cuda_compiler_version=None", "--variant", "blas_impl=generic"};
    auto with_py = [&](const std::string& pys) {
        auto v = cpu;
        v.push_back("--variant");
        v.push_back("python=" + pys);
        return v;
    };

    // Untimed: minimagma, miniblas (libcblas) and the interpreters' packages, once.
    stdfs::path base = tmp.path() / "base";
    run_build(demo / "minimagma/recipe", base, {});
    run_build(demo / "miniblas/recipe", base, {});
    {
        stdfs::path warm = tmp.path() / "warm";
        seed(base, warm);
        run_build(recipe, warm, with_py(str::join(pythons, ",")));
        for (const auto& e : stdfs::directory_iterator(warm / "linux-64"))
            if (str::starts_with(e.path().filename().string(), "python-"))
                stdfs::copy_file(e.path(), base / "linux-64" / e.path().filename());
        process::Command idx{{g_sf.string(), "index", base.string()}, {}, process::current_env(), {}, {}, {}};
        (void)process::capture(idx);
    }

    std::string all = str::join(pythons, ",");
    stdfs::path ch = tmp.path() / "ch", bins = tmp.path() / "binaries";
    auto mode = [&](const std::string& pys) {
        seed(base, ch);
        Mode m;
        double cpu0 = children_cpu();
        m.build = run_build(recipe, ch, with_py(pys));
        m.binaries = make_binaries(ch, bins);
        m.cpu = children_cpu() - cpu0;
        return m;
    };
    if (fan) g_binaries = false;  // the jobs are compared build for build
    Mode mega = mode(all);
    PerPython mega_py = g_last;
    if (fan) {
        fanout(tmp.path(), base, recipe, cpu, pythons, mega);
        return 0;
    }
    Mode single = mode("3.12");
    Mode independent;
    for (const auto& py : pythons) independent.add(mode(py));

    std::printf("megabuild, cpu generic, %zu Pythons (%s)%s%s\n", pythons.size(), all.c_str(),
                g_tests ? ", with tests" : ", no tests", g_binaries ? ", with wheels and libtorch archives" : "");
    auto row = [](const char* what, const Mode& m) {
        if (!g_binaries) {
            std::printf("  %-38s %7.2f s\n", what, m.build);
            return;
        }
        std::printf("  %-38s %7.2f s  (build %6.2f s + binaries %5.2f s = %4.1f%%)\n", what, m.total(), m.build,
                    m.binaries, 100.0 * m.binaries / m.total());
    };
    row(("A  " + std::to_string(pythons.size()) + "-Python megabuild:").c_str(), mega);
    row("B  single-Python build (3.12):", single);
    row(("C  " + std::to_string(pythons.size()) + " independent full builds:").c_str(), independent);
    std::printf("  A/B = %.2f  (the megabuild costs this many single builds)\n", mega.total() / single.total());
    std::printf("  C/A = %.2f  (speedup of the megabuild over independent builds)\n", independent.total() / mega.total());
    if (g_binaries)
        std::printf("  builds only: A/B = %.2f, C/A = %.2f\n", mega.build / single.build, independent.build / mega.build);
    // Where an extra Python goes: the recipe's script (CMake re-run, the
    // Python-facing compile, install) against splitforge's own steps.
    if (mega_py.n > 0) {
        double n = mega_py.n, k = static_cast<double>(pythons.size());
        double extra = (mega.total() - single.total()) / (k - 1), fixed = single.total() - extra;
        std::printf("  each extra Python: %.2f s of wall time ((A - B) / %zu)\n", extra, pythons.size() - 1);
        std::printf("  per-Python output in A (mean of %d): envs %.2f, script %.2f, package %.2f, test %.2f, "
                    "channel %.2f s\n",
                    mega_py.n, mega_py.envs / n, mega_py.script / n, mega_py.package / n, mega_py.test / n,
                    mega_py.channel / n);
        // A = F + k*P, B = F + P: A/B <= 1.5 needs P <= F / (2k - 3).
        std::printf("  A/B <= 1.5 needs an extra Python <= %.2f s (B's Python-independent part: %.2f s)\n",
                    fixed / (2 * k - 3), fixed);
    }
    std::printf("  CPU s (user+sys, all processes): A %.2f, B %.2f, C %.2f; A/B = %.2f, C/A = %.2f\n", mega.cpu,
                single.cpu, independent.cpu, mega.cpu / single.cpu, independent.cpu / mega.cpu);
    double load[3] = {0, 0, 0};
    if (::getloadavg(load, 3) == 3) std::printf("  load average at the end: %.2f %.2f %.2f\n", load[0], load[1], load[2]);
    return 0;
}
