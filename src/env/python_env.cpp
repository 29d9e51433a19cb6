#include "env/python_env.hpp"

#include <system_error>

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

std::vector<stdfs::path> pyenv_versions(const process::Env& env) {
    std::vector<stdfs::path> roots;
    if (auto pyenv = process::find_executable("pyenv", env_get(env, "PATH"))) {
        process::Command c{{pyenv->string(), "root"}, {}, env, {}, {}, {}};
        if (auto r = process::capture(c); r && r->exit_code == 0) {
            std::string root(str::trim(r->out));
            if (!root.empty()) roots.emplace_back(root);
        }
    }
    if (!env_get(env, "PYENV_ROOT").empty()) roots.emplace_back(env_get(env, "PYENV_ROOT"));
    if (!env_get(env, "HOME").empty()) roots.push_back(stdfs::path(env_get(env, "HOME")) / ".pyenv");
    std::vector<stdfs::path> dirs;
    std::error_code ec;
    for (const auto& root : roots) {
        if (!stdfs::is_directory(root / "versions", ec)) continue;
        std::vector<stdfs::path> found;
        for (const auto& e : stdfs::directory_iterator(root / "versions", ec)) found.push_back(e.path());
        std::sort(found.begin(), found.end());
        dirs.insert(dirs.end(), found.begin(), found.end());
        break;  // the first root that exists is pyenv's
    }
    return dirs;
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
    Interpreters found;
    auto wanted = [&](const std::string& name) { return minors.empty() || minors.count(name.substr(6)) > 0; };
    std::vector<stdfs::path> candidates;
    for (int minor = 6; minor <= 15; ++minor)
        if (wanted("python3." + std::to_string(minor)))
            if (auto p = process::find_executable("python3." + std::to_string(minor), env_get(env, "PATH")))
                candidates.push_back(*p);
    for (const auto& dir : pyenv_versions(env)) {
        std::error_code ec;
        for (const auto& e : stdfs::directory_iterator(dir / "bin", ec)) {
            std::string n = e.path().filename().string();
            if (str::starts_with(n, "python3.") && n.find('-') == std::string::npos &&
                n.find_first_not_of("0123456789", 8) == std::string::npos && wanted(n))
                candidates.push_back(e.path());
        }
    }
    for (const auto& c : candidates) {
        auto py = probe_python(c, env);
        if (!py || !py->headers || found.count(py->minor)) continue;
        found[py->minor] = *py;
    }
    return found;
}

Result<void> make_venv(const Interpreter& py, const stdfs::path& prefix, const process::Env& env) {
    std::error_code ec;
    stdfs::remove_all(prefix, ec);
    stdfs::create_directories(prefix.parent_path(), ec);
    process::Command c{{py.exe.string(), "-m", "venv", "--without-pip", prefix.string()}, {}, env, {}, {}, {}};
    auto r = process::capture(c);
    if (!r) return unexpected(r.error());
    if (r->exit_code != 0)
        return fail("cannot create a python " + py.minor + " venv at " + prefix.string() + ": " +
                    std::string(str::trim(r->err)));
    return {};
}

stdfs::path site_packages(const stdfs::path& prefix, const std::string& minor) {
    return prefix / "lib" / ("python" + minor) / "site-packages";
}

}  // namespace sf::env
