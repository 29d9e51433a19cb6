#include "env/provider_map.hpp"

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
# ignore: satisfied by the host as is (sysroots, kernel headers).
gcc_linux-64:        {tool: [gcc, cc], var: CC}
gxx_linux-64:        {tool: [g++, c++], var: CXX}
gfortran_linux-64:   {tool: [gfortran], var: FC}
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
libtool:             {tool: [libtool]}
patchelf:            {tool: [patchelf]}
libcblas:            {library: [libcblas.so, libopenblas.so, libblas.so]}
libblas:             {library: [libblas.so, libopenblas.so]}
liblapack:           {library: [liblapack.so, libopenblas.so]}
openblas:            {library: [libopenblas.so]}
libopenblas:         {library: [libopenblas.so]}
mkl:                 {library: [libmkl_rt.so]}
mkl-devel:           {library: [libmkl_rt.so]}
mkl-include:         {library: [libmkl_rt.so]}
sysroot_linux-64:    {ignore: true}
kernel-headers_linux-64: {ignore: true}
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

}  // namespace

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
