#include "binary/wheel_bundle.hpp"

#include <algorithm>
#include <deque>
#include <set>

#include "binary/wheel_meta.hpp"
#include "package/elf.hpp"
#include "package/elf_symbols.hpp"
#include "util/fs.hpp"
#include "util/hash.hpp"
#include "util/strings.hpp"

namespace sf::binary {

namespace stdfs = std::filesystem;

namespace {

struct ElfFile {
    std::string rel;  // '/'-separated, relative to the root
    package::ElfInfo info;
    package::ElfSymbols symbols;
    std::vector<std::pair<std::string, std::string>> replace;  // NEEDED old -> new
    std::vector<std::string> dirs;  // root-relative dirs of what it needs in the tree, in order
    std::string soname;             // a new DT_SONAME; empty: keep
    std::string source_sha;         // a bundled library's SHA-256 before patching
};

std::string parent_of(const std::string& rel) { return stdfs::path(rel).parent_path().generic_string(); }

std::string origin_path(const std::string& from_dir, const std::string& to_dir) {
    const std::string rel = stdfs::path(to_dir).lexically_relative(from_dir).generic_string();
    return rel == "." || rel.empty() ? "$ORIGIN" : "$ORIGIN/" + rel;
}

bool is_loader(std::string_view n) {
    return str::starts_with(n, "ld-linux") || n == "ld64.so.1" || n == "ld64.so.2";
}

Result<ElfFile> read_elf_file(const stdfs::path& root, const std::string& rel) {
    ElfFile f;
    f.rel = rel;
    auto info = package::read_elf(root / rel);
    if (!info) return unexpected(info.error());
    f.info = std::move(*info);
    if (!f.info.is_elf || !f.info.is_dynamic) return f;
    auto syms = package::read_elf_symbols(root / rel);
    if (!syms) return unexpected(syms.error());
    f.symbols = std::move(*syms);
    return f;
}

// Every regular file's ELF data, sorted by path; non-ELF files left out.
Result<std::vector<ElfFile>> elf_files(const stdfs::path& root) {
    std::vector<std::string> rels;
    std::error_code ec;
    for (auto it = stdfs::recursive_directory_iterator(root, ec); !ec && it != stdfs::recursive_directory_iterator();
         it.increment(ec))
        if (it->is_regular_file(ec) && !it->is_symlink(ec))
            rels.push_back(it->path().lexically_relative(root).generic_string());
    if (ec) return fail_runtime(SourceLoc{root.string()}, "cannot list: " + ec.message());
    std::sort(rels.begin(), rels.end());
    std::vector<ElfFile> out;
    for (const auto& rel : rels) {
        auto f = read_elf_file(root, rel);
        if (!f) return unexpected(f.error());
        if (f->info.is_elf && f->info.is_dynamic) out.push_back(std::move(*f));
    }
    return out;
}

// The file's own $ORIGIN-relative RPATH entries that still name a directory
// inside the tree (a library may dlopen a neighbour by name); entries that
// leave the tree (a conda prefix's "$ORIGIN/../../../") or are absolute go.
std::vector<std::string> kept_rpath(const stdfs::path& root, const ElfFile& f) {
    std::vector<std::string> out;
    const std::string dir = parent_of(f.rel);
    for (const auto& e : str::split(f.info.rpath, ':')) {
        std::string rest;
        if (str::starts_with(e, "$ORIGIN")) rest = e.substr(7);
        else if (str::starts_with(e, "${ORIGIN}")) rest = e.substr(9);
        else continue;
        if (!rest.empty() && rest[0] != '/') continue;
        const stdfs::path target = (stdfs::path(dir) / stdfs::path(rest).relative_path()).lexically_normal();
        std::string t = target.generic_string();
        while (!t.empty() && t.back() == '/') t.pop_back();
        if (t == ".") t.clear();
        std::error_code ec;
        if (str::starts_with(t, "..") || !stdfs::is_directory(root / t, ec)) continue;
        std::string p = origin_path(dir, t);
        if (std::find(out.begin(), out.end(), p) == out.end()) out.push_back(p);
    }
    return out;
}

Result<void> patchelf_call(const BundleOptions& o, const std::string& rel, std::vector<std::string> args) {
    process::Command cmd;
    cmd.argv = {o.patchelf.string()};
    cmd.argv.insert(cmd.argv.end(), args.begin(), args.end());
    cmd.argv.push_back((o.root / rel).string());
    cmd.env = o.env;
    auto out = process::capture(cmd);
    if (!out) return unexpected(out.error());
    if (out->exit_code != 0)
        return fail_runtime(SourceLoc{rel}, "patchelf " + args.front() + " failed: " + std::string(str::trim(out->err)));
    return {};
}

// One patchelf run per kind of change, as auditwheel runs them: patchelf
// 0.14-0.17 can corrupt the string table when one run both renames NEEDED
// entries and sets the RPATH.
Result<void> run_patchelf(const BundleOptions& o, const ElfFile& f, const std::string& rpath, bool set_rpath) {
    if (!f.replace.empty()) {
        std::vector<std::string> args;
        for (const auto& [from, to] : f.replace) args.insert(args.end(), {"--replace-needed", from, to});
        if (auto r = patchelf_call(o, f.rel, args); !r) return r;
    }
    if (!f.soname.empty())
        if (auto r = patchelf_call(o, f.rel, {"--set-soname", f.soname}); !r) return r;
    if (!set_rpath) return {};
    if (rpath.empty()) return patchelf_call(o, f.rel, {"--remove-rpath"});
    if (f.info.kind == package::RpathKind::rpath)  // keep a DT_RPATH one
        return patchelf_call(o, f.rel, {"--force-rpath", "--set-rpath", rpath});
    return patchelf_call(o, f.rel, {"--set-rpath", rpath});
}

// A provided library's bytes and SHA-256: fetched once per run with a cache.
Result<std::pair<std::string, stdfs::path>> fetch_hashed(const BundleOptions& o, const ProvidedLib& lib,
                                                         const stdfs::path& scratch) {
    const std::string key = lib.package + "|" + lib.member;
    if (o.cache)
        if (auto it = o.cache->fetched.find(key); it != o.cache->fetched.end()) return it->second;
    const stdfs::path dir = o.cache ? o.cache->dir : scratch;
    const stdfs::path to = dir / (std::to_string(o.cache ? o.cache->fetched.size() : 0) + "-" +
                                  stdfs::path(lib.member).filename().string());
    if (auto r = o.fetch(lib, to); !r) return unexpected(r.error());
    auto sha = hash::file_sha256(to);
    if (!sha) return unexpected(sha.error());
    std::pair<std::string, stdfs::path> got{*sha, to};
    if (o.cache) o.cache->fetched[key] = got;
    return got;
}

// Copies a provided library into the libs dir under its hashed name.
Result<ElfFile> bundle_one(const BundleOptions& o, const ProvidedLib& lib, std::string& name_out) {
    fs::TempDir tmp("sf-wheel-lib");
    auto got = fetch_hashed(o, lib, tmp.path());
    if (!got) return unexpected(got.error());
    name_out = hashed_library_name(stdfs::path(lib.member).filename().string(), got->first);
    const std::string rel = o.libs_dir + "/" + name_out;
    std::error_code ec;
    stdfs::create_directories(o.root / o.libs_dir, ec);
    if (auto r = fs::copy_file(got->second, o.root / rel, fs::Overwrite::no); !r) return unexpected(r.error());
    auto f = read_elf_file(o.root, rel);
    if (!f) return unexpected(f.error());
    if (!f->info.is_elf || !f->info.is_dynamic)
        return fail(SourceLoc{lib.package + ": " + lib.member}, "not a shared library");
    f->soname = name_out;
    f->source_sha = got->first;
    return f;
}

// run_patchelf through the cache: a bundled library with the same bytes and
// the same changes gets the file patchelf made the first time.
Result<void> patch_cached(const BundleOptions& o, const ElfFile& f, const std::string& rpath, bool set_rpath) {
    if (!o.cache || f.source_sha.empty()) return run_patchelf(o, f, rpath, set_rpath);
    std::string key = f.source_sha + "|" + f.soname + "|" + (set_rpath ? "rpath=" + rpath : "");
    for (const auto& [from, to] : f.replace) key += "|" + from + ">" + to;
    const stdfs::path at = o.root / f.rel;
    if (auto it = o.cache->patched.find(key); it != o.cache->patched.end())
        return fs::copy_file(it->second, at, fs::Overwrite::yes);
    if (auto r = run_patchelf(o, f, rpath, set_rpath); !r) return r;
    const stdfs::path keep = o.cache->dir / ("patched-" + std::to_string(o.cache->patched.size()));
    if (auto r = fs::copy_file(at, keep, fs::Overwrite::no); !r) return r;
    o.cache->patched[key] = keep;
    return {};
}

}  // namespace

namespace {

// Follows every NEEDED of the tree's files (and of what gets bundled) to
// the tree, the system, or a provided library it bundles; the files with the
// changes each one needs.
Result<std::vector<ElfFile>> resolve(const BundleOptions& o, std::vector<ElfFile> files,
                                     const ManylinuxPolicy& newest, BundleResult& out) {
    std::deque<ElfFile> todo(std::make_move_iterator(files.begin()), std::make_move_iterator(files.end()));
    std::map<std::string, std::string> in_tree;  // file name -> rel
    std::map<std::string, std::string> bundled;  // NEEDED name -> hashed name
    for (const auto& f : todo) in_tree.emplace(stdfs::path(f.rel).filename().string(), f.rel);
    std::set<std::string> system;
    std::vector<ElfFile> done;
    while (!todo.empty()) {
        ElfFile f = std::move(todo.front());
        todo.pop_front();
        for (const auto& n : f.info.needed) {
            if (is_loader(n)) continue;
            std::string target = n;
            if (auto b = bundled.find(n); b != bundled.end()) target = b->second;
            if (auto t = in_tree.find(target); t != in_tree.end()) {
                if (target != n) f.replace.emplace_back(n, target);
                f.dirs.push_back(parent_of(t->second));
                continue;
            }
            if (allowed(newest, n)) {
                system.insert(n);
                continue;
            }
            auto p = o.provided.find(n);
            if (p == o.provided.end())
                return fail(SourceLoc{f.rel},
                            "needs " + n + ", which is neither in the wheel, in a package it depends on, nor on the "
                            "manylinux allow-list",
                            "add the package that provides " + n + " to the run requirements");
            std::string hashed;
            auto lib = bundle_one(o, p->second, hashed);
            if (!lib) return unexpected(lib.error());
            bundled[n] = hashed;
            in_tree[hashed] = lib->rel;
            out.bundled.push_back(lib->rel + " (" + n + " from " + p->second.package + ")");
            if (std::find(out.from.begin(), out.from.end(), p->second.package) == out.from.end())
                out.from.push_back(p->second.package);
            f.replace.emplace_back(n, hashed);
            f.dirs.push_back(o.libs_dir);
            todo.push_back(std::move(*lib));
        }
        done.push_back(std::move(f));
    }
    out.system.assign(system.begin(), system.end());
    return done;
}

// The file's RPATH in the tree: its own entries that stay inside, then the
// directories of what it needs, each once.
std::string rpath_for(const stdfs::path& root, const ElfFile& f) {
    std::vector<std::string> rp = kept_rpath(root, f);
    for (const auto& d : f.dirs) {
        std::string p = origin_path(parent_of(f.rel), d);
        if (std::find(rp.begin(), rp.end(), p) == rp.end()) rp.push_back(p);
    }
    return str::join(rp, ":");
}

// The oldest policy admitting every file; none: an error naming the first
// file whose own needs the newest policy refuses (or that no policy can
// admit: an ISA level above the baseline, UCS2 or PyFPE symbols).
Result<ManylinuxPolicy> tag(const std::vector<ElfFile>& done, const std::vector<std::string>& system,
                            const ManylinuxPolicy& newest) {
    ManylinuxRequirements req;
    req.system_libs.insert(system.begin(), system.end());
    for (const auto& f : done)
        if (auto r = add_requirements(req, f.symbols, f.rel); !r) return unexpected(r.error());
    auto policy = oldest_policy(req);
    if (policy || !req.linux_only.empty()) return policy;  // the latter names its file
    for (const auto& f : done) {
        ManylinuxRequirements one;
        if (!add_requirements(one, f.symbols, f.rel)) continue;
        if (auto why = refusals(newest, one); !why.empty())
            return fail(SourceLoc{f.rel}, "no manylinux policy admits its " + why.front(), policy.error().hint);
    }
    return unexpected(policy.error());
}

}  // namespace

Result<BundleResult> bundle_libraries(const BundleOptions& o) {
    auto files = elf_files(o.root);
    if (!files) return unexpected(files.error());
    if (files->empty()) return fail(SourceLoc{o.root.string()}, "no ELF file in the wheel: nothing to tag");
    BundleResult out;
    out.arch = package::machine_arch(files->front().symbols.machine, files->front().symbols.little_endian);
    const auto policies = manylinux_policies(out.arch);
    if (policies.empty())
        return fail(SourceLoc{files->front().rel}, "no manylinux policy for architecture '" + out.arch + "'");
    auto done = resolve(o, std::move(*files), policies.back(), out);
    if (!done) return unexpected(done.error());
    for (const auto& f : *done) {
        const std::string rpath = rpath_for(o.root, f);
        const bool rpath_changes = rpath != f.info.rpath || (rpath.empty() && f.info.kind != package::RpathKind::none);
        if (!rpath_changes && f.replace.empty() && f.soname.empty()) continue;
        if (auto r = patch_cached(o, f, rpath, rpath_changes); !r) return unexpected(r.error());
        ++out.patched;
    }
    auto policy = tag(*done, out.system, policies.back());
    if (!policy) return unexpected(policy.error());
    out.policy = *policy;
    return out;
}

}  // namespace sf::binary
