#include "env/provider.hpp"

#include <unistd.h>

#include <set>
#include <system_error>

#include <nlohmann/json.hpp>

#include "archive/read.hpp"
#include "env/install.hpp"
#include "env/solve.hpp"
#include "types/match_spec.hpp"
#include "types/version.hpp"
#include "util/fs.hpp"
#include "util/strings.hpp"
#include "types/json_fields.hpp"

namespace sf::env {

namespace stdfs = std::filesystem;

Result<ProviderKind> parse_provider(const std::string& s) {
    if (s == "system") return ProviderKind::system;
    if (s == "micromamba") return ProviderKind::micromamba;
    if (s == "mamba") return ProviderKind::mamba;
    if (s == "conda") return ProviderKind::conda;
    if (s == "pixi") return ProviderKind::pixi;
    return fail("unknown environment provider '" + s + "'", "expected system, micromamba, mamba or conda");
}

const char* to_string(ProviderKind k) {
    switch (k) {
        case ProviderKind::system: return "system";
        case ProviderKind::micromamba: return "micromamba";
        case ProviderKind::mamba: return "mamba";
        case ProviderKind::conda: return "conda";
        case ProviderKind::pixi: return "pixi";
    }
    return "?";
}

types::RunExports parse_run_exports(const std::string& text) {
    if (types::json_too_deep(text)) return {};  // no run_exports.json nests; a hostile one exports nothing
    return types::RunExports::from_json(nlohmann::json::parse(text, nullptr, false));
}

std::map<std::string, types::RunExports> run_exports_in_prefix(const stdfs::path& prefix) {
    std::map<std::string, types::RunExports> out;
    std::error_code ec;
    for (const auto& e : stdfs::directory_iterator(prefix / "conda-meta", ec)) {
        if (e.path().extension() != ".json") continue;
        auto text = fs::read_file(e.path());
        if (!text || types::json_too_deep(*text)) continue;
        auto j = nlohmann::json::parse(*text, nullptr, false);
        if (!j.is_object() || !j.contains("name") || !j["name"].is_string()) continue;
        std::string name = j["name"].get<std::string>();
        if (j.contains("extracted_package_dir") && j["extracted_package_dir"].is_string()) {
            stdfs::path f = stdfs::path(j["extracted_package_dir"].get<std::string>()) / "info/run_exports.json";
            if (auto t = fs::read_file(f)) {
                out[name] = parse_run_exports(*t);
                continue;
            }
        }
        if (j.contains("package_tarball_full_path") && j["package_tarball_full_path"].is_string())
            if (auto t = archive::read_package_member(j["package_tarball_full_path"].get<std::string>(),
                                                      "info/run_exports.json"))
                out[name] = parse_run_exports(*t);
    }
    return out;
}

bool on_host(const SystemMap& map, const std::string& package, const process::Env& env) {
    const MapEntry* e = map.find(package);
    return e && static_cast<bool>(find_on_host(*e, env));
}


Result<std::vector<std::string>> external_create_argv(ProviderKind kind, const std::string& tool,
                                                      const stdfs::path& prefix,
                                                      const std::vector<std::string>& channels,
                                                      const std::vector<std::string>& specs) {
    if (kind == ProviderKind::system) return fail("the system provider runs no external tool");
    if (kind == ProviderKind::pixi)
        return fail("pixi cannot create an environment at a given prefix",
                    "use --env-provider micromamba (or mamba/conda)");
    std::vector<std::string> argv = {tool.empty() ? to_string(kind) : tool, "create", "-y", "-p", prefix.string()};
    for (const auto& c : channels) {
        argv.push_back("-c");
        argv.push_back(c);
    }
    argv.push_back("--override-channels");
    argv.insert(argv.end(), specs.begin(), specs.end());
    return argv;
}

namespace {

void add_unique(std::vector<std::string>& v, const std::string& s) {
    if (std::find(v.begin(), v.end(), s) == v.end()) v.push_back(s);
}

// A local channel as conda names one: file:// and the absolute path.
std::string file_url(const stdfs::path& dir) {
    std::error_code ec;
    return "file://" + stdfs::absolute(dir, ec).lexically_normal().string();
}

// "12" of "gcc_linux-64 12.*" / "12.3.0"; "" without a version.
std::string requested_major(const std::string& spec) {
    auto parts = str::split(std::string(str::trim(spec)), ' ');
    if (parts.size() < 2) return "";
    std::string v = parts[1];
    v.erase(0, v.find_first_not_of("=<>!~"));
    return v.substr(0, v.find_first_of(".*,"));
}

// The host's glibc ("2.36"), from confstr(_CS_GNU_LIBC_VERSION) ("glibc 2.36").
std::string host_glibc() {
    char buf[64] = {};
    if (confstr(_CS_GNU_LIBC_VERSION, buf, sizeof buf) == 0) return "";
    std::string v(buf);
    return v.substr(v.find(' ') == std::string::npos ? 0 : v.find(' ') + 1);
}

// A sysroot (c_stdlib_version) older than the host's glibc: what is built
// here may need the newer glibc at run time, where conda-forge's would not.
void check_glibc(const std::string& spec, PreparedEnv& out) {
    auto parts = str::split(std::string(str::trim(spec)), ' ');
    if (parts.size() < 2) return;
    std::string want = parts[1].substr(0, parts[1].find_first_of("*,"));
    while (!want.empty() && want.back() == '.') want.pop_back();
    const std::string have = host_glibc();
    auto want_v = types::Version::parse(want), have_v = types::Version::parse(have);
    if (!want_v || !have_v || !(*want_v < *have_v)) return;
    add_unique(out.warnings, "'" + spec + "' stands in as the host's glibc " + have +
                                 ": what is built here may need glibc " + have + " at run time [host-glibc-version]");
}

// ${TOOL} and ${TOOL_DIR} of an activation value: the host tool found. A
// value naming a tool of TOOL_DIR that is not there is left out (false).
bool resolve_tool(std::string& value, const stdfs::path& tool) {
    const std::string dir = tool.parent_path().string();
    if (str::starts_with(value, "${TOOL_DIR}/")) {
        std::error_code ec;
        if (tool.empty() || !stdfs::exists(dir + value.substr(std::string("${TOOL_DIR}").size()), ec)) return false;
    }
    if (tool.empty() && value.find("${TOOL") != std::string::npos) return false;
    value = str::replace_all(str::replace_all(value, "${TOOL_DIR}", dir), "${TOOL}", tool.string());
    return true;
}

// The activation of entry `e` (and of the entries it brings in) for the
// requirement `spec`, laid into `out`.
void add_activation(const SystemMap& map, const MapEntry& e, const std::string& spec, const stdfs::path& tool,
                    const process::Env& env, std::map<std::string, std::string>& out) {
    for (const auto& name : e.with) {
        const MapEntry* w = map.find(name);
        if (!w || w == &e) continue;
        auto hit = find_on_host(*w, env);
        for (auto [k, v] : w->activation_for(spec))
            if (resolve_tool(v, hit ? hit->path : stdfs::path())) out[k] = v;
    }
    for (auto [k, v] : e.activation_for(spec))
        if (resolve_tool(v, tool)) out[k] = v;
}

class SystemProvider : public EnvProvider {
    // Local directories first, then URLs and names (the installer fetches them).
    std::vector<std::string> all_channels() const {
        auto all = channel_list(ctx_.channels);
        all.insert(all.end(), ctx_.channel_urls.begin(), ctx_.channel_urls.end());
        return all;
    }

public:
    explicit SystemProvider(ProviderContext ctx) : ctx_(std::move(ctx)) {}
    ProviderKind kind() const override { return ProviderKind::system; }

