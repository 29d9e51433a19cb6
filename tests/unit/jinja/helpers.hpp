#pragma once
// Small helpers for the jinja tests: render/evaluate and return text, or the
// error as "file:line:col: message (hint)".
#include <catch2/catch.hpp>

#include <string>
#include <string_view>

#include "jinja/jinja.hpp"

namespace sf::jinja::test {

inline Context strict_ctx() {
    Context ctx;
    ctx.globals["blas_impl"] = "mkl";
    ctx.globals["cuda_compiler_version"] = "12.4";
    ctx.globals["py"] = 312;
    ctx.globals["linux"] = true;
    ctx.globals["win"] = false;
    ctx.globals["os"] = Dict{{"environ", Dict{{"HOME", "/home/conda"}}}};
    return ctx;
}

// Renders `text`; on error returns "ERROR: <error.str()>".
inline std::string render_str(std::string_view text, Context& ctx) {
    auto r = render(text, Origin{"meta.yaml"}, ctx);
    if (!r) return "ERROR: " + r.error().str();
    return *r;
}
inline std::string render_str(std::string_view text) {
    Context ctx = strict_ctx();
    return render_str(text, ctx);
}

// Evaluates `expr` and returns repr() of the value, or "ERROR: ...".
inline std::string eval_repr(std::string_view expr, const Context& ctx) {
    auto r = evaluate(expr, Origin{"sel"}, ctx);
    if (!r) return "ERROR: " + r.error().str();
    return r->repr();
}
inline std::string eval_repr(std::string_view expr) { return eval_repr(expr, strict_ctx()); }

// The rendered output of {{ expr }} (str(), not repr()).
inline std::string show(std::string_view expr) {
    return render_str("{{ " + std::string(expr) + " }}");
}

}  // namespace sf::jinja::test
