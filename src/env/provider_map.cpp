#include "env/provider_map.hpp"

#include <algorithm>
#include <system_error>

#include <yaml-cpp/yaml.h>

#include "util/fs.hpp"
#include "util/strings.hpp"

namespace sf::env {

namespace stdfs = std::filesystem;

namespace {

const char* kDefaultMap = R"(# splitforge system provider: requirements the host satisfies.
# tool: executables looked up on PATH (the first found wins; its directory is
#       added to the scripts' PATH); var: the env var that gets its path.
# library: files looked up in the system library dirs (and $MKLROOT).
# ignore: satisfied by the host as is (sysroots, kernel headers, the C/C++
#       runtimes); a package's run dependency on it is met by the host too.
# run_exports: what the conda-forge package the entry stands for exports,
#       per version of the requirement ("gcc_linux-64 12.*": the row "12"; the
#       longest row that is a prefix of the version, by components, wins).
#
# The compilers' rows are ctng-compiler-activation-feedstock's run_exports
# (recipe/meta.yaml) in the era conda-forge's pinning used each major:
#   gcc 7-9 (2021-09 to 2022-05): libgcc-ng/libstdcxx-ng >= the full
#     version built (ctng_gcc 7.5.0, 8.5.0, 9.4.0);
#   gcc 10-12 (2022-05-20, commit 0d4790b, to 2024-03): >=12, libstdcxx's
#     last default-symbol bump, whatever the compiler;
#   gcc 13 (2024-03, 83c3dea): >=13, still -ng;
#   gcc 14+ (2024-08-28, cde87b1, "rely on runtime libs without -ng"):
#     libgcc/libstdcxx >= the major.
# The version alone cannot tell when a gcc 12 or 13 package was built: for
# packages as conda-forge builds them after the 2024 rename, override the
# row with --system-map (README: "Compiler run_exports").
# sysroot_linux-64 exports __glibc >=VERSION,<3.0.a0 (linux-sysroot-feedstock,
# since 2020-05); a recipe gets it from {{ stdlib('c') }}.
# activate: what the package's activation script (activate-gcc.sh,
#       activate-g++.sh, activate-gfortran.sh) sets for a conda-build build,
#       for linux-64 (build_scripts.sh's flags, the era of the version rows
#       below); rows as run_exports, "*" for every version, a version's row
#       replacing its variables. ${TOOL}/${TOOL_DIR}: the host tool found and
#       its directory (a ${TOOL_DIR}/x tool that is not there is left unset);
#       ${PREFIX} & co.: the script's environment. Flags add before what the
#       environment already holds, as the scripts do. Left out: the
#       -fdebug-prefix-map flags (script_env's -ffile-prefix-map flags map
#       the same paths, per staging build instead of per output), the
#       conda toolchain's sysroot in CMAKE_PREFIX_PATH, CMAKE_ARGS/MESON_ARGS
#       (script_env's own), CONDA_BUILD_SYSROOT (the provider sets it only
#       when the host compiler has a sysroot of its own: -print-sysroot).
#   gcc 8-10: CXXFLAGS keep -std=c++17 (removed for 11+, issue #42);
#   -fno-merge-constants (2026-06, c0bc7a9): activations built since, taken
#     here as gcc 15 and 16.
#   with: other entries whose activation the package brings in (gxx_linux-64
#     depends on gcc_linux-64, so a C++-only recipe gets HOST, CFLAGS, ...).
x-gcc-activate: &gcc_activate
  "*":
    HOST: x86_64-conda-linux-gnu
    BUILD: x86_64-conda-linux-gnu
    CONDA_TOOLCHAIN_HOST: x86_64-conda-linux-gnu
    CONDA_TOOLCHAIN_BUILD: x86_64-conda-linux-gnu
    host_alias: x86_64-conda-linux-gnu
    build_alias: x86_64-conda-linux-gnu
    CONDA_BUILD_CROSS_COMPILATION: ""
    CPPFLAGS: "-DNDEBUG -D_FORTIFY_SOURCE=2 -O2 -isystem ${PREFIX}/include"
    DEBUG_CPPFLAGS: "-D_DEBUG -D_FORTIFY_SOURCE=2 -Og -isystem ${PREFIX}/include"
    CFLAGS: "-march=nocona -mtune=haswell -ftree-vectorize -fPIC -fstack-protector-strong -fno-plt -O2 -ffunction-sections -pipe -isystem ${PREFIX}/include"
    DEBUG_CFLAGS: "-march=nocona -mtune=haswell -ftree-vectorize -fPIC -fstack-protector-all -fno-plt -Og -g -Wall -Wextra -fvar-tracking-assignments -ffunction-sections -pipe -isystem ${PREFIX}/include"
    LDFLAGS: "-Wl,-O2 -Wl,--sort-common -Wl,--as-needed -Wl,-z,relro -Wl,-z,now -Wl,--disable-new-dtags -Wl,--gc-sections -Wl,--allow-shlib-undefined -Wl,-rpath,${PREFIX}/lib -Wl,-rpath-link,${PREFIX}/lib -L${PREFIX}/lib"
    LDFLAGS_LD: "-O2 --sort-common --as-needed -z relro -z now --disable-new-dtags --gc-sections --allow-shlib-undefined -rpath ${PREFIX}/lib -rpath-link ${PREFIX}/lib -L${PREFIX}/lib"
    CMAKE_PREFIX_PATH: "${PREFIX}"
    CC_FOR_BUILD: "${TOOL}"
    GCC: "${TOOL}"
    CPP: "${TOOL_DIR}/cpp"
    CPP_FOR_BUILD: "${TOOL_DIR}/cpp"
    GCC_AR: "${TOOL_DIR}/gcc-ar"
    GCC_NM: "${TOOL_DIR}/gcc-nm"
    GCC_RANLIB: "${TOOL_DIR}/gcc-ranlib"
  "15": &gcc_activate_fnmc
    CFLAGS: "-march=nocona -mtune=haswell -ftree-vectorize -fPIC -fstack-protector-strong -fno-plt -O2 -ffunction-sections -pipe -fno-merge-constants -isystem ${PREFIX}/include"
    DEBUG_CFLAGS: "-march=nocona -mtune=haswell -ftree-vectorize -fPIC -fstack-protector-all -fno-plt -Og -g -Wall -Wextra -fvar-tracking-assignments -ffunction-sections -pipe -fno-merge-constants -isystem ${PREFIX}/include"
  "16": *gcc_activate_fnmc
x-gxx-activate: &gxx_activate
  "*":
    CXXFLAGS: "-fvisibility-inlines-hidden -fmessage-length=0 -march=nocona -mtune=haswell -ftree-vectorize -fPIC -fstack-protector-strong -fno-plt -O2 -ffunction-sections -pipe -isystem ${PREFIX}/include"
    DEBUG_CXXFLAGS: "-fvisibility-inlines-hidden -fmessage-length=0 -march=nocona -mtune=haswell -ftree-vectorize -fPIC -fstack-protector-all -fno-plt -Og -g -Wall -Wextra -fvar-tracking-assignments -ffunction-sections -pipe -isystem ${PREFIX}/include"
    CXX_FOR_BUILD: "${TOOL}"
    GXX: "${TOOL}"
  "8": &gxx_activate_17
    CXXFLAGS: "-fvisibility-inlines-hidden -std=c++17 -fmessage-length=0 -march=nocona -mtune=haswell -ftree-vectorize -fPIC -fstack-protector-strong -fno-plt -O2 -ffunction-sections -pipe -isystem ${PREFIX}/include"
    DEBUG_CXXFLAGS: "-fvisibility-inlines-hidden -std=c++17 -fmessage-length=0 -march=nocona -mtune=haswell -ftree-vectorize -fPIC -fstack-protector-all -fno-plt -Og -g -Wall -Wextra -fvar-tracking-assignments -ffunction-sections -pipe -isystem ${PREFIX}/include"
  "9": *gxx_activate_17
  "10": *gxx_activate_17
  "15": &gxx_activate_fnmc
    CXXFLAGS: "-fvisibility-inlines-hidden -fmessage-length=0 -march=nocona -mtune=haswell -ftree-vectorize -fPIC -fstack-protector-strong -fno-plt -O2 -ffunction-sections -pipe -fno-merge-constants -isystem ${PREFIX}/include"
    DEBUG_CXXFLAGS: "-fvisibility-inlines-hidden -fmessage-length=0 -march=nocona -mtune=haswell -ftree-vectorize -fPIC -fstack-protector-all -fno-plt -Og -g -Wall -Wextra -fvar-tracking-assignments -ffunction-sections -pipe -fno-merge-constants -isystem ${PREFIX}/include"
  "16": *gxx_activate_fnmc
x-gfortran-activate: &gfortran_activate
  "*":
    FFLAGS: "-march=nocona -mtune=haswell -ftree-vectorize -fPIC -fstack-protector-strong -fno-plt -O2 -ffunction-sections -pipe -isystem ${PREFIX}/include"
    FORTRANFLAGS: "-march=nocona -mtune=haswell -ftree-vectorize -fPIC -fstack-protector-strong -fno-plt -O2 -ffunction-sections -pipe -isystem ${PREFIX}/include"
    GFORTRAN: "${TOOL}"
    F77: "${TOOL}"
    F90: "${TOOL}"
    F95: "${TOOL}"
    FC_FOR_BUILD: "${TOOL}"
x-gcc-run-exports: &gcc_run_exports
  "7": {strong: [libgcc-ng >=7.5.0]}
  "8": {strong: [libgcc-ng >=8.5.0]}
  "9": {strong: [libgcc-ng >=9.4.0]}
  "10": {strong: [libgcc-ng >=12]}
  "11": {strong: [libgcc-ng >=12]}
  "12": {strong: [libgcc-ng >=12]}
  "13": {strong: [libgcc-ng >=13]}
  "14": {strong: [libgcc >=14]}
  "15": {strong: [libgcc >=15]}
  "16": {strong: [libgcc >=16]}
x-gxx-run-exports: &gxx_run_exports
  "7": {strong: [libstdcxx-ng >=7.5.0, libgcc-ng >=7.5.0]}
  "8": {strong: [libstdcxx-ng >=8.5.0, libgcc-ng >=8.5.0]}
  "9": {strong: [libstdcxx-ng >=9.4.0, libgcc-ng >=9.4.0]}
  "10": {strong: [libstdcxx-ng >=12, libgcc-ng >=12]}
  "11": {strong: [libstdcxx-ng >=12, libgcc-ng >=12]}
  "12": {strong: [libstdcxx-ng >=12, libgcc-ng >=12]}
  "13": {strong: [libstdcxx-ng >=13, libgcc-ng >=13]}
  "14": {strong: [libstdcxx >=14, libgcc >=14]}
  "15": {strong: [libstdcxx >=15, libgcc >=15]}
  "16": {strong: [libstdcxx >=16, libgcc >=16]}
gcc_linux-64:        {tool: [gcc, cc], var: CC, run_exports: *gcc_run_exports, activate: *gcc_activate}
gxx_linux-64:
  {tool: [g++, c++], var: CXX, run_exports: *gxx_run_exports, activate: *gxx_activate, with: [gcc_linux-64]}
gfortran_linux-64:   {tool: [gfortran], var: FC, activate: *gfortran_activate, with: [gcc_linux-64]}
clang_linux-64:      {tool: [clang], var: CC}
clangxx_linux-64:    {tool: [clang++], var: CXX}
cuda-nvcc_linux-64:  {tool: [nvcc], var: NVCC}
cuda-nvcc:           {tool: [nvcc], var: NVCC}
nvcc_linux-64:       {tool: [nvcc], var: NVCC}
cmake:               {tool: [cmake]}
ninja:               {tool: [ninja]}
make:                {tool: [make]}
pkg-config:          {tool: [pkg-config]}
patch:               {tool: [patch]}
git:                 {tool: [git]}
m4:                  {tool: [m4]}
autoconf:            {tool: [autoconf]}
automake:            {tool: [automake]}
libtool:             {tool: [libtool, libtoolize]}  # Debian: libtoolize in libtool, libtool in libtool-bin
patchelf:            {tool: [patchelf]}
libcblas:            {library: [libcblas.so, libopenblas.so, libblas.so]}
libblas:             {library: [libblas.so, libopenblas.so]}
liblapack:           {library: [liblapack.so, libopenblas.so]}
openblas:            {library: [libopenblas.so]}
libopenblas:         {library: [libopenblas.so]}
mkl:                 {library: [libmkl_rt.so]}
mkl-devel:           {library: [libmkl_rt.so]}
mkl-include:         {library: [libmkl_rt.so]}
sysroot_linux-64:
  ignore: true
  run_exports:
    "2.12": {strong: ["__glibc >=2.12,<3.0.a0"]}
    "2.17": {strong: ["__glibc >=2.17,<3.0.a0"]}
    "2.28": {strong: ["__glibc >=2.28,<3.0.a0"]}
    "2.34": {strong: ["__glibc >=2.34,<3.0.a0"]}
    "2.39": {strong: ["__glibc >=2.39,<3.0.a0"]}
kernel-headers_linux-64: {ignore: true}
libgcc-ng:           {ignore: true}
libstdcxx-ng:        {ignore: true}
libgcc:              {ignore: true}
libstdcxx:           {ignore: true}
libgomp:             {ignore: true}
)";

std::string env_get(const process::Env& env, const std::string& k) {
    auto it = env.find(k);
    return it == env.end() ? "" : it->second;
}

std::vector<std::string> as_list(const YAML::Node& n) {
    std::vector<std::string> out;
    if (n.IsSequence())
        for (const auto& x : n) out.push_back(x.as<std::string>());
    else if (n.IsScalar())
        out.push_back(n.as<std::string>());
    return out;
}

// run_exports: {VERSION: {weak|strong|weak_constrains|strong_constrains: [...]}}
Result<void> parse_run_exports_rows(const YAML::Node& n, MapEntry& e) {
    if (!n) return {};
    if (!n.IsMap()) return fail(e.origin, e.name + ": run_exports: expected {VERSION: {strong: [...]}}");
    for (const auto& row : n) {
        const YAML::Node& r = row.second;
        if (!r.IsMap()) return fail(e.origin, e.name + ": run_exports: " + row.first.as<std::string>() +
                                                  ": expected {weak|strong|...: [...]}");
        types::RunExports re;
        for (const auto& kv : r) {
            const std::string k = kv.first.as<std::string>();
            auto* into = k == "weak"                ? &re.weak
                         : k == "strong"            ? &re.strong
                         : k == "weak_constrains"   ? &re.weak_constrains
                         : k == "strong_constrains" ? &re.strong_constrains
                                                    : nullptr;
            if (!into) return fail(e.origin, e.name + ": run_exports: unknown list '" + k + "'",
                                   "expected weak, strong, weak_constrains or strong_constrains");
            *into = as_list(kv.second);
        }
        e.run_exports.emplace_back(row.first.as<std::string>(), std::move(re));
    }
    return {};
}

// activate: {VERSION|"*": {VAR: value}}
Result<void> parse_activate_rows(const YAML::Node& n, MapEntry& e) {
    if (!n) return {};
    if (!n.IsMap()) return fail(e.origin, e.name + ": activate: expected {VERSION: {VAR: value}}");
    for (const auto& row : n) {
        const std::string version = row.first.as<std::string>();
        if (!row.second.IsMap()) return fail(e.origin, e.name + ": activate: " + version + ": expected {VAR: value}");
        std::map<std::string, std::string> vars;
        for (const auto& kv : row.second) {
            if (!kv.second.IsScalar() && !kv.second.IsNull())
                return fail(e.origin, e.name + ": activate: " + version + ": " + kv.first.as<std::string>() +
                                          ": expected a string");
            vars[kv.first.as<std::string>()] = kv.second.IsNull() ? "" : kv.second.as<std::string>();
        }
        e.activate.emplace_back(version, std::move(vars));
    }
    return {};
}

// "12" is a prefix of "12.*" and "12.3.0" by components; "1" is not of "12".
bool version_prefix(const std::string& row, const std::string& version) {
    auto a = str::split(row, '.'), b = str::split(version, '.');
    if (a.size() > b.size()) return false;
    return std::equal(a.begin(), a.end(), b.begin());
}

}  // namespace

