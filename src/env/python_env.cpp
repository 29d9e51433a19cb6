#include "env/python_env.hpp"

#include <algorithm>
#include <map>
#include <optional>
#include <system_error>
#include <thread>

#include "util/fs.hpp"

#include "util/strings.hpp"

namespace sf::env {

namespace stdfs = std::filesystem;

namespace {

const char* kProbe =
    "import sys, sysconfig, os\n"
    "print('%d.%d' % sys.version_info[:2])\n"
    "print('%d.%d.%d' % sys.version_info[:3])\n"
    "print(os.path.realpath(sys.executable))\n"
    "print(sys.base_prefix)\n"
    "print(int(os.path.exists(os.path.join(sysconfig.get_paths()['include'], 'Python.h'))))\n";

std::string env_get(const process::Env& env, const std::string& k) {
    auto it = env.find(k);
    return it == env.end() ? "" : it->second;
}

// pyenv's root as `pyenv root` prints it ($PYENV_ROOT, else ~/.pyenv),
// without running pyenv (a bash script).
stdfs::path pyenv_root(const process::Env& env) {
    std::string root = env_get(env, "PYENV_ROOT");
    while (root.size() > 1 && root.back() == '/') root.pop_back();
    if (!root.empty()) return root;
    if (!env_get(env, "HOME").empty()) return stdfs::path(env_get(env, "HOME")) / ".pyenv";
    return {};
}

std::vector<stdfs::path> pyenv_versions(const stdfs::path& root) {
    std::vector<stdfs::path> dirs;
    std::error_code ec;
    if (root.empty() || !stdfs::is_directory(root / "versions", ec)) return dirs;
    for (const auto& e : stdfs::directory_iterator(root / "versions", ec)) dirs.push_back(e.path());
    std::sort(dirs.begin(), dirs.end());
    return dirs;
}

// The versions pyenv selects (`pyenv version-name`): $PYENV_VERSION, else the
// nearest .python-version above the working directory, else <root>/version;
// "system" when none names one.
std::vector<std::string> pyenv_selected(const process::Env& env, const stdfs::path& root) {
    if (std::string v = env_get(env, "PYENV_VERSION"); !v.empty()) return str::split(v, ':');
    std::error_code ec;
    stdfs::path file;
    for (stdfs::path d = stdfs::current_path(ec); !ec && !d.empty(); d = d.parent_path()) {
        if (stdfs::is_regular_file(d / ".python-version", ec)) {
            file = d / ".python-version";
            break;
        }
        if (d == d.parent_path()) break;
    }
    if (file.empty()) file = root / "version";
    std::vector<std::string> names;
    if (auto text = fs::read_input_file(file, 64 << 10))
        for (const auto& line : str::split_lines(*text)) {
            std::string_view l = str::trim(line);
            if (l.empty() || l.front() == '#') continue;
            for (const auto& w : str::split(std::string(l), ' '))
                if (!str::trim(w).empty()) names.emplace_back(str::trim(w));
        }
    if (names.empty()) names.push_back("system");
    return names;
}

// A pyenv shim (<root>/shims/NAME) resolved as `pyenv exec NAME` would:
// the first selected version that has bin/NAME ("system": PATH without
// the shims). nullopt when only running the shim can tell (a version pyenv
// resolves as a prefix, like "3.12"); an empty path when the shim would fail.
std::optional<stdfs::path> resolve_shim(const stdfs::path& shim, const process::Env& env, const stdfs::path& root) {
    const std::string name = shim.filename().string();
    std::error_code ec;
    for (const auto& v : pyenv_selected(env, root)) {
        if (v == "system") {
            std::vector<std::string> dirs;
            for (const auto& d : str::split(env_get(env, "PATH"), ':'))
                if (stdfs::path(d).lexically_normal() != shim.parent_path().lexically_normal()) dirs.push_back(d);
            if (auto p = process::find_executable(name, str::join(dirs, ":"))) return *p;
            continue;
        }
        if (v.find('/') != std::string::npos || v == "." || v == "..") return std::nullopt;
        stdfs::path dir = root / "versions" / v;
        if (!stdfs::is_directory(dir, ec)) return std::nullopt;  // a prefix: pyenv picks the latest
        if (process::find_executable(name, (dir / "bin").string())) return dir / "bin" / name;
    }
    return stdfs::path();
}

// A candidate: the executable to probe and the minor its name claims.
struct Candidate {
    stdfs::path exe;
    std::string named;  // "3.12"
};

// Probes the candidates, each minor's in order, the minors concurrently
// (one thread per minor): a minor's next candidate runs only while none of
// the earlier ones gave it an interpreter with headers. Results by index.
std::vector<std::optional<Interpreter>> probe_all(const std::vector<Candidate>& cands, const process::Env& env) {
    std::vector<std::optional<Interpreter>> out(cands.size());
    std::map<std::string, std::vector<size_t>> by_minor;
    for (size_t i = 0; i < cands.size(); ++i) by_minor[cands[i].named].push_back(i);
    std::vector<std::thread> workers;
    for (const auto& [minor, idx] : by_minor)
        workers.emplace_back([&, m = minor, is = idx] {
            for (size_t i : is) {
                if (auto py = probe_python(cands[i].exe, env)) out[i] = *py;
                if (out[i] && out[i]->headers && out[i]->minor == m) break;
            }
        });
    for (auto& t : workers) t.join();
    return out;
}

}  // namespace

Result<Interpreter> probe_python(const stdfs::path& exe, const process::Env& env) {
    process::Command c{{exe.string(), "-c", kProbe}, {}, env, {}, {}, {}};
    auto r = process::capture(c);
    if (!r) return unexpected(r.error());
    auto lines = str::split_lines(r->out);
    if (r->exit_code != 0 || lines.size() < 5) return fail(exe.string() + ": does not run as a Python interpreter");
    Interpreter py;
    py.minor = lines[0];
    py.version = lines[1];
    py.exe = lines[2];
    py.prefix = lines[3];
    py.headers = lines[4] == "1";
    return py;
}

Interpreters discover_pythons(const process::Env& env, const std::set<std::string>& minors) {
    auto wanted = [&](const std::string& name) { return minors.empty() || minors.count(name.substr(6)) > 0; };
    const stdfs::path root = pyenv_root(env);
    std::vector<Candidate> cands;
    std::set<stdfs::path> seen;
    auto add = [&](const stdfs::path& exe, const std::string& name) {
        std::error_code ec;
        stdfs::path real = stdfs::weakly_canonical(exe, ec);
        if (seen.insert(ec ? exe : real).second) cands.push_back({exe, name.substr(6)});
    };
    for (int minor = 6; minor <= 15; ++minor) {
        const std::string name = "python3." + std::to_string(minor);
        if (!wanted(name)) continue;
        auto p = process::find_executable(name, env_get(env, "PATH"));
        if (!p) continue;
        // A shim runs pyenv (dozens of processes) to exec a version's binary:
        // probe that binary instead, when pyenv's choice is plain to see.
        if (!root.empty() && p->parent_path().lexically_normal() == (root / "shims").lexically_normal()) {
            auto real = resolve_shim(*p, env, root);
            if (real && real->empty()) continue;  // the shim would fail
            if (real) p = *real;
        }
        add(*p, name);
    }
    for (const auto& dir : pyenv_versions(root)) {
        std::error_code ec;
        std::vector<stdfs::path> exes;
        for (const auto& e : stdfs::directory_iterator(dir / "bin", ec)) exes.push_back(e.path());
        std::sort(exes.begin(), exes.end());
        for (const auto& e : exes) {
            std::string n = e.filename().string();
            if (str::starts_with(n, "python3.") && n.size() > 8 && n.find('-') == std::string::npos &&
                n.find_first_not_of("0123456789", 8) == std::string::npos && wanted(n))
                add(e, n);
        }
    }
    auto probed = probe_all(cands, env);
    Interpreters found;  // the first working interpreter with headers, in candidate order
    for (auto& py : probed)
        if (py && py->headers && !found.count(py->minor)) found[py->minor] = std::move(*py);
    return found;
}

// The layout `python -m venv --without-pip --symlinks` writes on POSIX
// (CPython 3.9-3.13, venv.EnvBuilder), without starting the interpreter: one
// per build, host and test env is a Python start-up and the venv module's
// imports each time. Activation scripts are left out: nothing in a build
// sources them, and conda's python package has none either.
Result<void> make_venv(const Interpreter& py, const stdfs::path& prefix) {
    std::error_code ec;
    stdfs::remove_all(prefix, ec);
    auto failed = [&](const std::string& what) {
        return fail("cannot create a python " + py.minor + " venv at " + prefix.string() + ": " + what + ": " +
                    ec.message());
    };
    stdfs::path bin = prefix / "bin", lib = prefix / "lib";
    if (stdfs::create_directories(bin, ec); ec) return failed("bin/");
    if (stdfs::create_directories(site_packages(prefix, py.minor), ec); ec) return failed("site-packages");
    if (stdfs::create_directories(prefix / "include", ec); ec) return failed("include/");
#ifndef __APPLE__
    if (sizeof(void*) == 8) {  // venv links lib64 to lib on 64-bit POSIX but macOS
        stdfs::create_directory_symlink("lib", prefix / "lib64", ec);
        if (ec) return failed("lib64");
    }
#endif
    // `home` is the base interpreter's directory: Python reads it at start-up
    // (a pyvenv.cfg beside bin/) to find its standard library.
    std::string cfg = "home = " + py.exe.parent_path().string() + "\ninclude-system-site-packages = false\nversion = " +
                      py.version + "\nexecutable = " + py.exe.string() + "\ncommand = " + py.exe.string() +
                      " -m venv --without-pip " + prefix.string() + "\n";
    if (auto ok = fs::write_file_atomic(prefix / "pyvenv.cfg", cfg); !ok) return unexpected(ok.error());
    stdfs::create_symlink(py.exe, bin / "python", ec);
    if (ec) return failed("bin/python");
    for (std::string alias : {std::string("python3"), "python" + py.minor}) {
        stdfs::create_symlink("python", bin / alias, ec);
        if (ec) return failed("bin/" + alias);
    }
    return {};
}

stdfs::path site_packages(const stdfs::path& prefix, const std::string& minor) {
    return prefix / "lib" / ("python" + minor) / "site-packages";
}

}  // namespace sf::env
