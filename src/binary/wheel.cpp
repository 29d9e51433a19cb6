#include "binary/wheel.hpp"

#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <chrono>
#include <map>
#include <set>

#include <nlohmann/json.hpp>

#include "core/version.hpp"
#include "archive/read.hpp"
#include "archive/write.hpp"
#include "binary/artifact.hpp"
#include "binary/wheel_bundle.hpp"
#include "binary/wheel_inputs.hpp"
#include "binary/wheel_meta.hpp"
#include "binary/wheel_prefix.hpp"
#include "core/rewrap.hpp"
#include "package/elf.hpp"
#include "util/dir_handle.hpp"
#include "util/fs.hpp"
#include "util/hash.hpp"
#include "util/strings.hpp"
#include "util/timestamp.hpp"

namespace sf::binary {

namespace stdfs = std::filesystem;

namespace {

const std::string kGenerator = std::string("splitforge ") + kVersion;

// Extracted packages, once each, below one temp dir.
class Extracted {
public:
    explicit Extracted(const stdfs::path& dir) : dir_(dir) {}
    Result<stdfs::path> get(const stdfs::path& pkg) {
        const std::string stem = archive::package_stem(pkg);
        if (auto it = done_.find(stem); it != done_.end()) return it->second;
        const stdfs::path dest = dir_ / stem;
        if (auto r = archive::extract_package(pkg, dest); !r) return unexpected(r.error());
        done_[stem] = dest;
        return dest;
    }

private:
    stdfs::path dir_;
    std::map<std::string, stdfs::path> done_;
};

// The files of a package that hold the conda prefix placeholder, by path:
// a wheel has no install step to replace it (wheel_prefix.hpp).
Result<std::map<std::string, types::PathEntry>> placeholder_files(const PackageFile& p) {
    auto meta = archive::read_package_metadata(p.file);
    if (!meta) return unexpected(meta.error());
    std::map<std::string, types::PathEntry> out;
    if (meta->paths)
        for (const auto& e : meta->paths->paths)
            if (!e.prefix_placeholder.empty()) out.emplace(e.path, e);
    return out;
}

struct Stage {
    stdfs::path root;
    std::string site, dist;
    std::map<std::string, std::string> owner{};  // wheel path -> package file name
    std::vector<std::string> skipped{};
    std::vector<PlaceholderFile> placeholders{};  // staged as built; relocate_placeholders() rewrites them
};

Result<void> put_file(Stage& s, const PackageFile& p, const stdfs::path& from, const std::string& rel,
                      const std::string& dest) {
    const std::string pkg = p.file.filename().string();
    if (auto [it, fresh] = s.owner.emplace(dest, pkg); !fresh)
        return fail(SourceLoc{pkg + ": " + rel}, "goes to " + dest + " in the wheel, as a file of " + it->second + " does");
    std::error_code ec;
    stdfs::create_directories((s.root / dest).parent_path(), ec);
    if (ec) return fail_runtime(SourceLoc{(s.root / dest).parent_path().string()}, "cannot create: " + ec.message());
    return fs::copy_file(from, s.root / dest, fs::Overwrite::no);
}

// Copies a package's files to their wheel paths. A symlink is kept (as a
// copy of its target) only where the loader needs it: named as the
// library's SONAME; development links go. Files holding the prefix
// placeholder are noted for relocate_placeholders().
Result<void> stage_package(Stage& s, const PackageFile& p, const stdfs::path& tree) {
    auto placeholders = placeholder_files(p);
    if (!placeholders) return unexpected(placeholders.error());
    std::vector<std::string> rels;
    std::error_code ec;
    for (auto it = stdfs::recursive_directory_iterator(tree, ec); !ec && it != stdfs::recursive_directory_iterator();
         it.increment(ec))
        if (!it->is_directory(ec) || it->is_symlink(ec)) rels.push_back(it->path().lexically_relative(tree).generic_string());
    std::sort(rels.begin(), rels.end());
    for (const auto& rel : rels) {
        if (str::starts_with(rel, "info/")) continue;
        const std::string dest = wheel_member_path(rel, s.site, s.dist);
        if (dest.empty()) {
            s.skipped.push_back(p.file.filename().string() + ": " + rel);
            continue;
        }
        const stdfs::path from = tree / rel;
        if (stdfs::is_symlink(from, ec)) {
            auto elf = package::read_elf(from);  // follows the link, inside the package
            if (!elf || !elf->is_elf || elf->soname != stdfs::path(rel).filename().string()) continue;
        }
        if (auto r = put_file(s, p, from, rel, dest); !r) return r;
        if (auto ph = placeholders->find(rel); ph != placeholders->end())
            s.placeholders.push_back({p.file.filename().string(), rel, dest, ph->second.prefix_placeholder,
                                      ph->second.file_mode == types::FileMode::binary});
    }
    return {};
}

// Once every content package is staged (so what the wheel ships is
// known): each file holding the prefix placeholder made relative to itself,
// or refused (wheel_prefix.hpp).
Result<void> relocate_placeholders(const Stage& s) {
    const auto ships = [&](const std::string& rel) {
        std::error_code ec;
        return stdfs::exists(s.root / rel, ec);
    };
    for (const auto& f : s.placeholders) {
        // Refused files are never read: a large data file holding the prefix
        // costs nothing, and a CMake file is read up to a bound.
        if (auto ok = placeholder_file_allowed(f, s.dist); !ok) return ok;
        auto text = fs::read_input_file(s.root / f.dest, kMaxPlaceholderText);
        if (!text) return rewrap(text.error(), SourceLoc{f.package + ": " + f.rel}, "a CMake file holding the prefix: ");
        auto fixed = relocate_placeholder_text(f, *text, s.site, s.dist, ships);
        if (!fixed) return unexpected(fixed.error());
        if (auto w = fs::write_file_atomic(s.root / f.dest, *fixed); !w) return w;
    }
    return {};
}

// torch/_build_config.py says where the package finds its C++ libraries,
// relative to itself: in a conda prefix "../../../" (<prefix>/lib), in the
// wheel "lib" (torch/lib), as PyTorch's wheels keep them.
Result<void> point_build_config_at_lib(const Stage& s) {
    const stdfs::path cfg = s.root / s.dist / "_build_config.py";
    std::error_code ec;
    if (!stdfs::exists(cfg, ec)) return {};
    auto text = fs::read_file(cfg);
    if (!text) return unexpected(text.error());
    std::string out;
    for (const auto& line : str::split_lines(*text))
        out += (str::starts_with(line, "lib_dir = ") ? std::string("lib_dir = \"lib\"") : line) + "\n";
    return fs::write_file_atomic(cfg, out);
}

// The libraries (directly in lib/) each provider package holds, by name:
// regular files, and symlinks by the regular file they lead to.
Result<std::map<std::string, ProvidedLib>> provided_libs(const std::vector<const PackageFile*>& providers) {
    std::map<std::string, ProvidedLib> out;
    for (const PackageFile* p : providers) {
        auto entries = archive::list_package(p->file, archive::Part::payload);
        if (!entries) return unexpected(entries.error());
        std::map<std::string, const archive::Entry*> lib;
        for (const auto& e : *entries)
            if (str::starts_with(e.path, "lib/") && e.path.find('/', 4) == std::string::npos &&
                e.path.find(".so") != std::string::npos)
                lib[e.path.substr(4)] = &e;
        for (const auto& [name, e] : lib) {
            const archive::Entry* real = e;
            for (int hops = 0; real && real->type == archive::EntryType::symlink && hops < 8; ++hops) {
                auto it = lib.find(stdfs::path(real->link_target).filename().string());
                real = it == lib.end() ? nullptr : it->second;
            }
            if (real && real->type == archive::EntryType::file)
                out.emplace(name, ProvidedLib{p->file.filename().string(), real->path});
        }
    }
    return out;
}

// Libraries of the given directories, by name, for what the packages do not
// provide; the member is the real file's absolute path.
void add_dir_libs(const std::vector<stdfs::path>& dirs, std::map<std::string, ProvidedLib>& out) {
    std::error_code ec;
    for (const auto& dir : dirs)
        for (const auto& e : stdfs::directory_iterator(dir, ec)) {
            const std::string name = e.path().filename().string();
            if (name.find(".so") == std::string::npos || out.count(name)) continue;
            const stdfs::path real = stdfs::canonical(e.path(), ec);
            if (!ec && stdfs::is_regular_file(real, ec)) out.emplace(name, ProvidedLib{dir.string(), real.string()});
        }
}

struct DistInfo {
    std::string dir, metadata, wheel, top_level;
};

Result<DistInfo> dist_info(const PackageFile& p, const std::string& dist, const std::string& version,
                           const std::string& minor, const std::vector<std::string>& tags) {
    WheelMetadata m;
    m.name = dist;
    m.version = version;
    m.requires_python = requires_python_for(minor);
    m.license = p.record.license;
    if (auto about = archive::read_package_member(p.file, "info/about.json")) {
        auto j = nlohmann::json::parse(*about, nullptr, false);
        if (j.is_object()) {
            if (j.contains("summary") && j["summary"].is_string()) m.summary = j["summary"];
            if (j.contains("home") && j["home"].is_string()) m.home_page = j["home"];
        }
    }
    DistInfo d;
    d.dir = wheel_escape(dist) + "-" + version + ".dist-info";
    d.metadata = metadata_text(m);
    d.wheel = wheel_text(kGenerator, tags);
    d.top_level = dist + "\n";
    return d;
}

// Copies a file into `sink`, hashing what it copies when `sha` is given.
Result<void> copy_stream(const stdfs::path& p, archive::ByteSink& sink, hash::Hasher* sha) {
    auto in = fs::InputFile::open(p);
    if (!in) return unexpected(in.error());
    std::vector<char> buf(1 << 20);
    for (;;) {
        const ssize_t n = ::read(in->fd(), buf.data(), buf.size());
        if (n < 0 && errno == EINTR) continue;
        if (n < 0) return fail_runtime(SourceLoc{p.string()}, std::string("read error: ") + std::strerror(errno));
        if (n == 0) return {};
        const auto k = static_cast<std::size_t>(n);
        if (sha) sha->update(std::string_view(buf.data(), k));
        if (auto w = sink.write(buf.data(), k); !w) return w;
    }
}

// Members big enough to be worth it are deflated once per run: the same
// bundled BLAS goes into every wheel of a variant and of every Python.
struct DeflatedCache {
    stdfs::path dir;
    std::map<std::string, std::pair<archive::ZipMemberInfo, stdfs::path>> by_sha;  // content sha256 ->
};
constexpr std::uint64_t kCacheFrom = 1 << 20;
// zlib's fastest level: on the demo's bundled OpenBLAS 2.7 times faster than
// level 6 for 16% more bytes, which keeps wheels within the megabuild's
// cost bar (issue 23: wheels and archives add at most 15%).
constexpr int kDeflateLevel = 1;

// One file of the tree into the zip; returns its RECORD entry.
Result<RecordEntry> add_member(archive::ZipWriter& zip, const stdfs::path& root, const std::string& rel,
                               archive::ZipMethod method, DeflatedCache& cache) {
    const stdfs::path p = root / rel;
    std::error_code ec;
    const auto st = stdfs::status(p, ec);
    const unsigned mode = (static_cast<unsigned>(st.permissions()) & 0100) ? 0755 : 0644;
    const std::uint64_t size = stdfs::file_size(p, ec);
    if (ec) return fail_runtime(SourceLoc{p.string()}, "cannot stat: " + ec.message());
    if (method == archive::ZipMethod::stored || size < kCacheFrom) {
        hash::Hasher sha(hash::Algo::sha256);
        auto produce = [&](archive::ByteSink& sink) { return copy_stream(p, sink, &sha); };
        if (auto r = zip.add_streamed(rel, size, produce, mode, method); !r) return unexpected(r.error());
        auto h = record_hash_from_hex(sha.hex());
        if (!h) return unexpected(h.error());
        return RecordEntry{rel, *h, zip.last().size};
    }
    auto sha = hash::file_sha256(p);
    if (!sha) return unexpected(sha.error());
    auto h = record_hash_from_hex(*sha);
    if (!h) return unexpected(h.error());
    if (auto hit = cache.by_sha.find(*sha); hit != cache.by_sha.end()) {
        auto produce = [&](archive::ByteSink& sink) { return copy_stream(hit->second.second, sink, nullptr); };
        if (auto r = zip.add_raw(rel, hit->second.first, produce, mode); !r) return unexpected(r.error());
        return RecordEntry{rel, *h, size};
    }
    auto keep = archive::OutputFile::create(cache.dir / ("deflated-" + std::to_string(cache.by_sha.size())));
    if (!keep) return unexpected(keep.error());
    auto produce = [&](archive::ByteSink& sink) { return copy_stream(p, sink, nullptr); };
    if (auto r = zip.add_streamed(rel, size, produce, mode, method, keep->get()); !r) return unexpected(r.error());
    if (auto r = (*keep)->commit(); !r) return unexpected(r.error());
    if (zip.last().size != size)
        return fail_runtime(SourceLoc{p.string()}, "changed while it was being written");
    cache.by_sha[*sha] = {zip.last(), (*keep)->final_path()};
    return RecordEntry{rel, *h, size};
}

// The wheel's members: the staged tree sorted by path, then .dist-info
// (PEP 427 asks for it last), RECORD at the very end.
Result<std::uint64_t> write_wheel(const stdfs::path& out_dir, const std::string& name, const stdfs::path& root,
                                  const DistInfo& d, std::int64_t mtime, archive::ZipMethod method,
                                  DeflatedCache& cache) {
    std::vector<std::string> rels;
    std::error_code ec;
    for (auto it = stdfs::recursive_directory_iterator(root, ec); !ec && it != stdfs::recursive_directory_iterator();
         it.increment(ec))
        if (it->is_regular_file(ec)) rels.push_back(it->path().lexically_relative(root).generic_string());
    if (ec) return fail_runtime(SourceLoc{root.string()}, "cannot list: " + ec.message());
    std::sort(rels.begin(), rels.end());
    auto dir = fs::Dir::open(out_dir, fs::Create::yes);
    if (!dir) return unexpected(dir.error());
    dir->sweep_stale_temps();
    auto file = archive::OutputFile::create(dir->path() / name);
    if (!file) return unexpected(file.error());
    archive::ZipWriter zip(**file, mtime, kDeflateLevel);
    std::vector<RecordEntry> record;
    for (const auto& rel : rels) {
        auto e = add_member(zip, root, rel, method, cache);
        if (!e) return unexpected(e.error());
        record.push_back(std::move(*e));
    }
    auto add_text = [&](const std::string& rel, const std::string& text) -> Result<void> {
        auto produce = [&](archive::ByteSink& sink) { return sink.write(text.data(), text.size()); };
        return zip.add_streamed(rel, text.size(), produce, 0644, method);
    };
    for (const auto& [n, text] : {std::pair<std::string, const std::string&>{"METADATA", d.metadata},
                                  {"WHEEL", d.wheel}, {"top_level.txt", d.top_level}}) {
        const std::string rel = d.dir + "/" + n;
        if (auto r = add_text(rel, text); !r) return unexpected(r.error());
        auto h = record_hash_from_hex(hash::sha256(text));
        if (!h) return unexpected(h.error());
        record.push_back({rel, *h, text.size()});
    }
    const std::string record_path = d.dir + "/RECORD";
    if (auto r = add_text(record_path, record_text(record, record_path)); !r) return unexpected(r.error());
    if (auto r = zip.finish(); !r) return unexpected(r.error());
    const std::uint64_t size = (*file)->position();
    if (auto r = (*file)->commit(); !r) return unexpected(r.error());
    return size;
}

}  // namespace

namespace {

Result<stdfs::path> find_patchelf(const WheelOptions& o) {
    if (o.patchelf.find('/') != std::string::npos) return stdfs::path(o.patchelf);
    auto it = o.env.find("PATH");
    auto p = process::find_executable(o.patchelf, it == o.env.end() ? "" : it->second);
    if (!p) return fail(o.patchelf + " not found on PATH", "apt-get install patchelf");
    return *p;
}

// The staged tree made self-contained from the providers' libraries (and
// --ldpath's), and its manylinux policy.
Result<BundleResult> bundle_tree(const WheelOptions& o, const Stage& stage,
                                 const std::vector<const PackageFile*>& providers, Extracted& extracted,
                                 const stdfs::path& patchelf, BundleCache& cache) {
    auto provided = provided_libs(providers);
    if (!provided) return unexpected(provided.error());
    add_dir_libs(o.library_dirs, *provided);
    BundleOptions b;
    b.root = stage.root;
    b.libs_dir = o.distribution + ".libs";
    b.provided = std::move(*provided);
    b.fetch = [&](const ProvidedLib& lib, const stdfs::path& to) -> Result<void> {
        if (stdfs::path(lib.member).is_absolute()) return fs::copy_file(lib.member, to, fs::Overwrite::no);
        for (const PackageFile* d : providers)
            if (d->file.filename().string() == lib.package) {
                auto tree = extracted.get(d->file);
                if (!tree) return unexpected(tree.error());
                return fs::copy_file(*tree / lib.member, to, fs::Overwrite::no);
            }
        return fail(SourceLoc{lib.package}, "not among the dependencies");
    };
    b.patchelf = patchelf;
    b.env = o.env;
    b.cache = &cache;
    return bundle_libraries(b);
}

// One wheel from package `p`.
Result<WheelReport> make_wheel(const WheelOptions& o, const std::vector<PackageFile>& all, const PackageFile& p,
                               const stdfs::path& patchelf, BundleCache& cache, DeflatedCache& deflated) {
    const auto t0 = std::chrono::steady_clock::now();
    const std::string pkg = p.file.filename().string();
    WheelReport rep;
    rep.from = pkg;
    const std::string minor = python_minor(p.record.depends);
    if (minor.empty()) return fail(SourceLoc{pkg}, "depends on no python version: no wheel tag for it");
    auto version = wheel_version(p.record.version.str(), local_version(p.record.build));
    if (!version) return fail(SourceLoc{pkg}, version.error().message, version.error().hint);
    auto closure = dependency_closure(all, p, {"python"});
    if (!closure) return unexpected(closure.error());

    fs::TempDir tmp("sf-wheel");
    Extracted extracted(tmp.path() / "pkgs");
    Stage stage{.root = tmp.path() / "wheel", .site = "lib/python" + minor + "/site-packages/", .dist = o.distribution};
    std::vector<const PackageFile*> providers;
    std::vector<stdfs::path> inputs;
    for (const PackageFile* d : *closure) {
        inputs.push_back(d->file);
        const bool content = d == &p || std::find(o.content.begin(), o.content.end(), d->record.name) != o.content.end();
        if (!content) {
            providers.push_back(d);
            continue;
        }
        rep.packages.push_back(d->file.filename().string());
        rep.conda_size += d->size;
        auto tree = extracted.get(d->file);
        if (!tree) return unexpected(tree.error());
        if (auto r = stage_package(stage, *d, *tree); !r) return unexpected(r.error());
    }
    if (auto r = relocate_placeholders(stage); !r) return unexpected(r.error());
    if (auto r = point_build_config_at_lib(stage); !r) return unexpected(r.error());
    auto bundle = bundle_tree(o, stage, providers, extracted, patchelf, cache);
    if (!bundle) {
        Error e = bundle.error();
        e.loc.file = pkg + ": " + o.distribution + " wheel: " + e.loc.file;
        return unexpected(e);
    }
    for (const PackageFile* d : providers)
        if (std::find(bundle->from.begin(), bundle->from.end(), d->file.filename().string()) != bundle->from.end())
            rep.packages.push_back(d->file.filename().string());

    const std::vector<std::string> platforms = bundle->policy.tags(bundle->arch);
    std::vector<std::string> tags;
    for (const auto& t : platforms) tags.push_back(cpython_tag(minor) + "-" + cpython_tag(minor) + "-" + t);
    auto info = dist_info(p, o.distribution, *version, minor, tags);
    if (!info) return unexpected(info.error());
    WheelName name{wheel_escape(o.distribution), *version, "", cpython_tag(minor), cpython_tag(minor),
                   str::join(platforms, ".")};
    const auto method = o.compression == WheelCompression::deflate ? archive::ZipMethod::deflate
                                                                   : archive::ZipMethod::stored;
    auto size = write_wheel(o.output_folder, name.str(), stage.root, *info, timestamp::reproducible(inputs), method,
                            deflated);
    if (!size) return unexpected(size.error());
    rep.wheel = o.output_folder / name.str();
    rep.wheel_size = *size;
    rep.platform_tag = name.platform_tag;
    rep.bundled = bundle->bundled;
    rep.system_libs = bundle->system;
    rep.skipped = stage.skipped;
    rep.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    return rep;
}

}  // namespace

Result<std::vector<WheelReport>> make_wheels(const WheelOptions& o) {
    auto all = scan_packages(o.input);
    if (!all) return unexpected(all.error());
    std::vector<const PackageFile*> roots;
    for (const auto& p : *all)
        if (p.record.name == o.package) roots.push_back(&p);
    if (roots.empty())
        return fail(SourceLoc{o.input.string()},
                    "no '" + o.package + "' package in the folder: wheel makes PyTorch-shaped pip wheels (" +
                        o.distribution + "-VERSION-cpXY-...whl), each from one built '" + o.package +
                        "' conda package and the libtorch package it depends on",
                    "point it at the folder a PyTorch build wrote (./build-locally.sh --demo writes one), "
                    "or pass --package for another name");
    // Two packages that would make the same wheel (two build numbers of one
    // variant): refused before anything is written, not overwritten.
    std::map<std::string, std::string> seen;
    for (const PackageFile* p : roots) {
        const std::string key = local_version(p->record.build) + " " + p->record.version.str() + " " +
                                python_minor(p->record.depends);
        if (auto [it, fresh] = seen.emplace(key, p->file.filename().string()); !fresh)
            return fail(SourceLoc{p->file.filename().string()},
                        "makes the same wheel as " + it->second + " (same version, variant and Python)",
                        "keep one build of each variant in the folder");
    }
    auto patchelf = find_patchelf(o);
    if (!patchelf) return unexpected(patchelf.error());
    Reporter& r = reporter_or_default(o.reporter);
    std::vector<WheelReport> out;
    fs::TempDir cache_dir("sf-wheel-cache");
    BundleCache cache{cache_dir.path(), {}, {}};
    DeflatedCache deflated{cache_dir.path(), {}};
    for (const PackageFile* p : roots) {
        auto w = make_wheel(o, *all, *p, *patchelf, cache, deflated);
        if (!w) return unexpected(w.error());
        r.note("wheel " + w->wheel.filename().string() + " from " + w->from);
        out.push_back(std::move(*w));
    }
    return out;
}

}  // namespace sf::binary