    Result<PreparedEnv> create(const EnvSpec& spec) override {
        PreparedEnv out;
        std::error_code ec;
        stdfs::remove_all(spec.prefix, ec);
        std::set<std::string> in_channels, real_python;
        std::map<std::string, stdfs::path> file_of;  // dist -> package file
        if (!all_channels().empty()) {
            auto idx = load_channels(all_channels(), ctx_.platform, ctx_.pkgs_dir, ctx_.network);
            if (!idx) return unexpected(idx.error());
            for (const auto& c : idx->packages) {
                in_channels.insert(c.record.name);
                // A channel's own python, not the stand-in splitforge exports (0_system).
                if (c.record.name == "python" && c.record.build != "0_system") real_python.insert(c.record.name);
                // A remote package's file is where download_package puts it.
                file_of[c.record.dist_name()] =
                    !c.file.empty() || c.record.sha256.empty()
                        ? c.file
                        : (ctx_.pkgs_dir.empty() ? default_pkgs_dir() : ctx_.pkgs_dir) / "archives" / c.record.sha256 / c.record.fn;
            }
        }
        std::vector<std::string> to_install;
        bool venv = false;
        for (const auto& s : spec.specs) {
            std::string name = types::MatchSpec::name_of(s);
            if (name.empty()) continue;
            // python: the channel's when it has one (conda's python, as
            // conda-build's prefixes hold), else a venv of a host interpreter.
            if (name == "python" && spec.role != EnvRole::test && !real_python.count(name)) {
                if (auto ok = stand_in_allowed(s); !ok) return unexpected(ok.error());
                venv = true;
                continue;
            }
            if (in_channels.count(name)) {
                to_install.push_back(s);
                continue;
            }
            if (const MapEntry* e = ctx_.map.find(name)) {
                if (auto ok = stand_in_allowed(s); !ok) return unexpected(ok.error());
                auto hit = find_on_host(*e, ctx_.env);
                if (!hit) return unexpected(hit.error());
                // The conda-forge package the host stands in for exports these.
                if (const types::RunExports* re = e->run_exports_for(s)) out.run_exports[name] = *re;
                if (str::starts_with(name, "sysroot_")) check_glibc(s, out);
                if (e->kind == MapKind::ignore) continue;
                out.from_host.push_back(s + " -> " + hit->path.string() + compiler_note(*e, s, hit->path, out));
                if (e->kind == MapKind::tool) {
                    add_unique(out.path_dirs, hit->path.parent_path().string());
                    if (!e->var.empty()) out.vars[e->var] = hit->path.string();
                    add_activation(ctx_.map, *e, s, hit->path, ctx_.env, out.activation);
                    if (e->var == "CC")
                        if (auto root = sysroot_of(hit->path); !root.empty()) out.activation["CONDA_BUILD_SYSROOT"] = root;
                    if (e->var == "NVCC") out.vars["CUDA_HOME"] = hit->path.parent_path().parent_path().string();
                }
                continue;
            }
            return fail("requirement '" + s + "' is neither in the channels nor in the system map",
                        "build it first, add it with --system-map FILE, or use --env-provider micromamba");
        }
        if (venv) {
            // A version the requirement names ("python 3.12", the megabuild's
            // libtorch) wins over the variant's Python, as in a solve.
            std::string want;
            for (const auto& s : spec.specs)
                if (types::MatchSpec::name_of(s) == "python") {
                    auto parts = str::split(std::string(str::trim(s)), ' ');
                    if (parts.size() > 1) want = types::minor_version(parts[1]);
                }
            if (want.empty()) want = spec.python;
            auto it = ctx_.pythons.find(want);
            if (want.empty() || it == ctx_.pythons.end())
                return fail("python " + (want.empty() ? std::string("(any)") : want) +
                                " is required but no such interpreter was found (searched PATH and pyenv)",
                            "install it (e.g. pyenv install " + (want.empty() ? "3.12" : want) +
                                ") or pass --skip-unavailable");
            if (auto ok = make_venv(it->second, spec.prefix); !ok) return unexpected(ok.error());
            out.python = it->second;
        } else {
            stdfs::create_directories(spec.prefix, ec);
        }
        std::vector<std::string> requests = to_install;
        for (const auto& f : spec.package_files) requests.push_back(f.string());
        if (!requests.empty()) {
            InstallOptions io;
            io.channels = all_channels();
            io.pkgs_dir = ctx_.pkgs_dir;
            io.platform = ctx_.platform;
            io.network = ctx_.network;
            io.run_scripts = ctx_.run_scripts;
            // Run dependencies the host meets (libgcc-ng, libstdcxx-ng: the
            // compilers' run_exports) are not looked for in the channels.
            for (const auto& [n, e] : ctx_.map.entries)
                if (e.kind == MapKind::ignore) io.host_provided.insert(n);
            // The venv is this env's python: a package depending on python
            // (a noarch: python one too) is linked into it, not beside it.
            if (venv) io.in_prefix.insert("python");
            auto r = install(spec.prefix, requests, io);
            if (!r) return unexpected(r.error());
            out.installed = r->linked;
            if (!venv && spec.role != EnvRole::test && real_python.count("python"))
                if (auto py = probe_python(spec.prefix / "bin/python", ctx_.env)) out.python = *py;
            for (const auto& dist : r->linked) {
                auto it = file_of.find(dist);
                if (it == file_of.end()) continue;
                auto text = archive::read_package_member(it->second, "info/run_exports.json");
                if (!text) continue;
                std::string name = dist.substr(0, dist.rfind('-', dist.rfind('-') - 1));
                out.run_exports[name] = parse_run_exports(*text);
            }
        }
        stdfs::create_directories(spec.prefix / "bin", ec);
        return out;
    }

private:
    ProviderContext ctx_;

