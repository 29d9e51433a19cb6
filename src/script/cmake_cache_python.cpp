#include "script/cmake_cache_python.hpp"

#include <algorithm>
#include <map>
#include <set>

#include "util/strings.hpp"

namespace sf::script {

namespace {

// Prints one `key=value` line per fact; works on every Python 3.
constexpr const char* kQuery = R"PY(
import os, sys, sysconfig
v = sysconfig.get_config_var
p = sysconfig.get_paths()
lib = ''
if v('Py_ENABLE_SHARED'):
    cand = os.path.join(v('LIBDIR') or '', v('LDLIBRARY') or '')
    if os.path.isfile(cand):
        lib = cand
facts = {
    'executable': sys.executable,
    'version': '%d.%d.%d' % sys.version_info[:3],
    'version_short': '%d.%d' % sys.version_info[:2],
    'include_dir': v('INCLUDEPY') or p['include'],
    'ext_suffix': v('EXT_SUFFIX') or '',
    'soabi': v('SOABI') or '',
    'library': lib,
    'prefix': sys.prefix,
    'site_packages': p['platlib'],
    'stdlib': p['stdlib'],
}
for k, val in facts.items():
    print(k + '=' + val)
)PY";

bool starts(const std::string& s, std::string_view p) { return str::starts_with(s, p); }

}  // namespace

Result<PythonFacts> query_python(const std::filesystem::path& python, const process::Env& env) {
    process::Command cmd;
    cmd.argv = {python.string(), "-I", "-c", kQuery};
    cmd.env = env;
    auto out = process::capture(cmd);
    if (!out) return fail(out.error().message, out.error().hint);
    if (out->exit_code != 0) {
        // A traceback ends with the reason; anything else (a shim, a shell) starts with it.
        std::vector<std::string> lines;
        for (const auto& l : str::split_lines(out->err))
            if (!str::trim(l).empty()) lines.emplace_back(str::trim(l));
        std::string last = lines.empty()                                   ? std::string("no output")
                           : out->err.find("Traceback") != std::string::npos ? lines.back()
                                                                             : lines.front();
        return fail("'" + python.string() + "' failed to report its configuration (exit " +
                        std::to_string(out->exit_code) + "): " + last,
                    "pass a working Python 3 interpreter");
    }
    std::map<std::string, std::string> kv;
    for (const auto& line : str::split_lines(out->out)) {
        auto eq = line.find('=');
        if (eq != std::string::npos) kv[line.substr(0, eq)] = line.substr(eq + 1);
    }
    PythonFacts f;
    f.executable = kv["executable"].empty() ? std::filesystem::absolute(python) : std::filesystem::path(kv["executable"]);
    f.version = kv["version"];
    f.version_short = kv["version_short"];
    f.include_dir = kv["include_dir"];
    f.ext_suffix = kv["ext_suffix"];
    f.soabi = kv["soabi"];
    f.library = kv["library"];
    f.prefix = kv["prefix"];
    f.site_packages = kv["site_packages"];
    f.stdlib = kv["stdlib"];
    if (f.version.empty() || f.include_dir.empty())
        return fail("'" + python.string() + "' did not report a version and include directory",
                    "pass a CPython 3 interpreter");
    return f;
}

