#include "binary/check.hpp"

#include <map>
#include <optional>

#include <nlohmann/json.hpp>

#include "archive/read.hpp"
#include "archive/zip_read.hpp"
#include "binary/check_abi.hpp"
#include "binary/check_record.hpp"
#include "binary/libtorch.hpp"
#include "env/install.hpp"
#include "env/provider_map.hpp"
#include "binary/manylinux.hpp"
#include "package/elf.hpp"
#include "package/elf_symbols.hpp"
#include "util/fs.hpp"
#include "util/strings.hpp"

namespace sf::binary {

namespace stdfs = std::filesystem;

namespace {

// The runtimes a host-provided package stands for (conda-forge's libgcc-ng
// ships libgcc_s and libgomp, libstdcxx-ng libstdc++).
bool host_runtime(const std::set<std::string>& host_provided, std::string_view soname) {
    static const std::map<std::string, std::vector<std::string>> runtimes = {
        {"libgcc-ng", {"libgcc_s.so", "libgomp.so"}}, {"libgcc", {"libgcc_s.so", "libgomp.so"}},
        {"libgomp", {"libgomp.so"}},
        {"libstdcxx-ng", {"libstdc++.so"}}, {"libstdcxx", {"libstdc++.so"}}};
    for (const auto& [pkg, stems] : runtimes)
        if (host_provided.count(pkg))
            for (const auto& s : stems)
                if (soname_matches(soname, s)) return true;
    return false;
}

bool cxx_runtime(std::string_view soname) {
    return soname_matches(soname, "libstdc++.so") || soname_matches(soname, "libgcc_s.so");
}

// A wheel's allow-list: the manylinux policy its platform tag names (each
// tag of a compressed set must agree); a plain linux_* tag allows glibc and
// the C++ runtime only.
bool wheel_allowed(const std::string& platform_tags, std::string_view soname) {
    bool any = false, all = true;
    for (const auto& tag : str::split(platform_tags, '.')) {
        for (std::string_view arch : {"x86_64", "aarch64"}) {
            if (!str::ends_with(tag, std::string("_") + std::string(arch))) continue;
            for (const auto& p : manylinux_policies(arch))
                for (const auto& t : p.tags(arch))
                    if (t == tag) {
                        any = true;
                        all = all && allowed(p, soname);
                    }
        }
    }
    return any ? all : is_glibc_library(soname) || cxx_runtime(soname);
}

Result<std::vector<std::string>> exported_symbols(const stdfs::path& file) {
    auto syms = package::read_elf_symbols(file);
    if (!syms) return Unexpected<Error>{syms.error()};
    std::vector<std::string> out;
    for (const auto& s : syms->symbols)
        if (s.exported()) out.push_back(s.name);
    return out;
}

void check_abi(const ElfTree& t, CheckResult& res) {
    res.checks.push_back("abi");
    for (const auto& member : t.files) {
        auto elf = package::read_elf(t.root / member);
        if (!elf || !elf->is_elf || !elf->is_dynamic) continue;
        auto syms = exported_symbols(t.root / member);
        if (!syms) {
            res.findings.push_back({t.artifact, member, "cannot read its symbols: " + syms.error().message});
            continue;
        }
        auto old = old_abi_symbols(*syms);
        for (std::size_t i = 0; i < old.size() && i < 3; ++i)
            res.findings.push_back({t.artifact, member, "pre-C++11-ABI symbol exported: " + old[i]});
        if (old.size() > 3)
            res.findings.push_back({t.artifact, member, std::to_string(old.size() - 3) + " more pre-C++11-ABI symbols"});
    }
}

// A manylinux tag promises what auditwheel's machine, UCS2 and PyFPE
// policies check: the x86_64 baseline ISA, no narrow-unicode and no fpectl
// symbols in extension modules. A linux_* tag promises none of it.
void check_manylinux(const ElfTree& t, const std::string& platform_tags, CheckResult& res) {
    if (platform_tags.find("manylinux") == std::string::npos) return;
    res.checks.push_back("manylinux");
    for (const auto& member : t.files) {
        auto syms = package::read_elf_symbols(t.root / member);
        if (!syms || !syms->is_elf) continue;  // an unreadable ELF file is the links check's finding
        ManylinuxRequirements req;
        if (!add_requirements(req, *syms, member)) continue;  // an unknown machine: no policy to judge
        for (const auto& l : req.linux_only)
            res.findings.push_back({t.artifact, member, l.why + ": no manylinux policy admits it, yet the wheel is "
                                                                 "tagged " + platform_tags});
    }
}

Result<void> run_links(const ElfTree& t, CheckResult& res) {
    res.checks.push_back("links");
    for (const auto& f : t.files) {
        auto elf = package::read_elf(t.root / f);
        if (elf && elf->is_elf && elf->is_dynamic) ++res.elf_files;
    }
    auto found = check_links(t);
    if (!found) return Unexpected<Error>{found.error()};
    res.findings.insert(res.findings.end(), found->begin(), found->end());
    check_abi(t, res);
    return {};
}

// A channel as messages name it: credentials and tokens masked.
std::string shown(const stdfs::path& channel) {
    auto ch = env::resolve_channel(channel.string());
    return ch ? ch->display : channel.string();
}

Result<void> check_conda(const stdfs::path& file, const CheckOptions& o, const stdfs::path& work, CheckResult& res) {
    auto meta = archive::read_package_metadata(file);
    if (!meta) return Unexpected<Error>{meta.error()};
    ElfTree t;
    t.artifact = file.filename().string();
    t.root = work / "prefix";
    std::vector<stdfs::path> channels = o.channels;
    if (channels.empty())
        if (auto ch = channel_of(file); !ch.empty()) channels.push_back(ch);
    if (channels.empty()) {
        if (auto ok = archive::extract_package(file, t.root); !ok) return ok;
        t.not_found_hint = " (no channel to look its dependencies up in: pass --channel)";
    } else {
        env::InstallOptions io;
        io.channels = env::channel_list(channels);
        io.pkgs_dir = o.pkgs_dir;
        io.network = o.network;
        io.link_mode = env::LinkMode::copy;
        io.host_provided = o.host_provided;
        auto inst = env::install(t.root, {stdfs::absolute(file).string()}, io);
        if (!inst) {
            res.findings.push_back({t.artifact, "info/index.json", "its dependencies do not install from " +
                                                                        shown(channels.front()) + ": " + inst.error().message});
            return {};
        }
        t.not_found_hint = ", its dependencies";
    }
    if (meta->paths)
        for (const auto& p : meta->paths->paths)
            if (p.type != types::PathType::directory) t.files.push_back(p.path);
    auto listed = list_tree(t.root);
    t.available.insert(listed.begin(), listed.end());
    t.prefix = stdfs::absolute(t.root).lexically_normal().string();
    t.allowed = [&](std::string_view so) {
        if (is_glibc_library(so) || host_runtime(o.host_provided, so)) return true;
        for (const auto& stem : o.system_libraries)
            if (soname_matches(so, stem)) return true;
        return false;
    };
    return run_links(t, res);
}

Result<void> check_libtorch_zip(ElfTree& t, const CheckOptions& o, const stdfs::path& work, CheckResult& res);

Result<void> check_zip_kind(const stdfs::path& file, const CheckOptions& o, const stdfs::path& work, CheckResult& res) {
    ElfTree t;
    t.artifact = file.filename().string();
    t.root = work / "tree";
    if (auto ok = archive::extract_zip(file, t.root); !ok) return ok;
    t.files = list_tree(t.root);
    t.available.insert(t.files.begin(), t.files.end());
    if (res.kind == ArtifactKind::wheel) {
        auto name = parse_wheel_name(t.artifact);
        if (!name) return Unexpected<Error>{name.error()};
        std::string tag = name->platform_tag;
        t.not_found_hint = " or its bundled libraries";
        t.allowed = [tag](std::string_view so) { return wheel_allowed(tag, so); };
        res.checks.push_back("record");
        auto rec = check_record(t.artifact, t.root, t.files);
        res.findings.insert(res.findings.end(), rec.begin(), rec.end());
        if (auto ok = run_links(t, res); !ok) return ok;
        check_manylinux(t, tag, res);
        return {};
    }
    return check_libtorch_zip(t, o, work, res);
}

// What a *-without-deps archive's user provides (libtorch/dependencies.json,
// libtorch.hpp): the sonames it accepts as NEEDED, the specs the consumer
// check installs. A finding when the archive does not say.
struct ArchiveDeps {
    std::set<std::string> libraries;
    std::vector<std::string> run_dependencies;
};

std::optional<ArchiveDeps> archive_deps(const ElfTree& t, CheckResult& res) {
    const std::string member = "libtorch/dependencies.json";
    auto text = fs::read_file(t.root / member);
    auto j = text ? nlohmann::json::parse(*text, nullptr, false) : nlohmann::json();
    if (!j.is_object() || !j.value("libraries", nlohmann::json()).is_object() ||
        !j.value("run_dependencies", nlohmann::json()).is_array()) {
        res.findings.push_back({t.artifact, member, text ? "is not the dependencies document (libraries, run_dependencies)"
                                                         : "missing: a without-deps archive names what its user provides"});
        return std::nullopt;
    }
    ArchiveDeps d;
    for (const auto& [soname, _] : j["libraries"].items()) d.libraries.insert(soname);
    for (const auto& spec : j["run_dependencies"])
        if (spec.is_string()) d.run_dependencies.push_back(spec.get<std::string>());
    return d;
}

// The run dependencies of a without-deps archive, installed from the
// channels into `prefix` for the consumer to build and run against.
Result<void> install_archive_deps(const ArchiveDeps& d, const CheckOptions& o, const stdfs::path& work,
                                  const stdfs::path& prefix, const std::string& artifact) {
    if (o.channels.empty())
        return fail(SourceLoc{artifact}, "a without-deps archive's consumer needs its run dependencies",
                    "pass -c CHANNEL holding " + str::join(d.run_dependencies, ", "));
    env::InstallOptions io;
    io.channels = env::channel_list(o.channels);
    io.pkgs_dir = o.pkgs_dir;
    io.network = o.network;
    io.link_mode = env::LinkMode::copy;
    io.host_provided = o.host_provided;
    auto inst = env::install(prefix, d.run_dependencies, io);
    if (!inst) return Unexpected<Error>{inst.error()};
    return {};
}

Result<void> check_libtorch_zip(ElfTree& t, const CheckOptions& o, const stdfs::path& work, CheckResult& res) {
    const auto kind = libtorch_archive_kind(t.artifact).value_or(LibtorchKind::shared_with_deps);
    std::optional<ArchiveDeps> deps;
    if (!with_deps(kind) && !(deps = archive_deps(t, res))) return {};
    t.allowed = [&deps](std::string_view so) {
        return libtorch_platform_library(so) || (deps && deps->libraries.count(std::string(so)));
    };
    const char* lib = is_static(kind) ? "libtorch/lib/libtorch.a" : "libtorch/lib/libtorch.so";
    for (const char* need : {lib, "libtorch/share/cmake/Torch/TorchConfig.cmake", "libtorch/build-version", "libtorch/build-hash"})
        if (!t.available.count(need)) res.findings.push_back({t.artifact, need, "missing from the libtorch archive"});
    if (auto ok = run_links(t, res); !ok) return ok;
    if (!res.findings.empty()) return {};
    if (o.consumer == CheckOptions::Consumer::skip) {
        reporter_or_default(o.reporter)
            .note(t.artifact + ": consumer program not built (it would run the archive's TorchConfig.cmake and "
                               "libraries; pass --consumer for an archive you trust)");
        return {};
    }
    res.checks.push_back("consumer");
    stdfs::path deps_prefix;
    if (deps) {
        deps_prefix = work / "deps";
        if (auto ok = install_archive_deps(*deps, o, work, deps_prefix, t.artifact); !ok) return ok;
    }
    auto c = check_consumer(t.artifact, t.root / "libtorch", deps_prefix, reporter_or_default(o.reporter));
    if (!c) return Unexpected<Error>{c.error()};
    res.findings.insert(res.findings.end(), c->begin(), c->end());
    return {};
}

}  // namespace

Result<CheckResult> check_artifact(const stdfs::path& file, const CheckOptions& o) {
    CheckResult res;
    res.file = file;
    auto kind = artifact_kind(file.filename().string());
    if (!kind)
        return fail(SourceLoc{file.string()}, "not a binary splitforge checks",
                    "give a .conda, .tar.bz2, .whl or libtorch .zip file");
    res.kind = *kind;
    auto in = fs::InputFile::open(file);
    if (!in) return Unexpected<Error>{in.error()};
    res.size = in->size();
    fs::TempDir work("check");
    auto ok = (*kind == ArtifactKind::conda || *kind == ArtifactKind::tar_bz2) ? check_conda(file, o, work.path(), res)
                                                                                : check_zip_kind(file, o, work.path(), res);
    if (!ok) return Unexpected<Error>{ok.error()};
    return res;
}

}  // namespace sf::binary

namespace sf::binary {

std::vector<KindSummary> summarize(const std::vector<CheckResult>& results) {
    std::vector<KindSummary> out;
    for (auto k : {ArtifactKind::conda, ArtifactKind::tar_bz2, ArtifactKind::wheel, ArtifactKind::libtorch_zip}) {
        KindSummary s{k};
        for (const auto& r : results)
            if (r.kind == k) ++s.count, s.passed += r.ok() ? 1 : 0, s.size += r.size;
        if (s.count) out.push_back(s);
    }
    return out;
}

void use_system_map(CheckOptions& o, const env::SystemMap& map) {
    for (const auto& [name, e] : map.entries) {
        if (e.kind == env::MapKind::ignore) o.host_provided.insert(name);
        if (e.kind == env::MapKind::library) o.system_libraries.insert(e.candidates.begin(), e.candidates.end());
    }
}

}  // namespace sf::binary