namespace {

// The version of a requirement ("gcc_linux-64 >=12.*" -> "12.*").
std::string spec_version(const std::string& spec) {
    auto parts = str::split(std::string(str::trim(spec)), ' ');
    std::string version = parts.size() > 1 ? parts[1] : "";
    while (!version.empty() && std::string("=<>!~").find(version[0]) != std::string::npos) version.erase(0, 1);
    return version;
}

// Index of the longest row that is a component prefix of `version`, or -1.
template <class Rows>
int best_row(const Rows& rows, const std::string& version) {
    int best = -1;
    size_t best_len = 0;
    for (size_t i = 0; i < rows.size(); ++i) {
        const std::string& row = rows[i].first;
        size_t len = str::split(row, '.').size();
        if (row != "*" && version_prefix(row, version) && len > best_len) {
            best = static_cast<int>(i);
            best_len = len;
        }
    }
    return best;
}

}  // namespace

const types::RunExports* MapEntry::run_exports_for(const std::string& spec) const {
    int i = best_row(run_exports, spec_version(spec));
    return i < 0 ? nullptr : &run_exports[static_cast<size_t>(i)].second;
}

std::map<std::string, std::string> MapEntry::activation_for(const std::string& spec) const {
    std::map<std::string, std::string> out;
    for (const auto& [row, vars] : activate)
        if (row == "*") out = vars;
    if (int i = best_row(activate, spec_version(spec)); i >= 0)
        for (const auto& [k, v] : activate[static_cast<size_t>(i)].second) out[k] = v;
    return out;
}