RetargetReport retarget_python(CMakeCache& cache, const PythonFacts& f) {
    RetargetReport rep;
    const std::vector<CacheEntry> before = cache.entries();
    auto has = [&](const std::string& k) { return cache.get(k).has_value(); };

    // Values that name the old interpreter, to spot leftovers afterwards.
    std::vector<std::string> old_values;
    for (const auto& e : before) {
        static const std::set<std::string> kPathKeys = {
            "PYTHON_EXECUTABLE",  "Python_EXECUTABLE",  "Python3_EXECUTABLE",  "_Python_EXECUTABLE",
            "_Python3_EXECUTABLE", "PYTHON_INCLUDE_DIR", "Python_INCLUDE_DIR", "Python3_INCLUDE_DIR",
            "_Python_INCLUDE_DIR", "_Python3_INCLUDE_DIR"};
        bool names_python = kPathKeys.count(e.key) > 0 || str::ends_with(e.key, "_INTERPRETER_PROPERTIES");
        if (!names_python || e.value.empty() || str::ends_with(e.value, "-NOTFOUND")) continue;
        if (!str::ends_with(e.key, "_INTERPRETER_PROPERTIES")) old_values.push_back(e.value);
        // <prefix>/include/pythonX.Y -> <prefix>/lib/pythonX.Y (stdlib and site-packages)
        if (auto at = e.value.rfind("/include/python"); at != std::string::npos)
            old_values.push_back(e.value.substr(0, at) + "/lib/python" + e.value.substr(at + 15));
        // FindPython's interpreter properties end with its stdlib and site paths.
        if (str::ends_with(e.key, "_INTERPRETER_PROPERTIES")) {
            auto fields = str::split(e.value, ';');
            for (size_t i = 7; i < fields.size(); ++i)
                if (!fields[i].empty()) old_values.push_back(fields[i]);
        }
    }
    // Nothing the new interpreter also uses counts as old.
    old_values.erase(std::remove_if(old_values.begin(), old_values.end(),
                                    [&](const std::string& v) {
                                        return v == f.executable.string() || v == f.include_dir ||
                                               f.include_dir.find(v) != std::string::npos ||
                                               f.site_packages.find(v) != std::string::npos;
                                    }),
                     old_values.end());

    auto change = [&](const std::string& key, const std::string& value, const std::string& new_type) {
        auto cur = cache.get(key);
        if (cur && cur->value == value) return;
        cache.set(key, cur ? cur->type : new_type, value);
        rep.changed.push_back(key);
    };
    auto change_if_present = [&](const std::string& key, const std::string& value) {
        if (!has(key)) return;
        if (value.empty()) {
            cache.erase(key);
            rep.dropped.push_back(key);
        } else {
            change(key, value, "");
        }
    };
    auto drop_if = [&](const std::function<bool(const std::string&)>& pred) {
        for (const auto& e : cache.entries()) {
            if (pred(e.key) && cache.erase(e.key)) rep.dropped.push_back(e.key);
        }
    };

    // FindPython (Python_*) and FindPython3 (Python3_*): set the executable hint,
    // update user-visible paths, and drop the internal find cache so the module
    // re-reads the interpreter. PYTHON_*: FindPythonInterp/FindPythonLibs/pybind11.
    for (const std::string fam : {"Python", "Python3", "PYTHON"}) {
        const std::string pre = fam + "_";
        const std::string internal = "_" + fam + "_";
        bool present = std::any_of(before.begin(), before.end(), [&](const CacheEntry& e) {
            return starts(e.key, pre) || (fam != "PYTHON" && starts(e.key, internal)) ||
                   e.key == "FIND_PACKAGE_MESSAGE_DETAILS_" + fam ||
                   (fam == "PYTHON" && (e.key == "FIND_PACKAGE_MESSAGE_DETAILS_PythonInterp" ||
                                        e.key == "FIND_PACKAGE_MESSAGE_DETAILS_PythonLibs" ||
                                        e.key == "PYBIND11_PYTHON_EXECUTABLE_LAST"));
        });
        if (!present) continue;
        change(pre + "EXECUTABLE", f.executable.string(), "FILEPATH");
        for (const char* k : {"INCLUDE_DIR", "INCLUDE_DIRS", "INCLUDE_PATH"}) change_if_present(pre + k, f.include_dir);
        for (const char* k : {"LIBRARY", "LIBRARIES", "LIBRARY_RELEASE"}) change_if_present(pre + k, f.library);
        for (const char* k : {"LIBRARY_DEBUG", "DEBUG_LIBRARY"}) {
            auto e = cache.get(pre + k);
            if (e && !str::ends_with(e->value, "-NOTFOUND") && cache.erase(pre + k)) rep.dropped.push_back(pre + k);
        }
        change_if_present(pre + "ROOT_DIR", f.prefix);
        change_if_present(pre + "SOABI", f.soabi);
        change_if_present(pre + "SITEARCH", f.site_packages);
        change_if_present(pre + "SITELIB", f.site_packages);
        change_if_present(pre + "STDLIB", f.stdlib);
        change_if_present(pre + "STDARCH", f.stdlib);
        drop_if([&](const std::string& k) { return k == pre + "NumPy_INCLUDE_DIR" || k == pre + "NumPy_INCLUDE_DIRS"; });
        if (fam != "PYTHON") drop_if([&](const std::string& k) { return starts(k, internal); });
    }

    // pybind11: the module suffix follows the interpreter; the rest is recomputed.
    change_if_present("PYTHON_MODULE_EXTENSION", f.ext_suffix);
    change_if_present("PYTHON_MODULE_EXT_SUFFIX", f.ext_suffix);
    change_if_present("PYBIND11_PYTHON_VERSION", f.version_short);
    drop_if([](const std::string& k) {
        return k == "PYBIND11_PYTHON_EXECUTABLE_LAST" || k == "PYTHON_IS_DEBUG" || k == "PYTHON_MODULE_PREFIX" ||
               k == "PYTHON_MODULE_DEBUG_POSTFIX";
    });
    // "Found Python ..." messages are printed again for the new interpreter.
    drop_if([](const std::string& k) {
        return k == "FIND_PACKAGE_MESSAGE_DETAILS_Python" || k == "FIND_PACKAGE_MESSAGE_DETAILS_Python3" ||
               k == "FIND_PACKAGE_MESSAGE_DETAILS_PythonInterp" || k == "FIND_PACKAGE_MESSAGE_DETAILS_PythonLibs";
    });

    for (const auto& e : cache.entries()) {
        if (std::find(rep.changed.begin(), rep.changed.end(), e.key) != rep.changed.end()) continue;
        for (const auto& old : old_values) {
            if (e.value.find(old) != std::string::npos) {
                rep.stale.push_back(e.key);
                break;
            }
        }
    }
    return rep;
}

Result<RetargetReport> retarget_python(CMakeCache& cache, const std::filesystem::path& python) {
    auto facts = query_python(python, process::minimal_env());
    if (!facts) return fail(facts.error().message, facts.error().hint);
    return retarget_python(cache, *facts);
}

}  // namespace sf::script
