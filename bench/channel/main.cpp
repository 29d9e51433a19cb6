// bench_channel: solving from a conda-forge-sized channel over HTTP.
//
//   bench_channel [--splitforge PATH] [--peer DIR] [--records N] [--seed S] [--work DIR] [--no-conda]
//
// Makes (once per seed and size, kept in --work, default
// $TMPDIR/sf-bench-channel) a synthetic linux-64 channel of N records
// (default 465,679, conda-forge's linux-64 in May 2024; synth.hpp says how
// it is shaped), written by splitforge's own channel writer: repodata.json,
// repodata.json.zst and CEP-16 shards. A real nginx on loopback serves it
// twice: `full/` (shards and all) and `zst/` (no shard index, so a client
// reads repodata.json.zst). Then it solves a PyTorch-sized host environment
// (synth.hpp's host_specs) with `splitforge install --dry-run` and with the
// reference conda 24.11.2 (../shared/peer, classic solver, `conda create
// --dry-run`), in the same run:
//   cold, shards     a fresh cache, the full/ channel
//   cold, .zst only  a fresh cache, the zst/ channel
//   warm             the cold shards run's cache again
// Each line gives the wall time, the peak RSS (GNU time's %M), the bytes
// nginx sent, and conda's time over splitforge's. conda reads no shards
// (24.11 has no CEP-16 client), so its "shards" run reads repodata.json.zst
// too. Needs nginx and /usr/bin/time (Debian `time`); conda is optional.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "../../tests/nginx.hpp"
#include "channel/shards.hpp"
#include "process/process.hpp"
#include "synth.hpp"
#include "util/dir_handle.hpp"
#include "util/fs.hpp"

namespace stdfs = std::filesystem;
using namespace sf;

