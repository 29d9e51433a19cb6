#include "render/context.hpp"

#include <cstdlib>

#include "render/pins.hpp"
#include "types/pin.hpp"
#include "util/strings.hpp"

extern char** environ;

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

Value env_dict() {
    jinja::Dict d;
    for (char** e = environ; e && *e; ++e) {
        std::string kv = *e;
        auto eq = kv.find('=');
        if (eq == std::string::npos) continue;
        d.emplace_back(kv.substr(0, eq), kv.substr(eq + 1));
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

jinja::Context make_context(const variant::Variant& v, const jinja::Context& selector_ns,
                            const PackageInfo& pkg, const std::string& recipe_dir,
                            jinja::Undefinedness undefined) {
    jinja::Context ctx;
    ctx.undefined = undefined;
    ctx.globals = selector_ns.globals;
    // Variant values are strings inside Jinja (only selectors convert them).
    for (const auto& [k, x] : v.values) ctx.globals[k] = x;

    std::string py = v.value_or("python", "3.12");
    auto py_parts = str::split(py.substr(0, py.find(' ')), '.');
    std::string py_ver = py_parts.at(0) + (py_parts.size() > 1 ? "." + py_parts[1] : "");
    ctx.globals["PY_VER"] = py_ver;
    ctx.globals["CONDA_PY"] = str::replace_all(py_ver, ".", "");
    std::string np = v.value_or("numpy", "1.26");
    auto np_parts = str::split(np, '.');
    ctx.globals["NPY_VER"] = np_parts.at(0) + (np_parts.size() > 1 ? "." + np_parts[1] : "");
    ctx.globals["CONDA_NPY"] = np_parts.at(0) + (np_parts.size() > 1 ? np_parts[1] : "");
    ctx.globals["PKG_NAME"] = pkg.name;
    ctx.globals["PKG_VERSION"] = pkg.version;
    ctx.globals["PKG_BUILDNUM"] = pkg.build_number;
    ctx.globals["PKG_HASH"] = "1234567";  // conda-build's placeholder while rendering
    ctx.globals["RECIPE_DIR"] = recipe_dir;
    ctx.globals["CONDA_BUILD_STATE"] = "RENDER";
    Value env = env_dict();
    ctx.globals["environ"] = env;
    ctx.globals["os"] = jinja::Dict{{"environ", env}, {"sep", "/"}};

    auto target = [v](const std::string& component) {
        return [v, component](const List& args, const KwArgs& kw) -> Result<Value> {
            auto lang = string_arg(args, kw, 0, "language", component);
            if (!lang) return unexpected(lang.error());
            return Value(compiler_spec(*lang, component, v));
        };
    };
    ctx.globals["compiler"] = jinja::Function(target("compiler"));
    ctx.globals["stdlib"] = jinja::Function(target("stdlib"));
    ctx.globals["cdt"] = jinja::Function([v](const List& args, const KwArgs& kw) -> Result<Value> {
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
        types::PinMarker m;
        m.kind = types::PinMarker::Kind::subpackage;
        m.name = *name;
        m.min_pin = pin_arg(args, kw, 1, "min_pin", "x.x.x.x.x.x");
        m.max_pin = pin_arg(args, kw, 2, "max_pin", "x");
        const Value* exact = arg(args, kw, 3, "exact");
        m.exact = exact && exact->truthy();
        return Value(types::encode_pin(m));
    });
    ctx.globals["pin_compatible"] = jinja::Function([](const List& args, const KwArgs& kw) -> Result<Value> {
        auto name = string_arg(args, kw, 0, "package_name", "pin_compatible");
        if (!name) return unexpected(name.error());
        types::PinMarker m;
        m.kind = types::PinMarker::Kind::compatible;
        m.name = *name;
        m.lower_bound = pin_arg(args, kw, 1, "lower_bound", "");
        m.upper_bound = pin_arg(args, kw, 2, "upper_bound", "");
        m.min_pin = pin_arg(args, kw, 3, "min_pin", "x.x.x.x.x.x");
        m.max_pin = pin_arg(args, kw, 4, "max_pin", "x");
        const Value* exact = arg(args, kw, 5, "exact");
        m.exact = exact && exact->truthy();
        return Value(types::encode_pin(m));
    });
    return ctx;
}

}  // namespace sf::render
