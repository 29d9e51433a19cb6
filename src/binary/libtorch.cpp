#include "binary/libtorch.hpp"

#include <sys/utsname.h>
#include <unistd.h>

#include <algorithm>
#include <map>

#include <nlohmann/json.hpp>

#include "archive/read.hpp"
#include "archive/write.hpp"
#include "binary/check_elf.hpp"
#include "binary/wheel_meta.hpp"
#include "env/install.hpp"
#include "package/elf.hpp"
#include "process/process.hpp"
#include "util/fs.hpp"
#include "util/hash.hpp"
#include "util/strings.hpp"
#include "util/timestamp.hpp"

namespace sf::binary {

namespace stdfs = std::filesystem;

namespace {

bool is_shared_library(const std::string& name) {
    auto so = name.find(".so");
    return so != std::string::npos && (so + 3 == name.size() || name[so + 3] == '.');
}

// torch's own packages: their libraries are the archive's, every other
// package's are its dependencies.
bool own_package(const std::string& name) {
    return name == "libtorch" || name == "libtorch-static" || name == "libtorch-cuda-linalg";
}

// The packages installed in `prefix` and their files (conda-meta records).
Result<std::map<std::string, std::vector<std::string>>> installed_files(const stdfs::path& prefix) {
    std::map<std::string, std::vector<std::string>> out;
    std::error_code ec;
    for (const auto& e : stdfs::directory_iterator(prefix / "conda-meta", ec)) {
        if (e.path().extension() != ".json") continue;
        auto text = fs::read_file(e.path());
        if (!text) return Unexpected<Error>{text.error()};
        auto j = nlohmann::json::parse(*text, nullptr, false);
        if (!j.is_object() || !j.value("name", nlohmann::json()).is_string()) continue;
        auto& files = out[j["name"].get<std::string>()];
        if (j.contains("files") && j["files"].is_array())
            for (const auto& f : j["files"])
                if (f.is_string()) files.push_back(f.get<std::string>());
    }
    return out;
}

struct Staged {
    std::vector<std::string> bundled;              // libraries from dependencies and the host
    std::map<std::string, std::string> libraries;  // without-deps: soname -> package ("" the host)
};

// Copies (links followed) into `stage` what the kind takes from the
// installed packages: libtorch's headers, the CMake package (libtorch's
// share/cmake/Torch, or libtorch-static's share/cmake/TorchStatic renamed),
// torch's own shared or static libraries, and for *-with-deps every other
// package's shared libraries (without: their names, in `staged.libraries`).
Result<void> stage_prefix(const stdfs::path& prefix, const std::map<std::string, std::vector<std::string>>& installed,
                          LibtorchKind kind, const stdfs::path& stage, Staged& staged) {
    auto copy = [&](const std::string& from, const std::string& to) -> Result<void> {
        std::error_code ec;
        stdfs::create_directories((stage / to).parent_path(), ec);
        return fs::copy_file(prefix / from, stage / to);
    };
    const std::string cmake_dir = is_static(kind) ? "share/cmake/TorchStatic/" : "share/cmake/Torch/";
    const std::string cmake_pkg = is_static(kind) ? "libtorch-static" : "libtorch";
    for (const auto& [name, files] : installed) {
        for (const auto& f : files) {
            Result<void> ok;
            if (name == "libtorch" && str::starts_with(f, "include/")) ok = copy(f, f);
            else if (name == cmake_pkg && str::starts_with(f, cmake_dir)) ok = copy(f, "share/cmake/Torch/" + f.substr(cmake_dir.size()));
            if (!ok) return ok;
            if (!str::starts_with(f, "lib/") || f.find('/', 4) != std::string::npos) continue;
            const std::string lib = f.substr(4);
            if (own_package(name)) {
                bool take = is_static(kind) ? name == "libtorch-static" && str::ends_with(lib, ".a")
                                            : name != "libtorch-static" && is_shared_library(lib);
                if (take)
                    if (auto c = copy(f, f); !c) return c;
            } else if (is_shared_library(lib)) {
                if (!with_deps(kind)) {
                    staged.libraries[lib] = name;
                    continue;
                }
                if (auto c = copy(f, f); !c) return c;
                staged.bundled.push_back(lib);
            }
        }
    }
    std::error_code ec;
    stdfs::create_directories(stage / "lib", ec);
    return {};
}

std::vector<stdfs::path> host_library_dirs() {
    struct utsname u {};
    std::string triplet = ::uname(&u) == 0 ? std::string(u.machine) + "-linux-gnu" : "x86_64-linux-gnu";
    return {"/lib/" + triplet, "/usr/lib/" + triplet, "/lib64", "/usr/lib64", "/lib", "/usr/lib", "/usr/local/lib"};
}

// Copies in what lib/'s libraries need from the host, until nothing is
// missing (the host's libraries need theirs too); each copy gets RUNPATH
// $ORIGIN so it finds its siblings.
Result<void> bundle_host_libraries(const stdfs::path& lib, const std::string& artifact, LibtorchKind kind,
                                   Staged& staged) {
    std::vector<std::string> copied;
    for (bool changed = true; changed;) {
        changed = false;
        for (const auto& name : list_tree(lib)) {
            if (!is_shared_library(name)) continue;  // static libraries name no NEEDED
            auto elf = package::read_elf(lib / name);
            if (!elf) return fail(artifact + ": lib/" + name + ": " + elf.error().message);
            for (const auto& need : elf->needed) {
                // lib / "/abs/libfoo.so" is the host's file: the archive would load it from there.
                if (need.find('/') != std::string::npos)
                    return fail(artifact + ": lib/" + name + ": NEEDED '" + need +
                                    "' is a path, not a library name: the archive would not be relocatable",
                                "link it by its soname (e.g. patchelf --replace-needed) and rebuild the package");
                if (libtorch_platform_library(need) || stdfs::exists(lib / need) || staged.libraries.count(need)) continue;
                auto dirs = host_library_dirs();
                auto it = std::find_if(dirs.begin(), dirs.end(), [&](const stdfs::path& d) { return stdfs::exists(d / need); });
                if (it == dirs.end())
                    return fail(artifact + ": lib/" + name + ": NEEDED " + need +
                                    " is in neither the package, its run dependencies nor this host's library dirs",
                                "install it, or add the package that provides it to libtorch's run requirements");
                if (!with_deps(kind)) {  // the user's host provides it
                    staged.libraries[need] = "";
                    continue;
                }
                if (auto ok = fs::copy_file(*it / need, lib / need); !ok) return ok;
                copied.push_back(need);
                staged.bundled.push_back(need);
                changed = true;
            }
        }
    }
    if (copied.empty()) return {};
    auto patchelf = process::find_executable("patchelf", process::current_env()["PATH"]);
    if (!patchelf) return fail("patchelf not found: needed to set RUNPATH $ORIGIN on the bundled host libraries (" +
                               str::join(copied, ", ") + ")", "install patchelf");
    for (const auto& name : copied) {
        process::Command c;
        c.argv = {patchelf->string(), "--set-rpath", "$ORIGIN", (lib / name).string()};
        c.env = process::minimal_env();
        auto r = process::capture(c);
        if (!r) return Unexpected<Error>{r.error()};
        if (r->exit_code != 0)
            return fail_runtime({}, "patchelf --set-rpath failed on lib/" + name + ": " + std::string(str::trim(r->err)));
    }
    return {};
}

Result<std::uint64_t> write_zip(const stdfs::path& stage, const stdfs::path& out_path, std::int64_t mtime,
                                std::size_t& members) {
    auto out = archive::OutputFile::create(out_path);
    if (!out) return Unexpected<Error>{out.error()};
    // Deflated as PyTorch's archives are; level 1: most of the gain for a
    // fraction of the time (the libraries are most of the bytes).
    archive::ZipWriter zip(**out, mtime, 1);
    for (const auto& rel : list_tree(stage)) {
        stdfs::path src = stage / rel;
        std::error_code ec;
        std::uint64_t size = stdfs::file_size(src, ec);
        auto ok = zip.add_streamed(rel, size, [&](archive::ByteSink& sink) -> Result<void> {
            auto in = fs::InputFile::open(src);
            if (!in) return Unexpected<Error>{in.error()};
            std::vector<char> buf(1 << 20);
            for (;;) {
                ssize_t n = ::read(in->fd(), buf.data(), buf.size());
                if (n < 0) return fail_runtime({}, src.string() + ": read failed");
                if (n == 0) return {};
                if (auto w = sink.write(buf.data(), static_cast<std::size_t>(n)); !w) return w;
            }
        }, 0644, archive::ZipMethod::deflate);
        if (!ok) return Unexpected<Error>{ok.error()};
        ++members;
    }
    if (auto ok = zip.finish(); !ok) return Unexpected<Error>{ok.error()};
    std::uint64_t size = (*out)->position();
    if (auto ok = (*out)->commit(); !ok) return Unexpected<Error>{ok.error()};
    return size;
}

}  // namespace

std::string libtorch_variant(const std::string& build) {
    if (auto local = local_version(build); !local.empty()) return local;
    auto parts = str::split(build, '_');
    std::vector<std::string> keep;
    for (const auto& p : parts) {
        if (p.size() > 1 && p[0] == 'h' && std::all_of(p.begin() + 1, p.end(), ::isxdigit)) break;
        keep.push_back(p);
    }
    return keep.empty() ? build : str::join(keep, "_");
}

namespace {
constexpr std::pair<LibtorchKind, std::string_view> kKinds[] = {
    {LibtorchKind::shared_with_deps, "shared-with-deps"},
    {LibtorchKind::shared_without_deps, "shared-without-deps"},
    {LibtorchKind::static_with_deps, "static-with-deps"},
    {LibtorchKind::static_without_deps, "static-without-deps"},
};
constexpr std::string_view kArchivePrefix = "libtorch-cxx11-abi-";
}  // namespace

std::string_view kind_name(LibtorchKind k) {
    for (const auto& [kind, name] : kKinds)
        if (kind == k) return name;
    return "shared-with-deps";
}

std::optional<LibtorchKind> parse_libtorch_kind(std::string_view text) {
    for (const auto& [kind, name] : kKinds)
        if (name == text) return kind;
    return std::nullopt;
}

std::optional<LibtorchKind> libtorch_archive_kind(std::string_view file) {
    if (!str::starts_with(file, kArchivePrefix)) return std::nullopt;
    file.remove_prefix(kArchivePrefix.size());
    for (const auto& [kind, name] : kKinds)
        if (str::starts_with(file, name) && file.size() > name.size() && file[name.size()] == '-') return kind;
    return std::nullopt;
}

std::string libtorch_archive_name(const std::string& version, const std::string& variant, LibtorchKind kind) {
    return std::string(kArchivePrefix) + std::string(kind_name(kind)) + "-" + version + "+" + variant + ".zip";
}

bool libtorch_platform_library(std::string_view soname) {
    return is_glibc_library(soname) || soname_matches(soname, "libstdc++.so") ||
           soname_matches(soname, "libgcc_s.so") || soname_matches(soname, "libcuda.so");
}

Result<std::vector<LibtorchKind>> kinds_for_package(const stdfs::path& package, const std::vector<LibtorchKind>& requested) {
    auto meta = archive::read_package_metadata(package);
    if (!meta) return Unexpected<Error>{meta.error()};
    const std::string& name = meta->index.name;
    const std::string artifact = package.filename().string();
    if (name != "libtorch" && name != "libtorch-static")
        return fail(artifact + ": is a '" + name + "' package, not libtorch or libtorch-static",
                    "give the libtorch package (shared kinds) or libtorch-static (static kinds)");
    const bool stat = name == "libtorch-static";
    if (requested.empty()) return std::vector<LibtorchKind>{stat ? LibtorchKind::static_with_deps : LibtorchKind::shared_with_deps};
    std::vector<LibtorchKind> out;
    for (auto k : requested)
        if (is_static(k) == stat) out.push_back(k);
    if (out.empty())
        return fail(artifact + ": a " + name + " package makes only " + (stat ? "static" : "shared") +
                        "-* archives, and no such --kind was asked for",
                    stat ? "add --kind static-with-deps or static-without-deps" : "add --kind shared-with-deps or shared-without-deps");
    return out;
}

stdfs::path channel_of(const stdfs::path& package) {
    stdfs::path subdir = stdfs::absolute(package).parent_path();
    std::error_code ec;
    return stdfs::exists(subdir / "repodata.json", ec) ? subdir.parent_path() : stdfs::path();
}

Result<LibtorchArchive> make_libtorch_archive(const LibtorchOptions& o) {
    auto meta = archive::read_package_metadata(o.package);
    if (!meta) return Unexpected<Error>{meta.error()};
    const auto& rec = meta->index;
    std::string artifact = o.package.filename().string();
    const std::string wanted = is_static(o.kind) ? "libtorch-static" : "libtorch";
    if (rec.name != wanted)
        return fail(artifact + ": is a '" + rec.name + "' package; a " + std::string(kind_name(o.kind)) +
                        " archive is made from " + wanted,
                    is_static(o.kind) ? "give the libtorch-static package (static libraries) for the static kinds"
                                      : "give the libtorch package for the shared kinds");
    if (!meta->paths) return fail(artifact + ": has no info/paths.json");
    for (const auto& p : meta->paths->paths)
        if (!p.prefix_placeholder.empty())
            return fail(artifact + ": " + p.path + " carries a prefix placeholder; a libtorch archive must be relocatable");

    LibtorchArchive res;
    res.version = rec.version.str();
    res.variant = libtorch_variant(rec.build);
    fs::TempDir tmp("libtorch-archive");
    env::InstallOptions io;
    io.channels = env::channel_list(o.channels);
    if (io.channels.empty())
        if (auto ch = channel_of(o.package); !ch.empty()) io.channels.push_back(ch);
    io.pkgs_dir = tmp.path() / "pkgs";
    io.link_mode = env::LinkMode::copy;
    io.host_provided = o.host_provided;
    auto inst = env::install(tmp.path() / "prefix", {stdfs::absolute(o.package).string()}, io);
    if (!inst) {  // a dependency missing from the channel is the input's fault, a lock the job's: keep the kind
        Error e = inst.error();
        e.message = artifact + ": cannot install its run dependencies: " + e.message;
        return Unexpected<Error>{std::move(e)};
    }

    stdfs::path stage = tmp.path() / "stage" / "libtorch";
    auto installed = installed_files(tmp.path() / "prefix");
    if (!installed) return Unexpected<Error>{installed.error()};
    Staged staged;
    if (auto ok = stage_prefix(tmp.path() / "prefix", *installed, o.kind, stage, staged); !ok) return Unexpected<Error>{ok.error()};
    if (auto ok = bundle_host_libraries(stage / "lib", artifact, o.kind, staged); !ok) return Unexpected<Error>{ok.error()};
    res.bundled = staged.bundled;
    nlohmann::json deps = {{"kind", kind_name(o.kind)}, {"run_dependencies", nlohmann::json::array()},
                           {"libraries", staged.libraries}};
    for (const auto& d : rec.depends)
        if (!own_package(d.substr(0, d.find(' ')))) deps["run_dependencies"].push_back(d);
    if (auto ok = fs::write_file_atomic(stage / "dependencies.json", deps.dump(2) + "\n"); !ok) return Unexpected<Error>{ok.error()};
    auto digest = hash::file_sha256(o.package);
    if (!digest) return Unexpected<Error>{digest.error()};
    if (auto ok = fs::write_file_atomic(stage / "build-version", res.version + "+" + res.variant + "\n"); !ok) return Unexpected<Error>{ok.error()};
    if (auto ok = fs::write_file_atomic(stage / "build-hash", *digest + "\n"); !ok) return Unexpected<Error>{ok.error()};

    std::int64_t mtime = timestamp::source_date_epoch().value_or(rec.timestamp.value_or(0) / 1000);
    res.path = o.output_dir / libtorch_archive_name(res.version, res.variant, o.kind);
    std::error_code ec;
    stdfs::create_directories(o.output_dir, ec);
    auto size = write_zip(tmp.path() / "stage", res.path, mtime, res.members);
    if (!size) return Unexpected<Error>{size.error()};
    res.size = *size;
    std::sort(res.bundled.begin(), res.bundled.end());
    return res;
}

}  // namespace sf::binary