namespace {

struct Args {
    stdfs::path sf, peer = "/tmp/peer", work;
    std::size_t records = 465'679;
    std::uint64_t seed = 20240501;
    bool conda = true;
};

[[noreturn]] void die(const std::string& msg) {
    std::fprintf(stderr, "bench_channel: %s\n", msg.c_str());
    std::exit(1);
}

// The channel in `dir` (full/ and zst/), made unless its stamp says it is
// this seed and size. Returns repodata.json's size.
std::uintmax_t make_channel(const stdfs::path& dir, const Args& a) {
    const std::string stamp = std::to_string(a.seed) + " " + std::to_string(a.records) + "\n";
    auto old = fs::read_file(dir / "stamp");
    if (old && *old == stamp) return stdfs::file_size(dir / "full/linux-64/repodata.json");
    stdfs::remove_all(dir);
    auto t0 = std::chrono::steady_clock::now();
    std::fprintf(stderr, "generating %zu records (seed %llu) ...\n", a.records, static_cast<unsigned long long>(a.seed));
    nlohmann::json rd = bench::Synth(a.seed).repodata(a.records);
    for (const char* subdir : {"linux-64", "noarch"}) {
        if (std::string(subdir) == "noarch")
            rd = {{"info", {{"subdir", "noarch"}}}, {"packages", nlohmann::json::object()},
                  {"packages.conda", nlohmann::json::object()}, {"removed", nlohmann::json::array()},
                  {"repodata_version", 1}};
        const std::string text = rd.dump(2) + "\n";
        auto sub = fs::Dir::open(dir / "full" / subdir, fs::Create::yes);
        auto cache = fs::Dir::open(dir / "cache" / subdir, fs::Create::yes);
        if (!sub || !cache) die("cannot make " + (dir / "full").string());
        channel::ShardStats st;
        if (auto r = channel::write_fast_repodata(*sub, *cache, rd, text, st); !r) die(r.error().str());
        if (auto r = sub->write_atomic("repodata.json", text); !r) die(r.error().str());
        // zst/: the same files less the shards, hard-linked.
        stdfs::create_directories(dir / "zst" / subdir);
        for (const char* f : {"repodata.json", "repodata.json.zst"})
            stdfs::create_hard_link(dir / "full" / subdir / f, dir / "zst" / subdir / f);
    }
    std::ofstream(dir / "stamp") << stamp;
    const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    std::fprintf(stderr, "generated in %.0f s\n", s);
    return stdfs::file_size(dir / "full/linux-64/repodata.json");
}

struct Figure {
    double seconds = 0;
    long rss_kb = 0;
    std::uintmax_t bytes = 0;  // what nginx sent during the run
    int exit = -1;
    std::size_t packages = 0;  // in the solution (splitforge's --json)
};

// nginx's combined log: the body bytes of every line from `from` on.
std::uintmax_t bytes_sent(const std::string& log, std::size_t from_line) {
    std::istringstream in(log);
    std::string line;
    std::uintmax_t total = 0;
    for (std::size_t i = 0; std::getline(in, line); ++i) {
        if (i < from_line) continue;
        auto q = line.find('"', line.find('"') + 1);
        if (q == std::string::npos) continue;
        std::istringstream rest(line.substr(q + 1));
        int status = 0;
        std::uintmax_t b = 0;
        rest >> status >> b;
        total += b;
    }
    return total;
}

std::size_t lines(const std::string& s) { return static_cast<std::size_t>(std::count(s.begin(), s.end(), '\n')); }

// `argv` under GNU time, with `env`.
Figure measure(const test::Nginx& server, const stdfs::path& tmp, std::vector<std::string> argv, process::Env env) {
    const auto before = lines(server.access_log());
    const auto tf = tmp / "time.txt";
    argv.insert(argv.begin(), {"/usr/bin/time", "-f", "%e %M", "-o", tf.string()});
    process::Command c{argv, tmp, std::move(env), {}, {}, {}};
    auto r = process::capture(c);
    if (!r) die(r.error().str());
    Figure f;
    f.exit = r->exit_code;
    // The last line: a failed command's comes after GNU time's "Command exited ...".
    std::string last, l;
    for (std::ifstream in(tf); std::getline(in, l);) last = l;
    std::istringstream(last) >> f.seconds >> f.rss_kb;
    f.bytes = bytes_sent(server.access_log(), before);
    if (f.exit != 0) std::fprintf(stderr, "%s: exit %d\n%s%s\n", argv[6].c_str(), f.exit, r->err.c_str(),
                                 r->out.substr(0, 2000).c_str());
    if (auto j = nlohmann::json::parse(r->out, nullptr, false); j.is_object() && j.contains("installed"))
        f.packages = j["installed"].size();
    if (auto j = nlohmann::json::parse(r->out, nullptr, false); j.is_object() && j.contains("actions"))
        f.packages = j["actions"].value("LINK", nlohmann::json::array()).size();
    return f;
}

Figure run_sf(const Args& a, const test::Nginx& server, const stdfs::path& tmp, const std::string& ch,
              const stdfs::path& cache) {
    std::vector<std::string> argv = {a.sf.string(), "install", "--dry-run", "--json", "-p", (tmp / "prefix").string(),
                                     "--override-channels", "-c", server.url("/" + ch), "--pkgs-dir", cache.string()};
    for (const auto& s : bench::host_specs()) argv.push_back(s);
    auto env = process::minimal_env();
    env["HOME"] = tmp.string();  // no user .condarc
    return measure(server, tmp, argv, env);
}

Figure run_conda(const Args& a, const test::Nginx& server, const stdfs::path& tmp, const std::string& ch,
                 const stdfs::path& cache) {
    std::ofstream(tmp / "condarc") << "notify_outdated_conda: false\nreport_errors: false\nauto_update_conda: false\n";
    std::vector<std::string> argv = {(a.peer / "venv/bin/conda").string(), "create", "--dry-run", "--json", "--yes",
                                     "-p", (tmp / "cprefix").string(), "--override-channels", "-c",
                                     server.url("/" + ch)};
    for (const auto& s : bench::host_specs()) argv.push_back(s);
    auto env = process::minimal_env();
    env["HOME"] = tmp.string();
    env["CONDARC"] = (tmp / "condarc").string();
    env["CONDA_PKGS_DIRS"] = cache.string();
    env["CONDA_SOLVER"] = "classic";
    env["CONDA_NOTIFY_OUTDATED_CONDA"] = "false";
    return measure(server, tmp, argv, env);
}

void print(const char* what, const Figure& s, const Figure* c, std::uintmax_t full) {
    auto mb = [](std::uintmax_t b) { return static_cast<double>(b) / 1e6; };
    std::printf("%-16s splitforge %6.2f s %6.0f MB RSS %8.2f MB sent (%4.1f%% of repodata.json)", what, s.seconds,
                s.rss_kb / 1024.0, mb(s.bytes), 100.0 * static_cast<double>(s.bytes) / static_cast<double>(full));
    if (c)
        std::printf(" | conda %7.2f s %6.0f MB RSS %8.2f MB sent | conda/splitforge %5.1fx", c->seconds,
                    c->rss_kb / 1024.0, mb(c->bytes), c->seconds / std::max(0.01, s.seconds));
    std::printf("\n");
}

Args parse(int argc, char** argv) {
    Args a;
    a.sf = stdfs::canonical("/proc/self/exe").parent_path().parent_path() / "src/splitforge";
    a.work = stdfs::temp_directory_path() / "sf-bench-channel";
    for (int i = 1; i < argc; ++i) {
        const std::string s = argv[i];
        auto next = [&]() -> std::string { return i + 1 < argc ? argv[++i] : (die(s + " needs a value"), ""); };
        if (s == "--splitforge") a.sf = next();
        else if (s == "--peer") a.peer = next();
        else if (s == "--records") a.records = std::stoull(next());
        else if (s == "--seed") a.seed = std::stoull(next());
        else if (s == "--work") a.work = next();
        else if (s == "--no-conda") a.conda = false;
        else die("unknown argument " + s);
    }
    if (!stdfs::exists(a.sf)) die(a.sf.string() + " not found (give --splitforge PATH)");
    if (!stdfs::exists("/usr/bin/time")) die("/usr/bin/time is missing (apt-get install time)");
    if (a.conda && !stdfs::exists(a.peer / "venv/bin/conda")) {
        std::fprintf(stderr, "conda: not measured (%s/venv/bin/conda missing; bash ../shared/peer/setup.sh)\n",
                     a.peer.c_str());
        a.conda = false;
    }
    return a;
}

}  // namespace

