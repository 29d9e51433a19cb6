#include "engine/python_package.hpp"

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <system_error>

#include <nlohmann/json.hpp>

#include "channel/index.hpp"
#include "package/python_files.hpp"
#include "package/writer.hpp"
#include "script/capture.hpp"
#include "types/entry_point.hpp"
#include "types/identifiers.hpp"
#include "types/version_spec.hpp"
#include "util/fs.hpp"
#include "util/strings.hpp"
#include "util/timestamp.hpp"

namespace sf::engine {

namespace stdfs = std::filesystem;

std::string python_package_build() { return "0_system"; }

bool channels_have(const std::vector<stdfs::path>& channels, const types::Platform& platform,
                   const std::string& name, const std::string& minor) {
    auto fits = [&](const std::string& v) { return minor.empty() || v == minor || str::starts_with(v, minor + "."); };
    for (const auto& ch : channels)
        for (const auto& sd : {platform.name(), std::string("noarch")}) {
            std::ifstream in(ch / sd / "repodata.json");
            if (!in) continue;
            auto j = nlohmann::json::parse(in, nullptr, false);
            if (!j.is_object()) continue;
            for (const char* key : {"packages", "packages.conda"}) {
                if (!j.contains(key) || !j[key].is_object()) continue;
                for (const auto& [fn, rec] : j[key].items())
                    if (rec.value("name", "") == name && rec.value("build", "") != python_package_build() &&
                        fits(rec.value("version", "")))
                        return true;
            }
        }
    return false;
}

stdfs::path python_package_in(const stdfs::path& channel, const types::Platform& platform, const env::Interpreter& py) {
    std::error_code ec;
    stdfs::path p = channel / platform.name() / ("python-" + py.version + "-" + python_package_build() + ".conda");
    return stdfs::exists(p, ec) ? p : stdfs::path();
}

namespace {

// What of the interpreter prefix goes into the package.
bool keep(const std::string& rel, const std::string& minor) {
    const std::string lib = "lib/python" + minor + "/";
    if (str::starts_with(rel, "bin/")) {
        std::string n = rel.substr(4);
        return !(str::starts_with(n, "pip") || str::starts_with(n, "idle") || str::starts_with(n, "2to3") ||
                 str::ends_with(n, "-gdb.py"));
    }
    if (str::starts_with(rel, "include/")) return true;
    if (str::starts_with(rel, "lib/pkgconfig/")) return true;
    if (str::starts_with(rel, "lib/libpython")) return !str::ends_with(rel, ".a");
    if (!str::starts_with(rel, lib)) return false;
    std::string r = rel.substr(lib.size());
    if (r.find("__pycache__/") != std::string::npos) return false;
    if (str::ends_with(r, ".a")) return false;
    for (const char* skip : {"test/", "idlelib/", "tkinter/", "turtledemo/", "lib2to3/tests/", "ensurepip/_bundled/",
                             "distutils/tests/", "unittest/test/", "ctypes/test/", "sqlite3/test/", "tkinter/test/"})
        if (str::starts_with(r, skip)) return false;
    if (str::starts_with(r, "site-packages/")) return r == "site-packages/README.txt";
    return true;
}

}  // namespace

namespace {

// Packs `stage` as `m` into `out`, adds the package to `channel`, and removes
// the stage and the package's copy in `out` whatever happens.
Result<stdfs::path> pack_into_channel(const stdfs::path& stage, const package::PackageMeta& m, const stdfs::path& out,
                                      package::MakeOptions mo, const stdfs::path& channel) {
    std::error_code ec;
    mo.write.zstd_level = 3;
    mo.write.threads = 2;
    auto made = package::make_package(stage, m, out, mo);
    stdfs::remove_all(stage, ec);
    if (!made) return unexpected(made.error());
    auto added = channel::add_package(channel, made->files.front());
    stdfs::remove(made->files.front(), ec);
    if (!added) return unexpected(added.error());
    return *added;
}

}  // namespace

Result<stdfs::path> export_python(const env::Interpreter& py, const stdfs::path& channel, const types::Platform& platform,
                                  const stdfs::path& work) {
    if (auto there = python_package_in(channel, platform, py); !there.empty()) return there;
    std::string pfx = py.prefix.string();
    for (const char* sys : {"/usr", "/usr/local", "/"})
        if (pfx == sys)
            return fail("python " + py.version + " (" + py.exe.string() + ") lives in the system prefix " + pfx +
                            " and cannot be exported as a package",
                        "use an interpreter with its own prefix (e.g. pyenv install " + py.minor + ")");
    std::error_code ec;
    stdfs::path stage = work / ("python-" + py.version);
    stdfs::remove_all(stage, ec);
    std::vector<std::string> files;
    for (const auto& f : script::snapshot(py.prefix))
        if (keep(f, py.minor)) files.push_back(f);
    if (auto ok = script::copy_files(py.prefix, files, stage); !ok) return unexpected(ok.error());

    package::PackageMeta m;
    m.name = "python";
    m.version = py.version;
    m.build = python_package_build();
    m.build_number = 0;
    m.subdir = platform;
    m.license = "Python-2.0";
    m.summary = "The host's Python " + py.version + " (" + pfx + "), exported by splitforge's system provider";
    m.home = "https://www.python.org";
    // Reproducible: the interpreter's newest file, not the clock (SOURCE_DATE_EPOCH still wins).
    std::vector<stdfs::path> inputs;
    for (const auto& f : files) inputs.push_back(py.prefix / f);
    m.timestamp = timestamp::reproducible(inputs) * 1000;
    package::MakeOptions mo;
    mo.postprocess.emplace();
    mo.postprocess->prefix = pfx;
    mo.postprocess->binary = package::BinaryPrefix::ignore;  // Python finds its prefix from its own location
    return pack_into_channel(stage, m, work / "python-pkgs", mo, channel);
}

namespace {

// pip's wheel files below site-packages: pip/ and its dist-info, no bytecode.
std::vector<std::string> pip_files(const HostPip& pip) {
    std::vector<std::string> files;
    for (const auto& f : script::snapshot(pip.site)) {
        if (!str::starts_with(f, "pip/") && !str::starts_with(f, pip.dist_info + "/")) continue;
        if (f.find("__pycache__/") != std::string::npos || str::ends_with(f, ".pyc")) continue;
        files.push_back(f);
    }
    return files;
}

// "python >=3.7" from METADATA's Requires-Python (a PEP 440 specifier set
// conda reads the same way), else "python".
std::string python_dependency(const HostPip& pip) {
    auto text = fs::read_file(pip.site / pip.dist_info / "METADATA");
    if (text)
        for (const auto& line : str::split_lines(*text)) {
            if (line.empty()) break;  // the headers end at the first blank line
            if (!str::starts_with(line, "Requires-Python:")) continue;
            std::string spec;
            for (char c : line.substr(16))
                if (c != ' ' && c != '\t') spec += c;
            if (!spec.empty() && types::VersionSpec::parse(spec)) return "python " + spec;
        }
    return "python";
}

// The console scripts of entry_points.txt without a Python version in their
// name (pip, pip3; not the pip3.12 of the interpreter pip was installed for).
std::vector<types::EntryPoint> pip_entry_points(const HostPip& pip) {
    std::vector<types::EntryPoint> out;
    auto text = fs::read_file(pip.site / pip.dist_info / "entry_points.txt");
    if (!text) return out;
    bool console = false;
    for (const auto& raw : str::split_lines(*text)) {
        std::string line(str::trim(raw));
        if (str::starts_with(line, "[")) console = line == "[console_scripts]";
        if (!console || line.empty() || line[0] == '[') continue;
        if (auto ep = types::parse_entry_point(line); ep && ep->command.find('.') == std::string::npos)
            out.push_back(*ep);
    }
    return out;
}

}  // namespace

std::optional<HostPip> host_pip(const env::Interpreter& py) {
    HostPip pip;
    pip.site = py.prefix / "lib" / ("python" + py.minor) / "site-packages";
    std::error_code ec;
    if (!stdfs::is_regular_file(pip.site / "pip/__init__.py", ec)) return std::nullopt;
    int found = 0;
    for (const auto& e : stdfs::directory_iterator(pip.site, ec)) {
        std::string n = e.path().filename().string();
        if (!str::starts_with(n, "pip-") || !str::ends_with(n, ".dist-info")) continue;
        pip.dist_info = n;
        pip.version = n.substr(4, n.size() - 4 - 10);
        ++found;
    }
    // Two dist-infos leave it open which one pip/ is: none is exported.
    if (found != 1 || !types::check_version(pip.version)) return std::nullopt;
    return pip;
}

stdfs::path pip_package_in(const stdfs::path& channel, const HostPip& pip) {
    return channel / "noarch" / ("pip-" + pip.version + "-" + python_package_build() + ".conda");
}

Result<stdfs::path> export_pip(const env::Interpreter& py, const HostPip& pip, const stdfs::path& channel,
                               const stdfs::path& work) {
    std::error_code ec;
    if (stdfs::path there = pip_package_in(channel, pip); stdfs::exists(there, ec)) return there;
    stdfs::path stage = work / ("pip-" + pip.version);
    stdfs::remove_all(stage, ec);
    const std::vector<std::string> files = pip_files(pip);
    if (auto ok = script::copy_files(pip.site, files, stage / "site-packages"); !ok) return unexpected(ok.error());
    if (auto ok = fs::write_file_atomic(stage / "site-packages" / pip.dist_info / "INSTALLER", "conda\n"); !ok)
        return unexpected(ok.error());
    package::PackageMeta m;
    m.name = "pip";
    m.version = pip.version;
    m.build = python_package_build();
    m.subdir = types::Platform::noarch();
    m.noarch = types::NoArch::python;
    m.depends = {python_dependency(pip)};
    m.license = "MIT";
    m.summary = "The pip " + pip.version + " of the host's Python " + py.version + " (" + pip.site.string() +
                "), exported by splitforge's system provider";
    m.home = "https://pip.pypa.io";
    m.link_json = package::link_json(types::NoArch::python, pip_entry_points(pip), package::PythonRules::conda_build);
    std::vector<stdfs::path> inputs;
    for (const auto& f : files) inputs.push_back(pip.site / f);
    m.timestamp = timestamp::reproducible(inputs) * 1000;
    package::MakeOptions mo;
    return pack_into_channel(stage, m, work / "python-pkgs", mo, channel);
}

Result<stdfs::path> export_host_runtime(const std::string& name, const std::string& version, const stdfs::path& channel,
                                        const types::Platform& platform, const stdfs::path& work,
                                        std::optional<std::int64_t> timestamp_ms) {
    std::error_code ec;
    const std::string dist = name + "-" + version + "-" + python_package_build();
    if (stdfs::path there = channel / platform.name() / (dist + ".conda"); stdfs::exists(there, ec)) return there;
    stdfs::path stage = work / ("runtime-" + dist);
    stdfs::remove_all(stage, ec);
    stdfs::create_directories(stage, ec);
    package::PackageMeta m;
    m.name = name;
    m.version = version;
    m.build = python_package_build();
    m.build_number = 0;
    m.subdir = platform;
    m.license = "GPL-3.0-only WITH GCC-exception-3.1";
    m.summary = "The host's " + name + " (the system compiler's runtime), exported by splitforge's system provider";
    m.timestamp = timestamp_ms ? *timestamp_ms : std::max<std::int64_t>(timestamp::reproducible({}), 1) * 1000;
    package::MakeOptions mo;
    return pack_into_channel(stage, m, work / "runtime-pkgs", mo, channel);
}

}  // namespace sf::engine