const char* default_system_map_yaml() { return kDefaultMap; }

const MapEntry* SystemMap::find(const std::string& name) const {
    auto it = entries.find(name);
    return it == entries.end() ? nullptr : &it->second;
}

Result<void> extend_system_map(SystemMap& into, const std::string& yaml_text, const std::string& origin) {
    YAML::Node root;
    try {
        root = YAML::Load(yaml_text);
    } catch (const YAML::Exception& e) {
        return fail(SourceLoc{origin, e.mark.line + 1, e.mark.column + 1}, e.msg);
    }
    if (root.IsNull()) return {};
    if (!root.IsMap()) return fail(SourceLoc{origin, 1}, "a system map is a mapping: NAME: {tool|library|ignore: ...}");
    for (const auto& kv : root) {
        MapEntry e;
        e.name = kv.first.as<std::string>();
        if (str::starts_with(e.name, "x-")) continue;  // YAML anchors shared by entries
        e.origin = SourceLoc{origin, kv.first.Mark().line + 1};
        const YAML::Node& v = kv.second;
        if (!v.IsMap())
            return fail(e.origin, e.name + ": expected {tool: [...]}, {library: [...]} or {ignore: true}");
        if (v["tool"]) {
            e.kind = MapKind::tool;
            e.candidates = as_list(v["tool"]);
        } else if (v["library"]) {
            e.kind = MapKind::library;
            e.candidates = as_list(v["library"]);
        } else if (v["ignore"]) {
            e.kind = MapKind::ignore;
        } else {
            return fail(e.origin, e.name + ": expected a tool, library or ignore key");
        }
        if (e.kind != MapKind::ignore && e.candidates.empty())
            return fail(e.origin, e.name + ": the list of candidates is empty");
        if (v["var"]) e.var = v["var"].as<std::string>();
        if (auto ok = parse_run_exports_rows(v["run_exports"], e); !ok) return ok;
        if (auto ok = parse_activate_rows(v["activate"], e); !ok) return ok;
        if (v["with"]) e.with = as_list(v["with"]);
        into.entries[e.name] = std::move(e);
    }
    return {};
}

