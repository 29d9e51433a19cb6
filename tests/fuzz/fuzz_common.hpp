#pragma once
// Globals shared by the fuzz targets: the kind of names a conda-forge recipe
// or selector sees, including callables.
#include "jinja/jinja.hpp"

namespace sf::fuzz {

inline jinja::Context make_context(jinja::Undefinedness mode) {
    using namespace sf::jinja;
    Context ctx;
    ctx.undefined = mode;
    ctx.globals["linux"] = true;
    ctx.globals["win"] = false;
    ctx.globals["osx"] = false;
    ctx.globals["py"] = 312;
    ctx.globals["blas_impl"] = "mkl";
    ctx.globals["cuda_compiler_version"] = "12.4";
    ctx.globals["python"] = "3.12";
    ctx.globals["numbers"] = List{1, 2.5, "three", true, None{}};
    ctx.globals["os"] = Dict{{"environ", Dict{{"HOME", "/root"}, {"CI", "true"}}}, {"sep", "/"}};
    ctx.globals["compiler"] = Function([](const List& args, const KwArgs&) -> Result<Value> {
        if (args.size() != 1 || !args[0].is_string()) return fail("compiler() takes one str");
        return Value(args[0].as_string() + "_linux-64");
    });
    ctx.globals["pin_subpackage"] = Function([](const List& args, const KwArgs& kwargs) -> Result<Value> {
        if (args.empty()) return fail("pin_subpackage() needs a name");
        std::string s = args[0].str();
        for (const auto& kv : kwargs) s += " " + kv.first + "=" + kv.second.str();
        return Value(s);
    });
    return ctx;
}

}  // namespace sf::fuzz
