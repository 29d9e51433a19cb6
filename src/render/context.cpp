#include "render/context.hpp"

#include <algorithm>
#include <map>
#include <memory>
#include <set>
#include <thread>
#include <unordered_map>

#include "render/pins.hpp"
#include "recipe/selectors.hpp"
#include "render/pin_text.hpp"
#include "types/platform.hpp"
#include "util/strings.hpp"

namespace sf::render {
namespace {

using jinja::KwArgs;
using jinja::List;
using jinja::Value;

std::string native_compiler(const std::string& language, const std::string& subdir) {
    std::string os = subdir.substr(0, subdir.find('-'));
    if (language == "c") return os == "win" ? "vs2017" : os == "osx" ? "clang" : "gcc";
    if (language == "cxx") return os == "win" ? "vs2017" : os == "osx" ? "clangxx" : "gxx";
    if (language == "fortran") return "gfortran";
    return language;
}

// Positional or keyword argument `name` at position `pos`.
const Value* arg(const List& args, const KwArgs& kw, size_t pos, const std::string& name) {
    for (const auto& [k, v] : kw)
        if (k == name) return &v;
    return pos < args.size() ? &args[pos] : nullptr;
}

Result<std::string> string_arg(const List& args, const KwArgs& kw, size_t pos, const std::string& name,
                               const std::string& fn) {
    const Value* v = arg(args, kw, pos, name);
    if (!v || !v->is_string()) return fail(fn + "() needs a string argument '" + name + "'");
    return v->as_string();
}

// None -> "", string -> itself, absent -> default.
std::string pin_arg(const List& args, const KwArgs& kw, size_t pos, const std::string& name,
                    const std::string& def) {
    const Value* v = arg(args, kw, pos, name);
    if (!v || v->is_undefined()) return def;
    if (v->is_none()) return "";
    return v->is_string() ? v->as_string() : v->str();
}

// The first two dot-separated parts: "3.12.* *_cpython" -> "3.12".
std::string two_parts(const std::string& v) {
    auto parts = str::split(v.substr(0, v.find(' ')), '.');
    return parts.at(0) + (parts.size() > 1 ? "." + parts[1] : "");
}

std::string env_or(const Value& env, const std::string& key, const std::string& def) {
    const Value* v = env.get(key);
    return v && v->is_string() && !v->as_string().empty() ? v->as_string() : def;
}

// conda-build's environ.get_dict() while rendering: the variables a build
// script sees. Paths are shown as the variables the build sets ("$PREFIX"),
// since no prefix exists yet; they expand correctly in test commands.
jinja::Dict build_environment(const variant::Variant& v, const PackageInfo& pkg, const std::string& recipe_dir,
                              const Value& env) {
    std::string target = v.value_or("target_platform", types::Platform().name());
    std::string os = target.substr(0, target.find('-'));
    std::string arch = target.substr(target.find('-') + 1);
    bool win = os == "win";
    // "$PREFIX" on Windows too: "%PREFIX%" would open a plain YAML scalar
    // with '%' (a directive), where conda-build's absolute path parses, as
    // in `script: {{ PYTHON }} -m pip install .` (jax, pyarrow).
    auto var = [](const std::string& name) { return "$" + name; };
    std::string prefix = var("PREFIX");
    std::string py_ver = two_parts(v.value_or("python", "3.12"));
    std::string stdlib = win ? prefix + "\\Lib" : prefix + "/lib/python" + py_ver;
    std::string np = two_parts(v.value_or("numpy", "1.26"));
    std::string cpus = env_or(env, "CPU_COUNT",
                              v.value_or("CPU_COUNT", std::to_string(std::max(1u, std::thread::hardware_concurrency()))));
    types::Platform build;
    std::string machine = build.arch() == "x86" ? "i686" : build.arch();
    bool cos7 = machine == "aarch64" || machine == "ppc64le" || machine == "s390x";
    jinja::Dict d = {
        {"CONDA_BUILD", "1"},
        {"PYTHONNOUSERSITE", "1"},
        {"CONDA_DEFAULT_ENV", prefix},
        {"ARCH", arch},
        {"PREFIX", prefix},
        {"BUILD_PREFIX", var("BUILD_PREFIX")},
        {"SYS_PREFIX", var("SYS_PREFIX")},
        {"SYS_PYTHON", var("SYS_PYTHON")},
        {"SUBDIR", target},
        {"build_platform", build.name()},
        {"SRC_DIR", var("SRC_DIR")},
        {"HTTPS_PROXY", env_or(env, "HTTPS_PROXY", "")},
        {"HTTP_PROXY", env_or(env, "HTTP_PROXY", "")},
        {"REQUESTS_CA_BUNDLE", env_or(env, "REQUESTS_CA_BUNDLE", "")},
        {"DIRTY", ""},
        {"ROOT", var("SYS_PREFIX")},
        {"PY_VER", py_ver},
        {"CONDA_PY", str::replace_all(py_ver, ".", "")},
        {"PY3K", str::starts_with(py_ver, "3") ? "1" : "0"},
        {"STDLIB_DIR", stdlib},
        {"SP_DIR", stdlib + (win ? "\\site-packages" : "/site-packages")},
        {"PYTHON", win ? prefix + "\\python.exe" : prefix + "/bin/python"},
        {"NPY_VER", np},
        {"CONDA_NPY", str::replace_all(np, ".", "")},
        {"NPY_DISTUTILS_APPEND_FLAGS", "1"},
        {"PERL_VER", two_parts(v.value_or("perl", "5.26.2"))},
        {"CONDA_PERL", two_parts(v.value_or("perl", "5.26.2"))},
        {"LUA_VER", two_parts(v.value_or("lua", "5"))},
        {"CONDA_LUA", two_parts(v.value_or("lua", "5"))},
        {"R_VER", two_parts(v.value_or("r_base", "3.5"))},
        {"CONDA_R", two_parts(v.value_or("r_base", "3.5"))},
        {"PKG_NAME", pkg.name},
        {"PKG_VERSION", pkg.version},
        {"PKG_BUILDNUM", pkg.build_number},
        {"PKG_BUILD_STRING", "placeholder"},
        {"PKG_HASH", "1234567"},  // conda-build's placeholder while rendering
        {"RECIPE_DIR", recipe_dir},
        {"CPU_COUNT", cpus},
        {"SHLIB_EXT", win ? ".dll" : os == "osx" ? ".dylib" : ".so"},
        {"PATH", env_or(env, "PATH", "")},
        {"HOME", env_or(env, "HOME", "UNKNOWN")},
        {"PKG_CONFIG_PATH", prefix + "/lib/pkgconfig"},
        {"CMAKE_GENERATOR", win ? "NMake Makefiles" : "Unix Makefiles"},
    };
    if (os == "linux") {
        d.emplace_back("LD_RUN_PATH", prefix + "/lib");
        d.emplace_back("BUILD", machine + (cos7 ? "-conda_cos7-linux-gnu" : "-conda_cos6-linux-gnu"));
    }
    return d;
}

}  // namespace

std::string compiler_spec(const std::string& language, const std::string& component,
                          const variant::Variant& v) {
    std::string target = v.value_or("target_platform", "linux-64");
    std::string pkg = component == "compiler" ? native_compiler(language, target) : language;
    pkg = v.value_or(language + "_" + component, pkg);
    std::string out = pkg + "_" + target;
    if (const std::string* ver = v.get(language + "_" + component + "_version"))
        out = ensure_valid_spec(out + " " + *ver);
    return out;
}

jinja::Context variant_context(const variant::Variant& v, const jinja::Context& selector_ns,
                               const std::string& recipe_dir) {
    const PackageInfo pkg;  // package_context() fills these in
    jinja::Context ctx;
    ctx.base = &selector_ns;  // selector names and os.environ, shared with the pass
    // conda-build's layering: selector names, the build environment, then
    // the variant values (strings inside Jinja; only selectors convert them).
    const Value* os_env = selector_ns.find("environ");
    Value env = os_env ? *os_env : recipe::environment_dict();
    jinja::Dict build_env = build_environment(v, pkg, recipe_dir, env);
    for (const auto& [k, x] : build_env) ctx.globals[k] = x;
    ctx.globals["CONDA_BUILD_STATE"] = "RENDER";
    for (const auto& [k, x] : v.values) ctx.globals[k] = x;

    // Jinja's `environ`: the process environment, the build environment and
    // the variant keys whose upper-case name is neither taken nor a language.
    jinja::Dict environ_dict = env.as_dict();
    // Reserved, so the keys the index points into never move.
    environ_dict.reserve(environ_dict.size() + build_env.size() + v.values.size());
    std::unordered_map<std::string_view, size_t> at;  // key -> its first index in environ_dict
    for (size_t i = environ_dict.size(); i-- > 0;) at[environ_dict[i].first] = i;
    auto put = [&](const std::string& k, const Value& x) {
        if (auto it = at.find(k); it != at.end()) {
            environ_dict[it->second].second = x;
            return;
        }
        environ_dict.emplace_back(k, x);
        at.emplace(environ_dict.back().first, environ_dict.size() - 1);
    };
    std::set<std::string> taken;
    for (const auto& [k, x] : build_env) {
        put(k, x);
        taken.insert(k);
    }
    static const std::set<std::string> languages = {"PERL", "LUA", "R", "NUMPY", "PYTHON"};
    for (const auto& [k, x] : v.values) {
        std::string up = str::upper(k);
        if (!taken.count(up) && !languages.count(up)) put(k, x);
    }
    ctx.globals["environ"] = Value(std::move(environ_dict));
    jinja::Dict os_environ = env.as_dict();
    os_environ.emplace_back("CONDA_BUILD_STATE", "RENDER");
    ctx.globals["os"] = recipe::os_module(Value(std::move(os_environ)));

    // One copy of the variant for the functions, and compiler()/stdlib()
    // answers memoized: a recipe asks for the same few many times.
    auto vp = std::make_shared<const variant::Variant>(v);
    auto specs = std::make_shared<std::map<std::pair<std::string, std::string>, std::string>>();
    auto target = [vp, specs](const std::string& component) {
        return [vp, specs, component](const List& args, const KwArgs& kw) -> Result<Value> {
            auto lang = string_arg(args, kw, 0, "language", component);
            if (!lang) return unexpected(lang.error());
            auto key = std::make_pair(*lang, component);
            auto it = specs->find(key);
            if (it == specs->end()) it = specs->emplace(key, compiler_spec(*lang, component, *vp)).first;
            return Value(it->second);
        };
    };
    ctx.globals["compiler"] = jinja::Function(target("compiler"));
    ctx.globals["stdlib"] = jinja::Function(target("stdlib"));
    ctx.globals["cdt"] = jinja::Function([vp](const List& args, const KwArgs& kw) -> Result<Value> {
        const variant::Variant& v = *vp;
        auto name = string_arg(args, kw, 0, "package_name", "cdt");
        if (!name) return unexpected(name.error());
        std::string target = v.value_or("target_platform", "linux-64");
        std::string arch = target.substr(target.find('-') + 1);
        std::string cdt_arch = arch == "64" ? "x86_64" : arch == "32" ? "i686" : arch;
        std::string def_name = (arch == "64" || arch == "32") ? "cos6" : "cos7";
        std::string cdt_name = v.value_or("cdt_name", def_name);
        cdt_arch = v.value_or("cdt_arch", cdt_arch);
        return Value(*name + "-" + cdt_name + "-" + cdt_arch);
    });
    ctx.globals["pin_subpackage"] = jinja::Function([](const List& args, const KwArgs& kw) -> Result<Value> {
        auto name = string_arg(args, kw, 0, "subpackage_name", "pin_subpackage");
        if (!name) return unexpected(name.error());
        types::Pin m;
        m.kind = types::Pin::Kind::subpackage;
        m.name = *name;
        m.min_pin = pin_arg(args, kw, 1, "min_pin", "x.x.x.x.x.x");
        m.max_pin = pin_arg(args, kw, 2, "max_pin", "x");
        const Value* exact = arg(args, kw, 3, "exact");
        m.exact = exact && exact->truthy();
        return Value(pin_placeholder(m));
    });
    ctx.globals["pin_compatible"] = jinja::Function([](const List& args, const KwArgs& kw) -> Result<Value> {
        auto name = string_arg(args, kw, 0, "package_name", "pin_compatible");
        if (!name) return unexpected(name.error());
        types::Pin m;
        m.kind = types::Pin::Kind::compatible;
        m.name = *name;
        m.lower_bound = pin_arg(args, kw, 1, "lower_bound", "");
        m.upper_bound = pin_arg(args, kw, 2, "upper_bound", "");
        m.min_pin = pin_arg(args, kw, 3, "min_pin", "x.x.x.x.x.x");
        m.max_pin = pin_arg(args, kw, 4, "max_pin", "x");
        const Value* exact = arg(args, kw, 5, "exact");
        m.exact = exact && exact->truthy();
        return Value(pin_placeholder(m));
    });
    return ctx;
}

jinja::Context package_context(const jinja::Context& variant_ctx, const variant::Variant& v, const PackageInfo& pkg,
                               jinja::Undefinedness undefined) {
    jinja::Context ctx;
    ctx.base = &variant_ctx;  // `{% set %}` writes here, never into the shared layer
    ctx.undefined = undefined;
    const std::pair<const char*, const std::string*> values[] = {
        {"PKG_NAME", &pkg.name}, {"PKG_VERSION", &pkg.version}, {"PKG_BUILDNUM", &pkg.build_number}};
    const PackageInfo none;
    if (pkg.name == none.name && pkg.version == none.version && pkg.build_number == none.build_number) return ctx;
    for (const auto& [k, val] : values)
        if (!v.has(k)) ctx.globals[k] = *val;  // a variant key of that name wins, as in variant_context()
    // environ holds them too, in place.
    if (const Value* env = variant_ctx.find("environ")) {
        jinja::Dict d = env->as_dict();
        for (auto& [k, x] : d)
            for (const auto& [name, val] : values)
                if (k == name) x = *val;
        ctx.globals["environ"] = Value(std::move(d));
    }
    return ctx;
}

}  // namespace sf::render
