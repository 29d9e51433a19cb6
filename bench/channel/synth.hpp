#pragma once
// A synthetic conda channel the size of conda-forge's linux-64 (May 2024:
// 465,679 records, 243 MB repodata.json), made from a seed.
//
// Two populations, as on conda-forge:
// - the core: ~80 real names with the dependency graph a PyTorch host
//   environment has (python and its C libraries, numpy over mkl, abseil and
//   protobuf, cmake over libcurl, ...), many versions each, and a build per
//   Python (3.9 to 3.13) for the Python packages, with conda-forge's
//   `python >=3.12,<3.13.0a0` and `python_abi 3.12.* *_cp312` pins;
// - the long tail: generated names (r-, lib, py-like, ros-, perl- families)
//   whose record counts follow a power law (most names have a handful, a few
//   have thousands), each depending on a few core names (libgcc, python and
//   libzlib most often) and on earlier tail names.
// The core never depends on the tail, so a host environment's solution is
// the same whatever the seed; a client that reads shards fetches only the
// core's, one that reads repodata.json parses all of it.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <random>
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace sf::bench {

struct CoreName {
    const char* name;
    bool per_python;                // one build per Python version
    std::vector<const char*> deps;  // core names
};

inline const std::vector<CoreName>& core_names() {
    static const std::vector<CoreName> k = {
        {"_libgcc_mutex", false, {}},
        {"libgomp", false, {"_libgcc_mutex"}},
        {"_openmp_mutex", false, {"_libgcc_mutex", "libgomp"}},
        {"libgcc", false, {"_libgcc_mutex", "_openmp_mutex"}},
        {"libgcc-ng", false, {"libgcc"}},
        {"libstdcxx", false, {"libgcc"}},
        {"libstdcxx-ng", false, {"libstdcxx"}},
        {"ld_impl_linux-64", false, {}},
        {"libzlib", false, {"libgcc"}},
        {"bzip2", false, {"libgcc"}},
        {"liblzma", false, {"libgcc"}},
        {"libffi", false, {"libgcc"}},
        {"libnsl", false, {"libgcc"}},
        {"libuuid", false, {"libgcc"}},
        {"libxcrypt", false, {"libgcc"}},
        {"libsqlite", false, {"libgcc", "libzlib"}},
        {"ncurses", false, {"libgcc"}},
        {"readline", false, {"libgcc", "ncurses"}},
        {"tk", false, {"libgcc", "libzlib"}},
        {"ca-certificates", false, {}},
        {"openssl", false, {"libgcc", "ca-certificates"}},
        {"tzdata", false, {}},
        {"libexpat", false, {"libgcc"}},
        {"libmpdec", false, {"libgcc"}},
        {"python", false, {"bzip2", "ld_impl_linux-64", "libexpat", "libffi", "libgcc", "liblzma", "libmpdec", "libnsl",
                           "libsqlite", "libuuid", "libxcrypt", "libzlib", "ncurses", "openssl", "readline", "tk",
                           "tzdata"}},
        {"python_abi", false, {}},
        {"setuptools", true, {}},
        {"wheel", true, {}},
        {"pip", true, {"setuptools", "wheel"}},
        {"libiconv", false, {"libgcc"}},
        {"icu", false, {"libgcc", "libstdcxx"}},
        {"libxml2", false, {"libgcc", "libiconv", "liblzma", "libzlib", "icu"}},
        {"libhwloc", false, {"libgcc", "libstdcxx", "libxml2"}},
        {"tbb", false, {"libgcc", "libstdcxx", "libhwloc"}},
        {"llvm-openmp", false, {"libzlib"}},
        {"mkl", false, {"_openmp_mutex", "llvm-openmp", "tbb"}},
        {"mkl-include", false, {}},
        {"mkl-devel", false, {"mkl", "mkl-include"}},
        {"libblas", false, {"mkl"}},
        {"libcblas", false, {"libblas"}},
        {"liblapack", false, {"libblas"}},
        {"numpy", true, {"libblas", "libcblas", "liblapack", "libgcc", "libstdcxx"}},
        {"libabseil", false, {"libgcc", "libstdcxx"}},
        {"libprotobuf", false, {"libabseil", "libgcc", "libstdcxx", "libzlib"}},
        {"sleef", false, {"libgcc", "libstdcxx", "_openmp_mutex"}},
        {"pybind11-global", true, {}},
        {"pybind11", true, {"pybind11-global"}},
        {"typing_extensions", true, {}},
        {"yaml", false, {"libgcc"}},
        {"pyyaml", true, {"yaml", "libgcc"}},
        {"filelock", true, {}},
        {"markupsafe", true, {"libgcc"}},
        {"jinja2", true, {"markupsafe"}},
        {"networkx", true, {}},
        {"mpmath", true, {}},
        {"gmp", false, {"libgcc", "libstdcxx"}},
        {"mpfr", false, {"gmp", "libgcc"}},
        {"libmpc", false, {"gmp", "mpfr", "libgcc"}},
        {"gmpy2", true, {"gmp", "mpfr", "libmpc", "libgcc"}},
        {"sympy", true, {"mpmath", "gmpy2"}},
        {"fsspec", true, {}},
        {"optree", true, {"typing_extensions", "libgcc", "libstdcxx"}},
        {"certifi", true, {}},
        {"idna", true, {}},
        {"charset-normalizer", true, {}},
        {"urllib3", true, {}},
        {"requests", true, {"certifi", "charset-normalizer", "idna", "urllib3"}},
        {"libuv", false, {"libgcc"}},
        {"zstd", false, {"libgcc", "libstdcxx", "libzlib"}},
        {"c-ares", false, {"libgcc"}},
        {"libev", false, {"libgcc"}},
        {"libnghttp2", false, {"c-ares", "libev", "libgcc", "libstdcxx", "libzlib", "openssl"}},
        {"keyutils", false, {"libgcc"}},
        {"libedit", false, {"libgcc", "ncurses"}},
        {"krb5", false, {"keyutils", "libedit", "libgcc", "libstdcxx", "openssl"}},
        {"libssh2", false, {"libgcc", "libzlib", "openssl"}},
        {"libcurl", false, {"krb5", "libnghttp2", "libssh2", "libgcc", "libzlib", "openssl", "zstd"}},
        {"rhash", false, {"libgcc"}},
        {"cmake", false, {"bzip2", "libcurl", "libexpat", "libgcc", "libstdcxx", "libuv", "libzlib", "ncurses", "rhash",
                          "liblzma", "zstd"}},
        {"ninja", false, {"libgcc", "libstdcxx"}},
    };
    return k;
}

// A PyTorch host environment (recipe/meta.yaml's host section, less the
// CUDA packages), as match specs.
inline std::vector<std::string> host_specs() {
    return {"python 3.12.*", "numpy", "mkl-devel", "libabseil", "libprotobuf", "sleef", "pybind11",
            "typing_extensions", "pyyaml", "setuptools", "pip", "cmake", "ninja", "libuv", "filelock", "jinja2",
            "networkx", "sympy", "fsspec", "optree", "requests", "zstd", "libcurl"};
}

class Synth {
public:
    explicit Synth(std::uint64_t seed) : rng_(seed) {}

    // repodata.json's document with `records` records (core first).
    nlohmann::json repodata(std::size_t records) {
        nlohmann::json conda = nlohmann::json::object(), bz2 = nlohmann::json::object();
        for (const auto& c : core_names()) add_core(c, conda, bz2);
        std::vector<std::string> tail;
        while (count_ < records) add_tail(tail, records, conda, bz2);
        return {{"info", {{"subdir", "linux-64"}}},
                {"packages", std::move(bz2)},
                {"packages.conda", std::move(conda)},
                {"removed", nlohmann::json::array()},
                {"repodata_version", 1}};
    }

private:
    static constexpr const char* kPythons[] = {"3.9", "3.10", "3.11", "3.12", "3.13"};
    std::mt19937_64 rng_;
    std::size_t count_ = 0;
    std::map<std::string, std::vector<std::string>> versions_;  // name -> versions, oldest first

    std::uint64_t below(std::uint64_t n) { return std::uniform_int_distribution<std::uint64_t>(0, n - 1)(rng_); }
    double unit() { return std::uniform_real_distribution<double>(0.0, 1.0)(rng_); }
    std::string hex(int n) {
        static const char* d = "0123456789abcdef";
        std::string s(static_cast<std::size_t>(n), '0');
        for (auto& ch : s) ch = d[below(16)];
        return s;
    }
    // A rising sequence of `n` versions: major.minor.patch.
    std::vector<std::string> make_versions(std::size_t n) {
        std::vector<std::string> out;
        std::uint64_t major = below(3), minor = below(10), patch = 0;
        for (std::size_t i = 0; i < n; ++i) {
            const auto r = unit();
            if (r < 0.05) major++, minor = 0, patch = 0;
            else if (r < 0.35) minor++, patch = 0;
            else patch++;
            out.push_back(std::to_string(major) + "." + std::to_string(minor) + "." + std::to_string(patch));
        }
        return out;
    }
    // A dependency on `name`: bare, `>=oldest`, or conda-forge's run_exports
    // pin of a version (`>=x.y.z,<x+1.0a0`), which the newest versions meet.
    std::string dep_on(const std::string& name) {
        const auto& v = versions_[name];
        if (v.empty() || unit() < 0.3) return name;
        if (unit() < 0.5) return name + " >=" + v.front();
        const auto& newest = v.back();
        const auto major = std::stoi(newest.substr(0, newest.find('.')));
        return name + " >=" + v[below(v.size())] + ",<" + std::to_string(major + 1) + ".0a0";
    }
    nlohmann::json record(const std::string& name, const std::string& version, const std::string& build,
                          int number, std::vector<std::string> depends) {
        static const char* licenses[] = {"MIT", "BSD-3-Clause", "Apache-2.0", "GPL-3.0-or-later", "LGPL-2.1-or-later",
                                         "MPL-2.0", "Zlib", "PSF-2.0"};
        static const char* families[] = {"MIT", "BSD", "Apache", "GPL3", "LGPL", "Other", "Other", "PSF"};
        const auto lic = below(8);
        ++count_;
        return {{"build", build},
                {"build_number", number},
                {"depends", std::move(depends)},
                {"license", licenses[lic]},
                {"license_family", families[lic]},
                {"md5", hex(32)},
                {"name", name},
                {"sha256", hex(64)},
                {"size", 4096 + below(60'000'000)},
                {"subdir", "linux-64"},
                {"timestamp", 1'500'000'000'000 + below(230'000'000'000)},
                {"version", version}};
    }
    // Newer records are .conda, older ones .tar.bz2, as on conda-forge.
    void put(nlohmann::json rec, bool newer, nlohmann::json& conda, nlohmann::json& bz2) {
        const std::string stem = rec["name"].get<std::string>() + "-" + rec["version"].get<std::string>() + "-" +
                                 rec["build"].get<std::string>();
        (newer ? conda : bz2)[stem + (newer ? ".conda" : ".tar.bz2")] = std::move(rec);
    }

    void add_core(const CoreName& c, nlohmann::json& conda, nlohmann::json& bz2) {
        const std::string name = c.name;
        if (name == "python_abi") {
            versions_[name] = {kPythons, kPythons + 5};
            for (const char* py : kPythons) {
                std::string cp = "cp" + std::string(py).erase(1, 1);
                put(record(name, py, "5_" + cp, 5, {}), true, conda, bz2);
            }
            return;
        }
        if (name == "python") {
            for (const char* py : kPythons)
                for (int patch = 0; patch < 12; ++patch)
                    for (int b = 0; b < 3; ++b) {
                        std::vector<std::string> deps;
                        for (const char* d : c.deps) deps.push_back(dep_on(d));
                        deps.push_back(std::string("python_abi ") + py + ".* *_cp" + std::string(py).erase(1, 1));
                        const std::string v = std::string(py) + "." + std::to_string(patch);
                        versions_[name].push_back(v);
                        put(record(name, v, "h" + hex(7) + "_" + std::to_string(b) + "_cpython", b, deps), patch > 3,
                            conda, bz2);
                    }
            return;
        }
        const auto n = 8 + below(50);
        auto versions = make_versions(n);
        for (std::size_t i = 0; i < versions.size(); ++i) {
            const int builds = 1 + static_cast<int>(below(3));
            const bool newer = i * 3 > versions.size();
            for (int b = 0; b < builds; ++b) {
                std::vector<std::string> deps;
                for (const char* d : c.deps) deps.push_back(dep_on(d));
                if (!c.per_python) {
                    put(record(name, versions[i], "h" + hex(7) + "_" + std::to_string(b), b, deps), newer, conda, bz2);
                    continue;
                }
                for (const char* py : kPythons) {
                    std::string cp = std::string(py).erase(1, 1);
                    auto d = deps;
                    d.push_back(std::string("python >=") + py + ",<" + py_next(py) + ".0a0");
                    d.push_back(std::string("python_abi ") + py + ".* *_cp" + cp);
                    put(record(name, versions[i], "py" + cp + "h" + hex(7) + "_" + std::to_string(b), b, d), newer,
                        conda, bz2);
                }
            }
        }
        versions_[name] = std::move(versions);
    }
    static std::string py_next(const char* py) {
        std::string s(py);
        return "3." + std::to_string(std::stoi(s.substr(2)) + 1);
    }

    std::string tail_name(std::size_t i) {
        static const char* syll[] = {"ar", "bo", "cor", "da", "el", "fi", "gra", "hu", "io", "jak", "ka", "lo", "mu",
                                     "ne", "or", "pi", "qua", "ro", "su", "ta", "ul", "vi", "wex", "xy", "zo"};
        static const char* fam[] = {"r-", "lib", "", "", "", "ros-humble-", "perl-", "py", "", "lib"};
        static const char* suffix[] = {"", "", "", "", "-cpp", "-devel", "-static", "-base", "", ""};
        std::string s = fam[below(10)];
        const auto parts = 2 + below(3);
        for (std::uint64_t k = 0; k < parts; ++k) s += syll[below(25)];
        return s + suffix[below(10)] + "-" + std::to_string(i);  // the index keeps names unique
    }
    // One tail name with a power-law number of records (mean ~18, at most 3000).
    void add_tail(std::vector<std::string>& tail, std::size_t limit, nlohmann::json& conda, nlohmann::json& bz2) {
        const std::string name = tail_name(tail.size());
        const double u = std::max(1e-9, unit());
        std::size_t n = std::min<std::size_t>(3000, static_cast<std::size_t>(3.0 * std::pow(u, -0.85)));
        n = std::min(n, limit - count_);
        const bool python = unit() < 0.45;
        auto versions = make_versions(std::max<std::size_t>(1, python ? n / 5 : n));
        versions_[name] = versions;
        static const char* weighted[] = {"libgcc", "libgcc", "libstdcxx", "libzlib", "python", "openssl",
                                         "numpy", "libcurl", "zstd", "bzip2", "libffi", "icu"};
        for (std::size_t i = 0; i < versions.size() && count_ < limit; ++i) {
            std::vector<std::string> base;
            for (std::uint64_t k = below(7); k > 0; --k)
                base.push_back(unit() < 0.6 || tail.empty() ? dep_on(weighted[below(12)])
                                                            : dep_on(tail[below(tail.size())]));
            const bool newer = i * 3 > versions.size();
            if (!python) {
                put(record(name, versions[i], "h" + hex(7) + "_0", 0, base), newer, conda, bz2);
                continue;
            }
            for (const char* py : kPythons) {
                if (count_ >= limit) break;
                std::string cp = std::string(py).erase(1, 1);
                auto d = base;
                d.push_back(std::string("python >=") + py + ",<" + py_next(py) + ".0a0");
                d.push_back(std::string("python_abi ") + py + ".* *_cp" + cp);
                put(record(name, versions[i], "py" + cp + "h" + hex(7) + "_0", 0, d), newer, conda, bz2);
            }
        }
        tail.push_back(name);
    }
};

}  // namespace sf::bench
