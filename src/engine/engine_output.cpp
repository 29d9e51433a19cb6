// One output of a staging build: envs, script, payload, package (publish.cpp
// tests it and adds it to the channel).
#include <algorithm>
#include <set>
#include <system_error>

#include "core/rewrap.hpp"
#include "engine/engine_detail.hpp"
#include "engine/interrupt.hpp"
#include "engine/python_package.hpp"
#include "env/activation.hpp"
#include "package/linkage.hpp"
#include "package/writer.hpp"
#include "render/pins.hpp"
#include "script/capture.hpp"
#include "script/ninja_log.hpp"
#include "script/script_env.hpp"
#include "types/identifiers.hpp"
#include "types/match_spec.hpp"
#include "types/version.hpp"
#include "util/dir_handle.hpp"
#include "util/strings.hpp"

namespace sf::engine::detail {

namespace {

// The job's failure (exit 1) whatever the cause's kind: an env that cannot be made.
Error as_runtime(Error e) {
    e.kind = ErrorKind::runtime;
    return e;
}

void add_unique(std::vector<std::string>& v, const std::string& s) {
    if (std::find(v.begin(), v.end(), s) == v.end()) v.push_back(s);
}

// conda-build's rules: host packages' weak+strong exports, build packages'
// strong ones, minus ignore_run_exports(_from), never the output itself.
// Only packages the requirements name take part (render.py
// get_upstream_pins: "explicit_specs"): a dependency of a dependency exports
// nothing (libtorch-cuda-linalg's minimagma is no dependency of libtorch).
void apply_run_exports(const render::RenderedOutput& o, const env::PreparedEnv& build_env,
                       const env::PreparedEnv& host_env, std::vector<std::string>& depends,
                       std::vector<std::string>& constrains) {
    auto names = [](const std::vector<types::Dependency>& reqs) {
        std::set<std::string> out;
        for (const auto& s : types::dependency_strings(reqs)) out.insert(types::MatchSpec::name_of(s));
        return out;
    };
    const std::set<std::string> host_named = names(o.requirements.host), build_named = names(o.requirements.build);
    std::set<std::string> ignore_from;
    for (const auto& s : o.ignore_run_exports_from) ignore_from.insert(types::MatchSpec::name_of(s));
    std::set<std::string> ignore(o.ignore_run_exports.begin(), o.ignore_run_exports.end());
    auto take = [&](const std::vector<std::string>& specs, std::vector<std::string>& into) {
        for (const auto& s : specs) {
            std::string n = types::MatchSpec::name_of(s);
            if (n == o.name || ignore.count(n)) continue;
            add_unique(into, s);
        }
    };
    for (const auto& [name, re] : host_env.run_exports) {
        if (ignore_from.count(name) || name == o.name || !host_named.count(name)) continue;
        take(re.weak, depends);
        take(re.strong, depends);
        take(re.weak_constrains, constrains);
        take(re.strong_constrains, constrains);
    }
    for (const auto& [name, re] : build_env.run_exports) {
        if (ignore_from.count(name) || name == o.name || !build_named.count(name)) continue;
        take(re.strong, depends);
        take(re.strong_constrains, constrains);
    }
}

// What pin_compatible pins against (rattler-build's compatibility_specs):
// the packages of the build env, then of the host env over them, by name;
// a Python the provider stands in counts as the package we export for it.
struct Resolved {
    std::string version, build;
    std::string record;  // the conda-meta file they come from ("" for a provider's Python)
};
using ResolvedEnvs = std::map<std::string, Resolved>;

Result<ResolvedEnvs> resolved_envs(const Ctx& ctx, const env::PreparedEnv& benv, const env::PreparedEnv& henv) {
    ResolvedEnvs out;
    for (const auto& [prefix, e] : {std::pair{ctx.build_prefix, &benv}, std::pair{ctx.host_prefix, &henv}}) {
        if (e->python) out["python"] = {e->python->version, python_package_build(), {}};
        auto pkgs = package::read_prefix_packages(prefix);
        if (!pkgs) return unexpected(pkgs.error());
        for (const auto& pkg : *pkgs) {
            Resolved r{pkg.version, pkg.build, (prefix / "conda-meta" / (pkg.dist + ".json")).string()};
            if (r.version.empty() || r.build.empty()) {  // no fields: dist is name-version-build (a name may hold dashes)
                auto last = pkg.dist.rfind('-');
                auto mid = last == std::string::npos || last == 0 ? std::string::npos : pkg.dist.rfind('-', last - 1);
                if (mid == std::string::npos) continue;
                r.version = pkg.dist.substr(mid + 1, last - mid - 1);
                r.build = pkg.dist.substr(last + 1);
            }
            out[pkg.name] = std::move(r);
        }
    }
    return out;
}

bool has_compatible_pins(const render::RenderedOutput& o) {
    const auto& R = o.requirements;
    const auto& X = o.run_exports;
    for (const auto* l : {&R.run, &R.run_constrained, &X.weak, &X.strong, &X.noarch, &X.weak_constrains, &X.strong_constrains})
        for (const auto& d : *l)
            if (const types::Pin* p = d.pin(); p && p->kind == types::Pin::Kind::compatible) return true;
    return false;
}

// A recipe.yaml output's pin_compatible entries (run, run_constraints,
// run_exports) become specs against the envs the output was built with.
Result<void> resolve_compatible_pins(render::RenderedOutput& o, const ResolvedEnvs& envs) {
    auto& R = o.requirements;
    auto& X = o.run_exports;
    for (auto* l : {&R.run, &R.run_constrained, &X.weak, &X.strong, &X.noarch, &X.weak_constrains, &X.strong_constrains})
        for (auto& d : *l) {
            const types::Pin* p = d.pin();
            if (!p || p->kind != types::Pin::Kind::compatible) continue;
            auto it = envs.find(p->name);
            if (it == envs.end())
                return fail("pin_compatible('" + p->name + "'): '" + p->name +
                                "' is in neither the host nor the build environment",
                            "add it to requirements.host (a host tool the system provider stands in has no version)");
            // The pin's text becomes a match spec: a record's "1.0,<0|*" must not widen it.
            auto ok = types::check_version(it->second.version);
            if (ok) ok = types::check_build_string(it->second.build);
            if (!ok) return rewrap(ok.error(), SourceLoc{it->second.record}, "pin_compatible('" + p->name + "'): ");
            auto text = render::apply_v1_pin(*p, it->second.version, it->second.build);
            if (!text) return unexpected(text.error());
            auto dep = types::Dependency::parse(*text);
            if (!dep) return fail("pin_compatible('" + p->name + "') gave no match spec: " + dep.error().message);
            d = std::move(*dep);
        }
    return {};
}

// A recipe.yaml output inheriting a staging output gets its run_exports
// unless `inherit: {run_exports: false}`, minus its own ignore_run_exports
// (by name and from package); never itself.
void add_inherited_exports(const render::RenderedOutput& o, const std::vector<InheritedExport>& exports,
                           std::vector<std::string>& depends) {
    if (o.inherits.empty() || !o.inherit_run_exports) return;
    std::set<std::string> ignore(o.ignore_run_exports.begin(), o.ignore_run_exports.end()), ignore_from;
    for (const auto& s : o.ignore_run_exports_from) ignore_from.insert(types::MatchSpec::name_of(s));
    for (const auto& e : exports) {
        std::string n = types::MatchSpec::name_of(e.spec);
        if (n == o.name || ignore.count(n) || ignore_from.count(e.from)) continue;
        add_unique(depends, e.spec);
    }
}

std::string about_str(const nlohmann::json& about, const char* key) {
    if (!about.contains(key)) return "";
    const auto& v = about[key];
    if (v.is_string()) return v.get<std::string>();
    if (v.is_array() && !v.empty() && v[0].is_string()) return v[0].get<std::string>();
    return "";
}

package::PackageMeta package_meta(const Ctx& ctx, const render::RenderedOutput& o, std::vector<std::string> depends,
                                  std::vector<std::string> constrains) {
    package::PackageMeta m;
    m.name = o.name;
    m.version = o.version;
    m.build = o.build_string;
    m.build_number = o.build_number;
    m.depends = std::move(depends);
    m.constrains = std::move(constrains);
    m.subdir = o.noarch == types::NoArch::none ? ctx.opts.selection.platform : types::Platform::noarch();
    m.noarch = o.noarch;
    m.license = about_str(o.about, "license");
    m.license_family = about_str(o.about, "license_family");
    m.summary = about_str(o.about, "summary");
    m.description = about_str(o.about, "description");
    m.home = about_str(o.about, "home");
    m.dev_url = about_str(o.about, "dev_url");
    m.doc_url = about_str(o.about, "doc_url");
    // about.json lists them as given; conda-build leaves out an empty one.
    if (o.about.value("license_file", nlohmann::json()) != "") m.license_file_names = license_file_entries(o.about);
    m.run_exports = o.run_exports.strings();
    m.hash_input = o.hash_input;
    m.test.commands = o.test.commands;
    for (const auto& i : o.test.imports) m.test.commands.push_back("python -c \"import " + i + "\"");
    m.test.requires_ = types::dependency_strings(o.test.requires_);
    m.timestamp = ctx.timestamp_ms;
    return m;
}

// The linkage checks of one output (post.py check_overlinking): the host
// prefix's packages, the host libraries standing in for packages (the
// system map's libraries, the compilers' runtimes), and the recipe's keys
// over the build's defaults.
Result<package::LinkageOptions> linkage_options(const Ctx& ctx, const render::RenderedOutput& o,
                                                const env::PreparedEnv& henv, const std::vector<std::string>& depends) {
    package::LinkageOptions lo;
    lo.output = o.dist();
    lo.host_prefix = ctx.host_prefix;
    lo.prefix_string = ctx.host_prefix.string();
    lo.run_depends = depends;
    lo.ignore_run_exports = o.ignore_run_exports;
    auto pkgs = package::read_prefix_packages(ctx.host_prefix);
    if (!pkgs) return unexpected(pkgs.error());
    for (auto& p : *pkgs) {
        auto it = henv.run_exports.find(p.name);
        p.has_run_exports = it != henv.run_exports.end() && !it->second.empty();
    }
    lo.packages = std::move(*pkgs);
    lo.stand_ins = package::compiler_runtime_stand_ins();
    if (ctx.opts.provider == env::ProviderKind::system) {
        // "libopenblas.so*" stands for every entry that lists libopenblas.so.
        std::map<std::string, std::vector<std::string>> by_file;
        for (const auto& [name, e] : ctx.map.entries)
            if (e.kind == env::MapKind::library)
                for (const auto& c : e.candidates) by_file[c + "*"].push_back(name);
        for (auto& [file, names] : by_file) lo.stand_ins.push_back({file, std::move(names)});
    }
    const auto& pb = o.post_build;
    lo.missing_dso_whitelist = pb.missing_dso_whitelist;
    lo.runpath_whitelist = pb.runpath_whitelist;
    lo.ignore_patterns = pb.overlinking_ignore_patterns;
    auto level = [](std::optional<bool> recipe, package::LinkError dflt) {
        return recipe ? (*recipe ? package::LinkError::error : package::LinkError::warn) : dflt;
    };
    lo.overlinking = level(pb.error_overlinking, ctx.opts.error_overlinking);
    lo.overdepending = level(pb.error_overdepending, ctx.opts.error_overdepending);
    return lo;
}

}  // namespace

std::vector<InheritedExport> staging_run_exports(const render::StagingOutput& s, const env::PreparedEnv& build_env,
                                                 const env::PreparedEnv& host_env) {
    render::RenderedOutput as_output;  // apply_run_exports' rules, for the staging output
    as_output.name = s.name;
    as_output.requirements = s.requirements;
    as_output.ignore_run_exports = s.ignore_run_exports;
    as_output.ignore_run_exports_from = s.ignore_run_exports_from;
    std::vector<InheritedExport> out;
    for (const auto& [name, re] : host_env.run_exports) {
        env::PreparedEnv one;
        one.run_exports[name] = re;
        std::vector<std::string> depends, constrains;
        apply_run_exports(as_output, {}, one, depends, constrains);
        for (auto& d : depends) out.push_back({std::move(d), name});
    }
    for (const auto& [name, re] : build_env.run_exports) {
        env::PreparedEnv one;
        one.run_exports[name] = re;
        std::vector<std::string> depends, constrains;
        apply_run_exports(as_output, one, {}, depends, constrains);
        for (auto& d : depends) out.push_back({std::move(d), name});
    }
    return out;
}

Result<void> tell_host_tools(Ctx& ctx, const env::PreparedEnv& e) {
    for (const auto& t : e.from_host)
        if (ctx.tell_once(t)) ctx.progress("==> host tool: " + t);
    for (const auto& w : e.warnings) {
        // --strict: the package would not be the one conda-forge builds.
        if (ctx.opts.selection.strict)
            return fail(w, "install the compiler and glibc the variant names, or drop --strict");
        if (ctx.tell_once(w)) ctx.reporter.warning(Error{SourceLoc{}, w, {}});
    }
    return {};
}

// The host gcc's full version ("12.2.0"), probed once per build; "" without gcc.
const std::string& host_gcc_version(Ctx& ctx) {
    if (ctx.host_gcc_version) return *ctx.host_gcc_version;
    ctx.host_gcc_version = std::string();
    const std::string path = env_get(ctx.base_env, "PATH");
    if (auto gcc = process::find_executable("gcc", path)) {
        process::Command c;
        c.argv = {gcc->string(), "-dumpfullversion", "-dumpversion"};
        c.env = ctx.base_env;
        if (auto r = process::capture(c); r && r->exit_code == 0) ctx.host_gcc_version = std::string(str::trim(r->out));
    }
    return *ctx.host_gcc_version;
}

// The compilers' run_exports name runtimes the host meets (libgcc-ng >=12):
// each goes into the channel as the host's empty package of that name, so
// the channel solves on its own, when the host's version satisfies it. Not
// with --no-system, nor for a name the channels or this build's outputs have.
Result<void> export_runtimes(Ctx& ctx, const plan::StagingBuild& b, const std::vector<std::string>& depends) {
    if (ctx.opts.provider != env::ProviderKind::system) return {};
    for (const auto& d : depends) {
        auto ms = types::MatchSpec::parse(d);
        if (!ms) continue;
        const env::MapEntry* e = ctx.map.find(ms->name());
        if (!e || e->kind != env::MapKind::ignore || str::starts_with(ms->name(), "sysroot_")) continue;
        if (ctx.opts.stand_ins == env::StandIns::refused ||
            std::any_of(b.steps.begin(), b.steps.end(), [&](const plan::Step& s) { return s.output.name == ms->name(); }))
            continue;
        auto [known, fresh] = ctx.channel_runtimes.try_emplace(ms->name());
        if (fresh) known->second = channels_have(ctx.local_channels, ctx.opts.selection.platform, ms->name());
        if (known->second) continue;
        auto v = types::Version::parse(host_gcc_version(ctx));
        if (!v || !ms->version().matches(*v)) continue;  // the tests say so ([host-compiler-version])
        auto r = export_host_runtime(ms->name(), v->str(), ctx.output, ctx.opts.selection.platform, ctx.work,
                                     ctx.timestamp_ms);
        if (!r) return fail_from(r.error(), {}, ms->name() + ": export as a package: " + r.error().str());
        if (ctx.tell_once(r->string())) {
            ctx.report.exported.push_back(r->filename().string());
            ctx.progress("==> " + r->filename().string() + ": the host's runtime, exported into the channel");
        }
    }
    return {};
}

script::LanguageVersions language_versions(const variant::Variant& v) {
    script::LanguageVersions l;
    l.python = v.value_or("python", l.python);
    l.numpy = v.value_or("numpy", l.numpy);
    l.perl = v.value_or("perl", l.perl);
    l.lua = v.value_or("lua", l.lua);
    l.r_base = v.value_or("r_base", l.r_base);
    return l;
}

script::ActivatedPrefix activated(const stdfs::path& prefix, std::string role) {
    script::ActivatedPrefix a{prefix, std::move(role), {}, {}};
    for (auto& s : env::activate_scripts(prefix)) {
        a.scripts.push_back(std::move(s.path));
        a.packages.push_back(std::move(s.package));
    }
    return a;
}

script::ScriptContext script_context(const Ctx& ctx, const Staging& st, const env::PreparedEnv& benv,
                                    const env::PreparedEnv& henv) {
    script::ScriptContext c;
    c.prefix = ctx.host_prefix;
    c.build_prefix = ctx.build_prefix;
    c.src_dir = st.src_dir;
    c.source_name = st.source_name;
    c.recipe_dir = st.recipe_dir;
    if (henv.python) {
        c.py_ver = henv.python->minor;
        c.python = ctx.host_prefix / "bin/python";
    } else if (benv.python) {
        c.py_ver = benv.python->minor;
        c.python = ctx.build_prefix / "bin/python";
    }
    c.cpu_count = ctx.cpu_count;
    c.target_platform = ctx.opts.selection.platform;
    c.build_platform = ctx.opts.selection.build_platform;
    for (const auto* e : {&benv, &henv}) {
        for (const auto& d : e->path_dirs) c.tool_dirs.push_back(d);
        for (const auto& [k, v] : e->vars) c.tools[k] = v;
        for (const auto& [k, v] : e->activation) c.activation[k] = v;
    }
    c.splitforge = ctx.splitforge;
    c.versions = language_versions(st.build->variant);
    c.dirty = ctx.opts.keep == KeepBuild::yes;
    c.inherited = ctx.base_env;
    c.home = env_get(ctx.base_env, "HOME");
    c.tmpdir = env_get(ctx.base_env, "TMPDIR");
    c.variant = st.keys;
    // conda-build's build_env_setup.sh: `conda activate HOST`, then
    // `conda activate --stack BUILD` (its is_cross case, any recipe with a
    // host section; splitforge always keeps the two prefixes apart).
    c.activate = {activated(ctx.host_prefix, "host"), activated(ctx.build_prefix, "build")};
    return c;
}

// Packaging's warnings (an rpath entry outside the prefix, removed) go where
// every warning goes, so the summary, --json and --strict see them. Under
// --strict the first fails the output [strict-package-warning], and the
// package just made is removed.
static Result<void> report_package_warnings(Ctx& ctx, const std::string& dist, const package::MadePackage& made) {
    if (ctx.opts.selection.strict && !made.warnings.empty()) {
        std::error_code ec;
        for (const auto& f : made.files) stdfs::remove(f, ec);
        return fail(SourceLoc{dist}, made.warnings.front() + " [strict-package-warning]",
                    "fix what the build installs, or drop --strict");
    }
    for (const auto& w : made.warnings) ctx.reporter.warning(Error{SourceLoc{dist}, w, {}});
    return {};
}

Result<BuiltOutput> build_output(Ctx& ctx, Staging& st, const plan::Step& step) {
    auto t0 = std::chrono::steady_clock::now();
    render::RenderedOutput o = step.output;  // its pin_compatible entries resolve below
    const auto& b = *st.build;
    const std::string dist = o.dist();
    std::error_code ec;
    stdfs::path payload = ctx.work / "payload" / dist;
    auto err = [&](const std::string& stepname, const Error& e) {
        Error out = e;
        out.message = dist + ": " + stepname + ": " + e.message;
        return Unexpected<Error>{out};
    };
    stdfs::remove_all(payload, ec);
    if (!ec) stdfs::create_directories(payload, ec);
    if (ec) return err("payload", Error{SourceLoc{payload.string()}, ec.message(), {}, ErrorKind::runtime});

    env::PreparedEnv benv, henv;
    std::vector<std::string> files, rebuilt;
    std::string link_json;  // info/link.json (python_step)
    OutputResult::Steps steps;
    auto lap = [mark = t0]() mutable {
        auto now = std::chrono::steady_clock::now();
        double s = std::chrono::duration<double>(now - mark).count();
        mark = now;
        return s;
    };
    bool has_script = !o.script.empty() || !o.script_lines.empty();
    if (step.role != plan::Role::metapackage) {
        env::EnvSpec be{ctx.build_prefix, env::EnvRole::build, types::dependency_strings(o.requirements.build), {}, "", {}};
        // An env that cannot be made is the job's failure, as `install` that
        // cannot solve (exit 1); --strict's stand-in errors keep their kind.
        auto br = ctx.provider->create(be);
        if (!br) return err("build env", as_runtime(br.error()));
        benv = std::move(*br);
        if (auto ok = tell_host_tools(ctx, benv); !ok) return err("build env", ok.error());
        std::string py = step.python.empty() ? b.python : step.python;
        env::EnvSpec he{ctx.host_prefix, env::EnvRole::host, types::dependency_strings(o.requirements.host), {}, py, {}};
        auto hr = ctx.provider->create(he);
        if (!hr) return err("host env", as_runtime(hr.error()));
        henv = std::move(*hr);
        if (auto ok = tell_host_tools(ctx, henv); !ok) return err("host env", ok.error());
        // conda-build copies the top-level build's new files back into each
        // output's fresh host prefix: an output script works on top of them
        // (lz4-c-static: cp lib/liblz4.a $PREFIX/lib), and they are not its payload.
        // rattler-build restores a staging output's files the same way, but
        // they count as the inheriting output's new files (`files:` picks).
        auto before = script::snapshot(ctx.host_prefix);
        if (has_script && !st.staged_files.empty()) {
            if (auto ok = script::copy_files(st.staged, st.staged_files, ctx.host_prefix); !ok)
                return err("host env", ok.error());
            if (o.inherits.empty()) before.insert(st.staged_files.begin(), st.staged_files.end());
        }
        steps.envs = lap();
        if (has_script) {
            script::ScriptContext sc = script_context(ctx, st, benv, henv);
            sc.pkg_name = o.name;
            sc.pkg_version = o.version;
            sc.pkg_buildnum = o.build_number;
            sc.pkg_hash = o.hash;
            sc.pkg_build_string = o.build_string;
            if (!o.is_staging) {
                sc.top_pkg_name = st.package_name;
                sc.top_pkg_version = st.package_version;
            }
            for (const auto& [k, v] : o.used) sc.variant[k] = v;
            sc.script_env = o.script_env;
            script::ScriptRun run;
            if (!o.script.empty()) run.script = st.recipe_dir / o.script;
            run.lines = o.script_lines;
            run.work = ctx.work;
            run.log = log_path(ctx, dist);
            run.on_line = [&ctx](const std::string& l) { ctx.on_line(l); };
            auto logs = script::snapshot_ninja_logs(st.src_dir);
            write_env_setup(ctx, sc);
            if (auto r = script::run_script(run, sc); !r) {
                if (interrupted()) return fail_runtime({}, "interrupted (Ctrl-C) while building " + dist);
                Error e = r.error();
                e.hint = dirty_hint(ctx, e.hint);
                return err("script", e);
            }
            steps.script = lap();
            rebuilt = script::ninja_edges_since(st.src_dir, logs);
            files = script::new_files(ctx.host_prefix, before);
            // The output named like the package ran the top-level build.sh:
            // its files are what later outputs' scripts find in $PREFIX.
            if (o.is_staging && st.staged_files.empty()) {
                if (auto ok = script::copy_files(ctx.host_prefix, files, st.staged); !ok) return err("payload", ok.error());
                st.staged_files = files;
            }
            if (!o.files.empty()) files = script::select_files(files, o.files);
            files = script::package_files(std::move(files));
            if (auto ok = script::copy_files(ctx.host_prefix, files, payload); !ok) return err("payload", ok.error());
        } else if (!o.files.empty() || !o.inherits.empty()) {
            // No script: the staged files (`files:` picks; a recipe.yaml
            // output inheriting a staging output takes them all, as rattler-build).
            files = script::package_files(o.files.empty() ? st.staged_files : script::select_files(st.staged_files, o.files));
            if (auto ok = script::copy_files(st.staged, files, payload); !ok) return err("payload", ok.error());
        }
        auto pyfiles = python_step(ctx, st, o, henv, payload, std::move(files), link_json);
        if (!pyfiles) return err("python files", pyfiles.error());
    }

    if (step.role != plan::Role::metapackage) {
        std::vector<std::string> unmatched;
        if (auto ok = add_always_included(ctx.host_prefix, o, files, payload, unmatched); !ok)
            return err("always_include_files", ok.error());
        for (const auto& p : unmatched)
            ctx.reporter.warning(Error{SourceLoc{dist}, "build/always_include_files: '" + p + "' matches no file", {}});
    }
    if (auto ok = add_link_scripts(st.recipe_dir, o, payload); !ok) return err("link scripts", ok.error());

    if (has_compatible_pins(o)) {  // recipe.yaml's; meta.yaml's are resolved by render
        auto envs = step.role == plan::Role::metapackage ? ResolvedEnvs{} : resolved_envs(ctx, benv, henv);
        if (!envs) return err("run requirements", envs.error());
        if (auto ok = resolve_compatible_pins(o, *envs); !ok) return err("run requirements", ok.error());
    }
    std::vector<std::string> depends = types::dependency_strings(o.requirements.run),
                             constrains = types::dependency_strings(o.requirements.run_constrained);
    apply_run_exports(o, benv, henv, depends, constrains);
    add_inherited_exports(o, st.run_exports, depends);
    if (auto ok = export_runtimes(ctx, *st.build, depends); !ok) return err("runtime", ok.error());

    package::MakeOptions mo;
    mo.postprocess.emplace();
    mo.postprocess->prefix = ctx.host_prefix.string();
    mo.postprocess->env = ctx.base_env;
    mo.postprocess->build_id = package::BuildIdFix::rehash;  // reproducible: ids from the final bytes
    mo.postprocess->rpaths = o.post_build.rpaths;
    mo.postprocess->relocate_only = o.post_build.relocate_only;
    if (!o.post_build.binary_relocation) mo.postprocess->rpath = package::RpathFix::keep;
    mo.postprocess->prefix_rules = prefix_rules(o.post_build);
    if (step.role != plan::Role::metapackage) {
        auto lo = linkage_options(ctx, o, henv, depends);
        if (!lo) return err("linkage", lo.error());
        mo.postprocess->linkage = std::move(*lo);
    }
    mo.write.zstd_level = ctx.opts.zstd_level;
    mo.write.threads = ctx.cpu_count;
    std::vector<std::string> license_warnings;
    auto licenses = license_files(st, o, license_warnings);
    if (!licenses) return err("license", licenses.error());
    for (const auto& w : license_warnings) {
        // --strict: a licence from outside the folders is the recipe's error.
        if (ctx.opts.selection.strict && w.find("[license-file-outside]") != std::string::npos)
            return err("license",
                       Error{SourceLoc{dist}, w, "name a file inside the source or recipe folder, or drop --strict"});
        ctx.reporter.warning(Error{SourceLoc{dist}, w, {}});
    }
    package::PackageMeta meta = package_meta(ctx, o, depends, constrains);
    meta.license_files = std::move(*licenses);
    meta.recipe_files = recipe_files(ctx, st, o);
    meta.link_json = std::move(link_json);
    meta.no_link = o.post_build.no_link;
    meta.track_features = o.post_build.track_features;
    meta.index_extra = o.post_build.index_extra;
    auto made = package::make_package(payload, std::move(meta), ctx.pkgs_out, mo);
    if (!made) return err("package", made.error());
    if (auto ok = report_package_warnings(ctx, dist, *made); !ok) return err("package", ok.error());
    for (const auto& m : made->linkage.messages)
        if (m.severity == package::LinkSeverity::warning) ctx.reporter.warning(Error{SourceLoc{dist}, m.text, m.hint});
    stdfs::path pkg = made->files.front();
    stdfs::remove_all(payload, ec);

    steps.package = lap();
    BuiltOutput built{output_result(b, step, Status::built), pkg, t0};
    built.result.steps = steps;
    built.result.size = stdfs::file_size(pkg, ec);
    built.result.rebuilt = rebuilt;
    return built;
}

}  // namespace sf::engine::detail
