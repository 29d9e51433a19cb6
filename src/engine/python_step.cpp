// The Python post-processing of an output's payload with this build's
// interpreters: conda-build's rules for meta.yaml, rattler-build's for
// recipe.yaml (package/python_files.hpp says what each does).
#include "engine/engine_detail.hpp"
#include "package/python_files.hpp"
#include "util/timestamp.hpp"

namespace sf::engine::detail {

Result<std::vector<std::string>> python_step(const Ctx& ctx, const Staging& st, const render::RenderedOutput& o,
                                             const env::PreparedEnv& henv, const stdfs::path& payload,
                                             std::vector<std::string> files, std::string& link_json) {
    const bool v1 = st.format == render::RecipeFormat::recipe_yaml;
    package::PythonFilesOptions po;
    po.rules = v1 ? package::PythonRules::rattler_build : package::PythonRules::conda_build;
    po.noarch = o.noarch;
    for (const auto& text : o.post_build.entry_points) {
        auto ep = types::parse_entry_point(text);
        if (!ep) return fail(std::string(v1 ? "build.python.entry_points" : "build/entry_points") + ": " +
                                 ep.error().message,
                             ep.error().hint);
        po.entry_points.push_back(std::move(*ep));
    }
    po.skip_compile = o.post_build.skip_compile_pyc;
    std::error_code ec;
    if (v1) {
        // Not cross-compiling: the host env's interpreter; the entry
        // points name it as rattler's PythonInfo does (bin/pythonX.Y).
        po.python = ctx.host_prefix / "bin/python";
        if (!po.entry_points.empty() && o.noarch != types::NoArch::python) {
            if (!henv.python)
                return fail("build.python.entry_points: could not find python in the host requirements",
                            "add python to requirements.host");
            po.entry_python = (ctx.host_prefix / ("bin/python" + henv.python->minor)).string();
        }
    } else {
        // post_process_files: the build env's python when there is one, else the host's;
        // create_entry_point's shebang is the host's (config.host_python).
        po.python = ctx.build_prefix / "bin/python";
        if (!stdfs::is_regular_file(po.python, ec)) po.python = ctx.host_prefix / "bin/python";
        po.entry_python = (ctx.host_prefix / "bin/python").string();
        po.shebang_python = (ctx.host_prefix / "bin/python").string();  // basename(build_python)
    }
    po.mtime = timestamp::source_date_epoch().value_or(ctx.timestamp_ms.value_or(0) / 1000);
    po.env = ctx.base_env;
    auto r = package::python_files(payload, std::move(files), po);
    if (!r) return unexpected(r.error());
    for (const auto& w : r->warnings) ctx.reporter.warning(Error{SourceLoc{o.dist()}, w, {}});
    if (!r->compiled.empty()) ctx.on_line("compiled " + std::to_string(r->compiled.size()) + " .pyc files");
    link_json = package::link_json(o.noarch, po.entry_points, po.rules);
    return std::move(r->files);
}

}  // namespace sf::engine::detail
