#include "script/script_env.hpp"

#include <algorithm>
#include <optional>
#include <set>
#include <system_error>
#include <tuple>
#include <utility>
#include <vector>

#include "util/fs.hpp"
#include "util/strings.hpp"

namespace sf::script {

namespace stdfs = std::filesystem;

std::string prefix_map_flags(const ScriptContext& c) {
    const std::string name = c.source_name.empty() ? c.pkg_name + "-" + c.pkg_version : c.source_name;
    std::vector<std::string> flags;
    for (const auto& [from, to] : {std::pair{c.src_dir, "/usr/local/src/conda/" + name},
                                   std::pair{c.prefix, std::string("/usr/local/src/conda-prefix")},
                                   std::pair{c.build_prefix, std::string("/usr/local/src/conda-build-prefix")}}) {
        if (from.empty()) continue;
        const std::string f = from.string();
        if (f.find_first_of(" \t\n") != std::string::npos || name.find_first_of(" \t\n") != std::string::npos) return {};
        flags.push_back("-ffile-prefix-map=" + f + "=" + to);
    }
    return str::join(flags, " ");
}

const std::vector<std::string>& inherited_keys() {
    static const std::vector<std::string> keys = {"HTTPS_PROXY", "HTTP_PROXY", "REQUESTS_CA_BUNDLE", "SSL_CERT_FILE",
                                                  "LC_ALL",      "MAKEFLAGS",  "DISPLAY",            "QEMU_LD_PREFIX",
                                                  "QEMU_UNAME",  "DEJAGNU"};
    return keys;
}

namespace {

std::string two_parts(const std::string& v) {
    auto parts = str::split(v, '.');
    return parts.size() < 2 ? v : parts[0] + "." + parts[1];
}

std::string inherited(const ScriptContext& c, const std::string& k) {
    auto it = c.inherited.find(k);
    return it == c.inherited.end() ? "" : it->second;
}

// environ.py's conda_build_vars (SYS_PREFIX, SYS_PYTHON and ROOT name
// conda-build's own installation: there is none).
void conda_build_vars(process::Env& e, const ScriptContext& c) {
    e["CONDA_BUILD"] = "1";
    e["CONDA_BUILD_STATE"] = c.phase == Phase::build ? "BUILD" : "TEST";
    e["PYTHONNOUSERSITE"] = "1";
    e["CONDA_DEFAULT_ENV"] = c.prefix.string();
    // conda-build activates the host prefix, then stacks the build prefix
    // (a test: the test prefix); compiler activation scripts and recipes
    // read CONDA_PREFIX.
    e["CONDA_PREFIX"] = c.phase == Phase::build ? c.build_prefix.string() : c.prefix.string();
    e["ARCH"] = c.target_platform.arch() == "x86_64" ? "64" : c.target_platform.arch();
    e["PREFIX"] = c.prefix.string();
    // A test keeps BUILD_PREFIX (build.py test() recomputes get_dict after
    // dropping it), but not the variant's target_platform.
    if (!c.build_prefix.empty()) e["BUILD_PREFIX"] = c.build_prefix.string();
    e["SUBDIR"] = c.target_platform.name();
    e["build_platform"] = c.build_platform.name();
    if (c.phase == Phase::build) e["target_platform"] = c.target_platform.name();
    e["SRC_DIR"] = c.src_dir.string();
    // conda-build sets these three even when empty; the rest only when set.
    for (const char* k : {"HTTPS_PROXY", "HTTP_PROXY", "REQUESTS_CA_BUNDLE"}) e[k] = inherited(c, k);
    for (const auto& k : inherited_keys())
        if (auto v = inherited(c, k); !v.empty()) e[k] = v;
    e["DIRTY"] = c.dirty ? "1" : "";
}

// python_vars, perl_vars, lua_vars, r_vars: the versions always, the
// interpreter only when the env has it.
void language_vars(process::Env& e, const ScriptContext& c) {
    const std::string py = c.py_ver.empty() ? two_parts(c.versions.python) : c.py_ver;
    const std::string stdlib = (c.prefix / "lib" / ("python" + py)).string();
    e["PY_VER"] = py;
    e["CONDA_PY"] = str::replace_all(py, ".", "");
    e["PY3K"] = str::starts_with(py, "3") ? "1" : "0";
    e["STDLIB_DIR"] = stdlib;
    e["SP_DIR"] = stdlib + "/site-packages";
    if (!c.py_ver.empty()) e["PYTHON"] = c.python.empty() ? (c.prefix / "bin/python").string() : c.python.string();
    const std::string np = two_parts(c.versions.numpy);
    e["NPY_VER"] = np;
    e["CONDA_NPY"] = str::replace_all(np, ".", "");
    e["NPY_DISTUTILS_APPEND_FLAGS"] = "1";
    for (const auto& [var, conda, v] : {std::tuple{"PERL_VER", "CONDA_PERL", &c.versions.perl},
                                        std::tuple{"LUA_VER", "CONDA_LUA", &c.versions.lua},
                                        std::tuple{"R_VER", "CONDA_R", &c.versions.r_base}}) {
        e[var] = two_parts(*v);
        e[conda] = two_parts(*v);
    }
}

// meta_vars, os_vars and linux_vars.
void package_and_os_vars(process::Env& e, const ScriptContext& c) {
    e["PKG_NAME"] = c.pkg_name;
    e["PKG_VERSION"] = c.pkg_version;
    e["PKG_BUILDNUM"] = std::to_string(c.pkg_buildnum);
    e["PKG_BUILD_STRING"] = c.pkg_build_string.empty() ? "placeholder" : c.pkg_build_string;
    e["PKG_HASH"] = c.pkg_hash.empty() ? "1234567" : c.pkg_hash;
    e["RECIPE_DIR"] = c.recipe_dir.string();
    if (!c.top_pkg_name.empty()) {
        e["TOP_PKG_NAME"] = c.top_pkg_name;
        e["TOP_PKG_VERSION"] = c.top_pkg_version;
    }
    e["CPU_COUNT"] = std::to_string(c.cpu_count);
    e["SHLIB_EXT"] = c.target_platform.os() == "win" ? ".dll" : c.target_platform.os() == "osx" ? ".dylib" : ".so";
    e["PKG_CONFIG_PATH"] = (c.prefix / "lib/pkgconfig").string();
    e["CMAKE_GENERATOR"] = "Unix Makefiles";
    if (c.target_platform.os() == "linux") {
        e["LD_RUN_PATH"] = (c.prefix / "lib").string();
        const std::string machine = c.build_platform.arch() == "x86" ? "i686" : c.build_platform.arch();
        const bool cos7 = machine == "aarch64" || machine == "ppc64le" || machine == "s390x";
        e["BUILD"] = machine + (cos7 ? "-conda_cos7-linux-gnu" : "-conda_cos6-linux-gnu");
    }
    if (c.phase == Phase::build) {  // build.py's _set_env_variables_for_build
        e["PIP_NO_BUILD_ISOLATION"] = "False";
        e["PIP_NO_DEPENDENCIES"] = "True";
        e["PIP_IGNORE_INSTALLED"] = "True";
        e["PIP_NO_INDEX"] = "True";
        e["PIP_CACHE_DIR"] = (c.src_dir.parent_path() / "pip_cache").string();
    }
}

// What conda-forge's compiler activation puts in CMAKE_ARGS that host tools
// can use: the build type, install dirs and program path. CMAKE_AR/RANLIB/
// LINKER/STRIP name the conda toolchain's binaries (CMake finds the host's
// own), and CMAKE_FIND_ROOT_PATH(_MODE_*) would hide the host libraries the
// system provider maps (BLAS, CUDA), so both are left out.
// CMAKE_BUILD_RPATH_USE_ORIGIN: the build tree's RPATHs name its own
// libraries by $ORIGIN, not by the work dir's path (CMake's knob for
// reproducible builds: the linker's build-id and .dynstr see them).
std::string cmake_args(const ScriptContext& c) {
    const std::string prefix = c.prefix.string();
    return "-DCMAKE_BUILD_TYPE=Release -DCMAKE_INSTALL_PREFIX=" + prefix + " -DCMAKE_INSTALL_LIBDIR=lib" +
           " -DCMAKE_PROGRAM_PATH=" + (c.build_prefix / "bin").string() + ";" + prefix + "/bin" +
           " -DCMAKE_PREFIX_PATH=" + prefix + " -DCMAKE_BUILD_RPATH_USE_ORIGIN=ON";
}

// ${NAME} in `v`, from the environment as set so far ("" when unset).
std::string expand(const std::string& v, const process::Env& e) {
    std::string out;
    size_t i = 0;
    while (i < v.size()) {
        size_t open = v.find("${", i), close = open == std::string::npos ? open : v.find('}', open);
        if (close == std::string::npos) break;
        out += v.substr(i, open - i);
        auto it = e.find(v.substr(open + 2, close - open - 2));
        if (it != e.end()) out += it->second;
        i = close + 1;
    }
    return out + v.substr(std::min(i, v.size()));
}

// activate-gcc.sh's _tc_activation: flags go before the ones already set,
// CMAKE_PREFIX_PATH before the dirs already listed, the rest replaces.
void apply_activation(process::Env& e, const ScriptContext& c) {
    static const std::set<std::string> flags = {"CPPFLAGS",       "CFLAGS",       "CXXFLAGS",    "FFLAGS",
                                                "FORTRANFLAGS",   "LDFLAGS",      "LDFLAGS_LD",  "DEBUG_CPPFLAGS",
                                                "DEBUG_CFLAGS",   "DEBUG_CXXFLAGS", "DEBUG_FFLAGS"};
    const process::Env before = e;
    for (const auto& [k, raw] : c.activation) {
        std::string v = expand(raw, before);
        auto it = before.find(k);
        const bool has = it != before.end() && !it->second.empty();
        if (has && flags.count(k)) v += " " + it->second;
        else if (has && k == "CMAKE_PREFIX_PATH") v += ":" + it->second;
        e[k] = v;
    }
}

std::string path_of(const ScriptContext& c) {
    std::vector<std::string> path;
    if (c.phase == Phase::build) path.push_back((c.build_prefix / "bin").string());
    path.push_back((c.prefix / "bin").string());
    for (const auto& d : c.tool_dirs)
        if (std::find(path.begin(), path.end(), d) == path.end()) path.push_back(d);
    for (const char* d : {"/usr/local/bin", "/usr/bin", "/bin"})
        if (std::find(path.begin(), path.end(), d) == path.end()) path.emplace_back(d);
    return str::join(path, ":");
}

}  // namespace

process::Env script_env(const ScriptContext& c) {
    process::Env d;  // environ.get_dict()'s own variables
    conda_build_vars(d, c);
    language_vars(d, c);
    package_and_os_vars(d, c);
    // get_dict's variant loop: a key becomes a variable unless its upper-case
    // name is one get_dict sets or a language (PYTHON, NUMPY, ...). They go
    // first: the tools and the activation win, as activation runs later.
    process::Env e;
    static const std::set<std::string> languages = {"PERL", "LUA", "R", "NUMPY", "PYTHON"};
    for (const auto& [k, v] : c.variant) {
        const std::string up = str::upper(k);
        if (!d.count(up) && !languages.count(up)) e[k] = v;
    }
    if (c.phase == Phase::build) {
        e["CC"] = "gcc";
        e["CXX"] = "g++";
    }
    for (const auto& [k, v] : c.tools) e[k] = v;
    for (auto& [k, v] : d) e[k] = std::move(v);
    if (c.phase == Phase::build) {
        e["CMAKE_ARGS"] = cmake_args(c);
        e["SPLITFORGE"] = c.splitforge.string();
        // Compilers read these (CMake and autotools at configure time); a value
        // the variant already gives keeps its flags after ours.
        if (std::string maps = prefix_map_flags(c); !maps.empty())
            for (const char* k : {"CFLAGS", "CXXFLAGS", "FFLAGS"}) {
                auto it = e.find(k);
                e[k] = it == e.end() || it->second.empty() ? maps : maps + " " + it->second;
            }
        apply_activation(e, c);
    }
    e["PATH"] = path_of(c);
    e["HOME"] = c.home;
    e["LANG"] = c.lang;
    if (!c.tmpdir.empty()) e["TMPDIR"] = c.tmpdir;
    for (const auto& [k, v] : c.script_env) e[k] = v;
    return e;
}

std::vector<process::Mask> script_masks(const ScriptContext& c) {
    return {{c.prefix.string(), "$PREFIX"}, {c.build_prefix.string(), "$BUILD_PREFIX"},
            {c.src_dir.string(), "$SRC_DIR"}};
}

Result<void> run_script(const ScriptRun& run, const ScriptContext& c) {
    stdfs::path script = run.script;
    std::string shown = script.filename().string();
    if (script.empty()) {
        script = run.work / "inline_script.sh";
        if (auto ok = fs::write_file_atomic(script, str::join(run.lines, "\n") + "\n"); !ok)
            return unexpected(ok.error());
        shown = "build/script";
    }
    std::error_code ec;
    if (!stdfs::exists(script, ec))
        return fail(SourceLoc{script.string()}, "the build script does not exist");
    if (!run.log.empty()) stdfs::create_directories(run.log.parent_path(), ec);
    process::Command cmd;
    std::optional<Activated> act;
    if (!c.activate.empty()) {
        auto a = activated_command(c.activate, run.work.empty() ? script.parent_path() : run.work,
                                   After::source_script, {script.string()});
        if (!a) return unexpected(a.error());
        act = std::move(*a);
    }
    cmd.argv = act ? act->argv : std::vector<std::string>{"bash", "-e", script.string()};
    cmd.cwd = c.src_dir;
    cmd.env = script_env(c);
    cmd.masks = script_masks(c);
    if (!run.log.empty()) cmd.log = run.log;
    auto r = process::stream(cmd, run.on_line);
    if (!r) return unexpected(r.error());
    if (act)
        if (auto ok = activation_result(*act, c.activate); !ok) return ok;
    if (r->exit_code != 0)  // the job failed (exit 1); a script that is not there is the recipe's (2)
        return fail_runtime(SourceLoc{run.script.empty() ? shown : run.script.string()},
                    shown + " failed with exit code " + std::to_string(r->exit_code),
                    run.log.empty() ? "" : "log: " + run.log.string());
    return {};
}

}  // namespace sf::script