Result<void> extend_system_map_file(SystemMap& into, const stdfs::path& file) {
    auto text = fs::read_file(file);
    if (!text) return fail(SourceLoc{file.string()}, "cannot read the system map");
    return extend_system_map(into, *text, file.string());
}

SystemMap default_system_map() {
    SystemMap m;
    (void)extend_system_map(m, kDefaultMap, "<built-in system map>");
    return m;
}

Result<HostMatch> find_on_host(const MapEntry& e, const process::Env& env) {
    std::error_code ec;
    if (e.kind == MapKind::ignore) return HostMatch{};
    if (e.kind == MapKind::tool) {
        std::string path = env_get(env, "PATH");
        std::string extra;
        if (!env_get(env, "CUDA_HOME").empty()) extra += env_get(env, "CUDA_HOME") + "/bin:";
        extra += "/usr/local/cuda/bin";
        for (const auto& c : e.candidates) {
            if (auto p = process::find_executable(c, path)) return HostMatch{*p};
            if (c == "nvcc")
                if (auto p = process::find_executable(c, extra)) return HostMatch{*p};
        }
        return fail(e.origin, "requirement '" + e.name + "' maps to the host tool " + str::join(e.candidates, " or ") +
                                  ", which is not on PATH");
    }
    std::vector<stdfs::path> dirs;
    for (const char* var : {"MKLROOT", "CONDA_PREFIX"}) {
        std::string root = env_get(env, var);
        if (root.empty()) continue;
        dirs.push_back(stdfs::path(root) / "lib");
        dirs.push_back(stdfs::path(root) / "lib/intel64");
    }
    for (const char* d : {"/usr/lib/x86_64-linux-gnu", "/usr/lib/aarch64-linux-gnu", "/usr/lib64", "/usr/lib",
                          "/usr/local/lib", "/opt/intel/oneapi/mkl/latest/lib",
                          "/opt/intel/oneapi/mkl/latest/lib/intel64", "/opt/intel/mkl/lib/intel64"})
        dirs.emplace_back(d);
    for (const auto& c : e.candidates)
        for (const auto& d : dirs)
            if (stdfs::exists(d / c, ec)) return HostMatch{d / c};
    return fail(e.origin, "requirement '" + e.name + "' maps to the host library " + str::join(e.candidates, " or ") +
                              ", which is not in the system library dirs or $MKLROOT");
}

}  // namespace sf::env
