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

Result<void> run_patchelf(const BundleOptions& o, const ElfFile& f, const std::string& rpath) {
    process::Command cmd;
    cmd.argv = {o.patchelf.string()};
    if (f.info.kind == package::RpathKind::rpath) cmd.argv.push_back("--force-rpath");  // keep a DT_RPATH one
    if (rpath.empty())
        cmd.argv.push_back("--remove-rpath");
    else
        cmd.argv.insert(cmd.argv.end(), {"--set-rpath", rpath});
    for (const auto& [from, to] : f.replace) cmd.argv.insert(cmd.argv.end(), {"--replace-needed", from, to});
    if (!f.soname.empty()) cmd.argv.insert(cmd.argv.end(), {"--set-soname", f.soname});
    cmd.argv.push_back((o.root / f.rel).string());
    cmd.env = o.env;
    auto out = process::capture(cmd);
    if (!out) return unexpected(out.error());
    if (out->exit_code != 0)
        return fail_runtime(SourceLoc{f.rel}, "patchelf failed: " + std::string(str::trim(out->err)));
    return {};
}

// Copies a provided library into the libs dir under its hashed name.
Result<ElfFile> bundle_one(const BundleOptions& o, const ProvidedLib& lib, std::string& name_out) {
    fs::TempDir tmp("sf-wheel-lib");
    const stdfs::path fetched = tmp.path() / stdfs::path(lib.member).filename();
    if (auto r = o.fetch(lib, fetched); !r) return unexpected(r.error());
    auto sha = hash::file_sha256(fetched);
    if (!sha) return unexpected(sha.error());
    name_out = hashed_library_name(fetched.filename().string(), *sha);
    const std::string rel = o.libs_dir + "/" + name_out;
    std::error_code ec;
    stdfs::create_directories(o.root / o.libs_dir, ec);
    if (auto r = fs::copy_file(fetched, o.root / rel, fs::Overwrite::no); !r) return unexpected(r.error());
    auto f = read_elf_file(o.root, rel);
    if (!f) return unexpected(f.error());
    if (!f->info.is_elf || !f->info.is_dynamic)
        return fail(SourceLoc{lib.package + ": " + lib.member}, "not a shared library");
    f->soname = name_out;
    return f;
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
    const ManylinuxPolicy& newest = policies.back();

    std::deque<ElfFile> todo(files->begin(), files->end());
    std::map<std::string, std::string> in_tree;   // file name -> rel
    std::map<std::string, std::string> bundled;   // NEEDED name -> hashed name
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
            f.replace.emplace_back(n, hashed);
            f.dirs.push_back(o.libs_dir);
            todo.push_back(std::move(*lib));
        }
        done.push_back(std::move(f));
    }
    out.system.assign(system.begin(), system.end());

    ManylinuxRequirements req;
    req.system_libs = system;
    for (auto& f : done) {
        std::vector<std::string> rp = kept_rpath(o.root, f);
        for (const auto& d : f.dirs) {
            std::string p = origin_path(parent_of(f.rel), d);
            if (std::find(rp.begin(), rp.end(), p) == rp.end()) rp.push_back(p);
        }
        const std::string rpath = str::join(rp, ":");
        const bool rpath_changes = rpath != f.info.rpath || (rpath.empty() && f.info.kind != package::RpathKind::none);
        if (rpath_changes || !f.replace.empty() || !f.soname.empty()) {
            if (auto r = run_patchelf(o, f, rpath); !r) return unexpected(r.error());
            ++out.patched;
        }
        if (auto r = add_requirements(req, f.symbols, f.rel); !r) return unexpected(r.error());
    }
    auto policy = oldest_policy(req);
    if (!policy) {
        // Name the file: the first whose own needs the newest policy refuses.
        for (const auto& f : done) {
            ManylinuxRequirements one;
            one.system_libs = system;
            if (!add_requirements(one, f.symbols, f.rel)) continue;
            one.system_libs.clear();
            if (auto why = refusals(newest, one); !why.empty())
                return fail(SourceLoc{f.rel}, "no manylinux policy admits its " + why.front(), policy.error().hint);
        }
        return unexpected(policy.error());
    }
    out.policy = *policy;
    return out;
}

}  // namespace sf::binary