    // --no-system: a requirement no channel provides is an error, not a stand-in.
    Result<void> stand_in_allowed(const std::string& spec) const {
        if (ctx_.stand_ins == StandIns::allowed) return {};
        return fail("requirement '" + spec + "' is in none of the channels, and --no-system refuses the host's stand-in [no-system]",
                    "add a channel that provides it (-c), or drop --no-system to let the host stand in");
    }
    std::map<std::string, std::string> versions_;  // compiler path -> its version, probed once
    std::map<std::string, std::string> sysroots_;  // compiler path -> its -print-sysroot, probed once

    // The compiler's own sysroot ("" for Debian's gcc, which has none: the
    // host's / is no sysroot a recipe may treat as its own).
    const std::string& sysroot_of(const stdfs::path& cc) {
        auto [it, fresh] = sysroots_.try_emplace(cc.string());
        if (!fresh) return it->second;
        process::Command c;
        c.argv = {cc.string(), "-print-sysroot"};
        c.env = ctx_.env;
        std::error_code ec;
        if (auto r = process::capture(c); r && r->exit_code == 0) {
            std::string root(str::trim(r->out));
            if (!root.empty() && root != "/" && stdfs::is_directory(root, ec)) it->second = root;
        }
        return it->second;
    }

    // " (gcc 12.2.0)" for a compiler (CC, CXX, FC), and a warning in `out`
    // when its major version is not the one the requirement asks for.
    std::string compiler_note(const MapEntry& e, const std::string& spec, const stdfs::path& path, PreparedEnv& out) {
        if (e.var != "CC" && e.var != "CXX" && e.var != "FC") return "";
        auto [it, fresh] = versions_.try_emplace(path.string());
        if (fresh) {
            process::Command c;
            c.argv = {path.string(), "-dumpfullversion", "-dumpversion"};
            c.env = ctx_.env;
            if (auto r = process::capture(c); r && r->exit_code == 0) it->second = std::string(str::trim(r->out));
        }
        const std::string& have = it->second;
        if (have.empty()) return "";
        const std::string want = requested_major(spec);
        if (!want.empty() && have.substr(0, have.find('.')) != want)
            add_unique(out.warnings, "'" + spec + "' stands in as the host's " + path.filename().string() + " " + have +
                                         ": packages and their run_exports follow the variant's " + want +
                                         ", the code the host's compiler [host-compiler-version]");
        return " (" + path.filename().string() + " " + have + ")";
    }
};

class ExternalProvider : public EnvProvider {
public:
    ExternalProvider(ProviderKind kind, ProviderContext ctx) : kind_(kind), ctx_(std::move(ctx)) {}
    ProviderKind kind() const override { return kind_; }

