#include "binary/libtorch.hpp"

#include <sys/utsname.h>
#include <unistd.h>

#include <algorithm>
#include <map>

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

// The package's files under include/ and share/cmake/Torch/, and every
// shared library in the prefix's lib/ (its own and its run dependencies'),
// copied (links followed) into `stage`.
Result<void> stage_prefix(const stdfs::path& prefix, const types::PathsJson& own, const stdfs::path& stage,
                          std::vector<std::string>& bundled) {
    std::set<std::string> own_libs;
    for (const auto& p : own.paths) {
        if (str::starts_with(p.path, "lib/")) own_libs.insert(p.path.substr(4));
        if (!str::starts_with(p.path, "include/") && !str::starts_with(p.path, "share/cmake/Torch/")) continue;
        stdfs::create_directories((stage / p.path).parent_path());
        if (auto ok = fs::copy_file(prefix / p.path, stage / p.path); !ok) return ok;
    }
    std::error_code ec;
    stdfs::create_directories(stage / "lib", ec);
    for (const auto& e : stdfs::directory_iterator(prefix / "lib", ec)) {
        std::string name = e.path().filename().string();
        if (!is_shared_library(name) || !stdfs::is_regular_file(e.path(), ec)) continue;
        if (auto ok = fs::copy_file(e.path(), stage / "lib" / name); !ok) return ok;
        if (!own_libs.count(name)) bundled.push_back(name);
    }
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
Result<void> bundle_host_libraries(const stdfs::path& lib, const std::string& artifact,
                                   std::vector<std::string>& bundled) {
    std::vector<std::string> copied;
    for (bool changed = true; changed;) {
        changed = false;
        for (const auto& name : list_tree(lib)) {
            auto elf = package::read_elf(lib / name);
            if (!elf) return fail(artifact + ": lib/" + name + ": " + elf.error().message);
            for (const auto& need : elf->needed) {
                // lib / "/abs/libfoo.so" is the host's file: the archive would load it from there.
                if (need.find('/') != std::string::npos)
                    return fail(artifact + ": lib/" + name + ": NEEDED '" + need +
                                    "' is a path, not a library name: the archive would not be relocatable",
                                "link it by its soname (e.g. patchelf --replace-needed) and rebuild the package");
                if (libtorch_platform_library(need) || stdfs::exists(lib / need)) continue;
                auto dirs = host_library_dirs();
                auto it = std::find_if(dirs.begin(), dirs.end(), [&](const stdfs::path& d) { return stdfs::exists(d / need); });
                if (it == dirs.end())
                    return fail(artifact + ": lib/" + name + ": NEEDED " + need +
                                    " is in neither the package, its run dependencies nor this host's library dirs",
                                "install it, or add the package that provides it to libtorch's run requirements");
                if (auto ok = fs::copy_file(*it / need, lib / need); !ok) return ok;
                copied.push_back(need);
                bundled.push_back(need);
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

std::string libtorch_archive_name(const std::string& version, const std::string& variant) {
    return "libtorch-cxx11-abi-shared-with-deps-" + version + "+" + variant + ".zip";
}

bool libtorch_platform_library(std::string_view soname) {
    return is_glibc_library(soname) || soname_matches(soname, "libstdc++.so") ||
           soname_matches(soname, "libgcc_s.so") || soname_matches(soname, "libcuda.so");
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
    if (rec.name != "libtorch") return fail(artifact + ": is a '" + rec.name + "' package, not libtorch");
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
    if (auto ok = stage_prefix(tmp.path() / "prefix", *meta->paths, stage, res.bundled); !ok) return Unexpected<Error>{ok.error()};
    if (auto ok = bundle_host_libraries(stage / "lib", artifact, res.bundled); !ok) return Unexpected<Error>{ok.error()};
    auto digest = hash::file_sha256(o.package);
    if (!digest) return Unexpected<Error>{digest.error()};
    if (auto ok = fs::write_file_atomic(stage / "build-version", res.version + "+" + res.variant + "\n"); !ok) return Unexpected<Error>{ok.error()};
    if (auto ok = fs::write_file_atomic(stage / "build-hash", *digest + "\n"); !ok) return Unexpected<Error>{ok.error()};

    std::int64_t mtime = timestamp::source_date_epoch().value_or(rec.timestamp.value_or(0) / 1000);
    res.path = o.output_dir / libtorch_archive_name(res.version, res.variant);
    std::error_code ec;
    stdfs::create_directories(o.output_dir, ec);
    auto size = write_zip(tmp.path() / "stage", res.path, mtime, res.members);
    if (!size) return Unexpected<Error>{size.error()};
    res.size = *size;
    std::sort(res.bundled.begin(), res.bundled.end());
    return res;
}

}  // namespace sf::binary
