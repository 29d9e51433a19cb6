#include "publish/smoke.hpp"

#include "net/url.hpp"
#include "process/process.hpp"

namespace sf::publish {

namespace {

namespace stdfs = std::filesystem;

// What the user's shell may hold that a fresh install must not see: the
// libraries and modules of another environment, another pip index.
process::Env clean_env() {
    process::Env env = process::current_env();
    for (const char* k : {"LD_LIBRARY_PATH", "PYTHONPATH", "PYTHONHOME", "PIP_INDEX_URL", "PIP_EXTRA_INDEX_URL",
                          "PIP_FIND_LINKS", "CONDA_PREFIX", "VIRTUAL_ENV"})
        env.erase(k);
    env["PIP_CONFIG_FILE"] = "/dev/null";  // nor the user's pip.conf
    return env;
}

Result<void> run_step(const std::vector<std::string>& argv, const process::Env& env, const std::string& what,
                      const std::vector<process::Mask>& masks) {
    process::Command c;
    c.argv = argv;
    c.env = env;
    c.masks = masks;
    auto r = process::capture(c);
    if (!r) return unexpected(r.error());
    if (r->exit_code == 0) return {};
    std::string last = net::mask_text(r->err.empty() ? r->out : r->err);
    while (!last.empty() && last.back() == '\n') last.pop_back();
    if (auto nl = last.rfind('\n'); nl != std::string::npos) last = last.substr(nl + 1);
    Error e{{}, what + " failed (exit " + std::to_string(r->exit_code) + "): " + last, {}, ErrorKind::runtime};
    return unexpected(std::move(e));
}

Result<stdfs::path> venv_python(const SmokeOptions& o, const process::Env& env) {
    const stdfs::path venv = o.work / "venv";
    const std::string shown = net::mask(o.index_url);
    const std::vector<process::Mask> masks = {{o.index_url, shown}};
    stdfs::path base = o.python;
    if (base.empty()) {
        auto found = process::find_executable("python3", env.count("PATH") ? env.at("PATH") : "");
        if (!found) return fail({}, "no python3 on PATH to make the venv with", "give --python PATH");
        base = *found;
    }
    if (auto r = run_step({base.string(), "-m", "venv", venv.string()}, env, "python -m venv", {}); !r)
        return unexpected(r.error());
    std::vector<std::string> pip = {(venv / "bin/python").string(), "-m", "pip", "install", "--no-cache-dir",
                                    "--disable-pip-version-check", "--index-url", o.index_url};
    pip.insert(pip.end(), o.specs.begin(), o.specs.end());
    if (auto r = run_step(pip, env, "pip install from " + shown, masks); !r) return unexpected(r.error());
    return venv / "bin/python";
}

}  // namespace

Result<SmokeResult> smoke(const SmokeOptions& o) {
    if (!stdfs::is_regular_file(o.script))
        return fail({}, "smoke test " + o.script.string() + " not found", "give --script FILE");
    const process::Env env = clean_env();
    SmokeResult out;
    stdfs::path python;
    if (o.from == SmokeOptions::From::channel) {
        out.from = "channels";
        out.place = o.work / "prefix";
        auto r = env::install(out.place, o.specs, o.install);
        if (!r) {
            Error e = r.error();
            e.kind = ErrorKind::runtime;
            return unexpected(std::move(e));
        }
        out.installed = r->linked;
        python = out.place / "bin/python";
        if (!stdfs::exists(python))
            return unexpected(Error{{},
                                    "the packages installed no bin/python to run " + o.script.filename().string() + " with",
                                    "add python (or the package that brings it) to the specs", ErrorKind::runtime});
    } else {
        if (!o.python.empty() && !stdfs::exists(o.python))
            return fail({}, "--python " + o.python.string() + " not found", "give the path of a Python interpreter");
        out.from = net::mask(o.index_url);
        out.place = o.work / "venv";
        auto p = venv_python(o, env);
        if (!p) return unexpected(p.error());
        python = *p;
    }
    // From an empty directory: `import torch` must find the installed
    // package, never a source tree beside the script.
    process::Command c;
    c.argv = {python.string(), stdfs::absolute(o.script).string()};
    c.argv.insert(c.argv.end(), o.script_args.begin(), o.script_args.end());
    c.env = env;
    c.cwd = o.work;
    auto r = process::stream(c);
    if (!r) return unexpected(r.error());
    out.exit_code = r->exit_code;
    return out;
}

}  // namespace sf::publish
