#include "script/script_env.hpp"

#include <system_error>
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

process::Env script_env(const ScriptContext& c) {
    process::Env e;
    // Variant keys first: the engine's own variables win over a key that
    // happens to share a name.
    for (const auto& [k, v] : c.variant) e[k] = v;
    e["CC"] = "gcc";
    e["CXX"] = "g++";
    for (const auto& [k, v] : c.tools) e[k] = v;
    e["PREFIX"] = c.prefix.string();
    e["BUILD_PREFIX"] = c.build_prefix.string();
    e["SRC_DIR"] = c.src_dir.string();
    e["RECIPE_DIR"] = c.recipe_dir.string();
    e["PKG_NAME"] = c.pkg_name;
    e["PKG_VERSION"] = c.pkg_version;
    e["PKG_BUILDNUM"] = std::to_string(c.pkg_buildnum);
    e["PKG_HASH"] = c.pkg_hash;
    if (!c.py_ver.empty()) {
        e["PY_VER"] = c.py_ver;
        e["PYTHON"] = c.python.empty() ? (c.prefix / "bin/python").string() : c.python.string();
        e["SP_DIR"] = (c.prefix / "lib" / ("python" + c.py_ver) / "site-packages").string();
    }
    e["CPU_COUNT"] = std::to_string(c.cpu_count);
    e["SHLIB_EXT"] = ".so";
    e["target_platform"] = c.target_platform.name();
    e["build_platform"] = c.build_platform.name();
    // CMAKE_BUILD_RPATH_USE_ORIGIN: the build tree's RPATHs name its own
    // libraries by $ORIGIN, not by the work dir's path (CMake's knob for
    // reproducible builds: the linker's build-id and .dynstr see them).
    e["CMAKE_ARGS"] = "-DCMAKE_INSTALL_PREFIX=" + c.prefix.string() + " -DCMAKE_PREFIX_PATH=" + c.prefix.string() +
                      " -DCMAKE_INSTALL_LIBDIR=lib -DCMAKE_BUILD_RPATH_USE_ORIGIN=ON";
    e["SPLITFORGE"] = c.splitforge.string();
    // Compilers read these (CMake and autotools at configure time); a value
    // the variant already gives keeps its flags after ours.
    if (std::string maps = prefix_map_flags(c); !maps.empty())
        for (const char* k : {"CFLAGS", "CXXFLAGS", "FFLAGS"}) {
            auto it = e.find(k);
            e[k] = it == e.end() || it->second.empty() ? maps : maps + " " + it->second;
        }
    std::vector<std::string> path = {(c.prefix / "bin").string(), (c.build_prefix / "bin").string()};
    for (const auto& d : c.tool_dirs)
        if (std::find(path.begin(), path.end(), d) == path.end()) path.push_back(d);
    for (const char* d : {"/usr/local/bin", "/usr/bin", "/bin"})
        if (std::find(path.begin(), path.end(), d) == path.end()) path.emplace_back(d);
    e["PATH"] = str::join(path, ":");
    e["HOME"] = c.home;
    e["LANG"] = c.lang;
    if (!c.tmpdir.empty()) e["TMPDIR"] = c.tmpdir;
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
    cmd.argv = {"bash", "-e", script.string()};
    cmd.cwd = c.src_dir;
    cmd.env = script_env(c);
    cmd.masks = script_masks(c);
    if (!run.log.empty()) cmd.log = run.log;
    auto r = process::stream(cmd, run.on_line);
    if (!r) return unexpected(r.error());
    if (r->exit_code != 0)
        return fail(SourceLoc{run.script.empty() ? shown : run.script.string()},
                    shown + " failed with exit code " + std::to_string(r->exit_code),
                    run.log.empty() ? "" : "log: " + run.log.string());
    return {};
}

}  // namespace sf::script