int main(int argc, char** argv) {
    const Args a = parse(argc, argv);
    const auto full = make_channel(a.work, a);
    test::Nginx server(a.work);
    fs::TempDir tmp("sf-bench-ch");
    std::printf("channel: %zu records, repodata.json %.0f MB, %zu host specs\n", a.records,
                static_cast<double>(full) / 1e6, bench::host_specs().size());
    const auto cold = run_sf(a, server, tmp.path(), "full", tmp.path() / "sf-cache");
    const auto zst = run_sf(a, server, tmp.path(), "zst", tmp.path() / "sf-cache-zst");
    const auto warm = run_sf(a, server, tmp.path(), "full", tmp.path() / "sf-cache");
    Figure c_cold, c_zst, c_warm;
    if (a.conda) {
        c_cold = run_conda(a, server, tmp.path(), "full", tmp.path() / "conda-pkgs");
        c_zst = run_conda(a, server, tmp.path(), "zst", tmp.path() / "conda-pkgs-zst");
        c_warm = run_conda(a, server, tmp.path(), "full", tmp.path() / "conda-pkgs");
    }
    std::printf("solution: splitforge %zu packages", cold.packages);
    if (a.conda) std::printf(", conda %zu packages", c_cold.packages);
    std::printf("\n");
    print("cold, shards", cold, a.conda ? &c_cold : nullptr, full);
    print("cold, .zst only", zst, a.conda ? &c_zst : nullptr, full);
    print("warm", warm, a.conda ? &c_warm : nullptr, full);
    const bool ok = cold.exit == 0 && zst.exit == 0 && warm.exit == 0 &&
                    (!a.conda || (c_cold.exit == 0 && c_zst.exit == 0 && c_warm.exit == 0));
    return ok ? 0 : 1;
}