    Result<PreparedEnv> create(const EnvSpec& spec) override {
        std::error_code ec;
        stdfs::remove_all(spec.prefix, ec);
        if (!spec.package_files.empty() && spec.package_channel.empty())
            return fail(std::string(to_string(kind_)) + " installs packages only from a channel, and no channel holds " +
                        spec.package_files.front().filename().string());
        // Local channels as file:// URLs, the package under test's first.
        std::vector<std::string> channels;
        if (!spec.package_channel.empty()) channels.push_back(file_url(spec.package_channel));
        for (const auto& c : ctx_.channels) add_unique(channels, file_url(c));
        for (const auto& c : ctx_.channel_urls) add_unique(channels, c);
        std::vector<std::string> specs = spec.specs;
        for (const auto& f : spec.package_files) {
            // An external solver takes the package by name/version/build from
            // package_channel.
            std::string stem = archive::package_stem(f);
            auto last = stem.rfind('-');
            auto mid = stem.rfind('-', last - 1);
            specs.push_back(stem.substr(0, mid) + " " + stem.substr(mid + 1, last - mid - 1) + " " +
                            stem.substr(last + 1));
        }
        PreparedEnv out;
        if (specs.empty()) {
            stdfs::create_directories(spec.prefix / "conda-meta", ec);
            return out;
        }
        auto argv = external_create_argv(kind_, ctx_.tool, spec.prefix, channels, specs);
        if (!argv) return unexpected(argv.error());
        process::Env env = ctx_.user_config;
        for (const auto& [k, v] : ctx_.env) env[k] = v;  // what splitforge sets wins
        process::Command cmd{*argv, {}, std::move(env), {{spec.prefix.string(), "$PREFIX"}}, {}, {}};
        auto r = process::stream(cmd, ctx_.on_line ? ctx_.on_line : std::function<void(const std::string&)>{});
        if (!r) {
            Error e = r.error();  // a spawn that failed at runtime stays the job's
            e.hint = "install " + std::string(to_string(kind_)) + " or use the system provider (the default)";
            return unexpected(std::move(e));
        }
        if (r->exit_code != 0)
            return fail(std::string(to_string(kind_)) + " create failed (exit " + std::to_string(r->exit_code) +
                        ") for: " + str::join(specs, ", "));
        out.run_exports = run_exports_in_prefix(spec.prefix);
        for (const auto& [name, re] : out.run_exports) out.installed.push_back(name);
        for (const auto& s : specs)
            if (types::MatchSpec::name_of(s) == "python") {
                auto exe = spec.prefix / "bin/python";
                if (auto py = probe_python(exe, ctx_.env)) out.python = *py;
            }
        // Compilers come from the environment itself: conda-forge's, named
        // after the target's triplet, else plain ones.
        std::string triplet = ctx_.platform.toolchain_triplet();
        auto named = [&](const char* tool) { return triplet.empty() ? std::string() : triplet + "-" + tool; };
        for (const auto& [var, names] : std::map<std::string, std::vector<std::string>>{
                 {"CC", {named("cc"), "gcc", "cc"}},
                 {"CXX", {named("c++"), "g++", "c++"}},
                 {"NVCC", {"nvcc"}}}) {
            for (const auto& n : names)
                if (!n.empty() && stdfs::exists(spec.prefix / "bin" / n, ec)) {
                    out.vars[var] = (spec.prefix / "bin" / n).string();
                    break;
                }
        }
        return out;
    }

private:
    ProviderKind kind_;
    ProviderContext ctx_;
};

}  // namespace

process::Env user_tool_config(const process::Env& all) {
    static const std::set<std::string> activation = {"CONDA_PREFIX", "CONDA_DEFAULT_ENV", "CONDA_SHLVL",
                                                     "CONDA_PROMPT_MODIFIER", "CONDA_EXE", "CONDA_PYTHON_EXE"};
    static const std::set<std::string> exact = {"CONDARC", "MAMBARC", "HTTP_PROXY", "HTTPS_PROXY", "NO_PROXY",
                                                "http_proxy", "https_proxy", "no_proxy", "SSL_CERT_FILE",
                                                "SSL_CERT_DIR", "REQUESTS_CA_BUNDLE", "CURL_CA_BUNDLE"};
    process::Env out;
    for (const auto& [k, v] : all) {
        bool prefixed = str::starts_with(k, "CONDA_") || str::starts_with(k, "MAMBA_") || str::starts_with(k, "PIXI_") ||
                        str::ends_with(k, "_PKGS_DIRS");
        bool shell_state = activation.count(k) || str::starts_with(k, "CONDA_PREFIX_");
        if ((prefixed && !shell_state) || exact.count(k)) out.emplace(k, v);
    }
    return out;
}

std::unique_ptr<EnvProvider> make_provider(ProviderKind kind, ProviderContext ctx) {
    if (kind == ProviderKind::system) return std::make_unique<SystemProvider>(std::move(ctx));
    return std::make_unique<ExternalProvider>(kind, std::move(ctx));
}

}  // namespace sf::env
