#include "package/postprocess.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>

#include "package/elf.hpp"
#include "util/fs.hpp"
#include "util/strings.hpp"

namespace sf::package {

namespace stdfs = std::filesystem;

namespace {

// "prefix/x" -> "x"; "prefix" -> "."; otherwise nullopt.
std::optional<std::string> inside(const std::string& abs, const std::string& prefix) {
    if (prefix.empty()) return std::nullopt;
    std::string p = prefix;
    while (p.size() > 1 && p.back() == '/') p.pop_back();
    if (abs == p) return std::string(".");
    if (str::starts_with(abs, p + "/")) return abs.substr(p.size() + 1);
    return std::nullopt;
}

std::string effective_prefix(const stdfs::path& dir, const std::string& prefix) {
    if (!prefix.empty()) return prefix;
    std::error_code ec;
    auto abs = stdfs::absolute(dir, ec);
    return abs.lexically_normal().string();
}

// Every entry under dir (not following symlinks), relative, sorted.
struct Walked {
    std::string rel;
    stdfs::path abs;
    stdfs::file_type type;
};
Result<std::vector<Walked>> walk(const stdfs::path& dir) {
    std::vector<Walked> out;
    std::error_code ec;
    stdfs::recursive_directory_iterator it(dir, stdfs::directory_options::none, ec), end;
    if (ec) return fail(SourceLoc{dir.string()}, "cannot list directory: " + ec.message());
    for (; it != end; it.increment(ec)) {
        if (ec) return fail(SourceLoc{dir.string()}, "cannot list directory: " + ec.message());
        auto st = it->symlink_status(ec);
        out.push_back({it->path().lexically_relative(dir).generic_string(), it->path(), st.type()});
    }
    std::sort(out.begin(), out.end(), [](const Walked& a, const Walked& b) { return a.rel < b.rel; });
    return out;
}

}  // namespace

Result<std::vector<std::string>> fix_symlinks(const stdfs::path& dir, const std::string& prefix_in) {
    const std::string prefix = effective_prefix(dir, prefix_in);
    const std::string dir_abs = effective_prefix(dir, "");
    auto entries = walk(dir);
    if (!entries) return unexpected(entries.error());
    std::vector<std::string> changed;
    for (const auto& e : *entries) {
        if (e.type != stdfs::file_type::symlink) continue;
        std::error_code ec;
        stdfs::path target = stdfs::read_symlink(e.abs, ec);
        if (ec) return fail(SourceLoc{e.rel}, "cannot read symlink: " + ec.message());
        stdfs::path parent = stdfs::path(e.rel).parent_path();
        if (target.is_absolute()) {
            auto in = inside(target.lexically_normal().string(), prefix);
            if (!in) in = inside(target.lexically_normal().string(), dir_abs);
            if (!in)
                return fail(SourceLoc{e.rel},
                            "absolute symlink to '" + target.string() + "' points outside the prefix",
                            "make the link relative and keep its target inside the package");
            stdfs::path rel = stdfs::path(*in).lexically_relative(parent.empty() ? stdfs::path(".") : parent);
            if (rel.empty()) rel = ".";
            stdfs::remove(e.abs, ec);
            stdfs::create_symlink(rel, e.abs, ec);
            if (ec) return fail(SourceLoc{e.rel}, "cannot rewrite symlink: " + ec.message());
            changed.push_back(e.rel + " -> " + rel.string());
            continue;
        }
        std::string norm = (parent / target).lexically_normal().generic_string();
        if (norm == ".." || str::starts_with(norm, "../"))
            return fail(SourceLoc{e.rel}, "symlink to '" + target.string() + "' escapes the prefix",
                        "keep symlink targets inside the package");
    }
    return changed;
}

std::string relocate_rpath(const std::string& rpath, const std::string& prefix, const std::string& file_dir,
                           const std::vector<std::string>& rpaths, std::vector<std::string>* dropped) {
    std::vector<std::string> out;
    auto add = [&](const std::string& s) {
        if (!s.empty() && std::find(out.begin(), out.end(), s) == out.end()) out.push_back(s);
    };
    const stdfs::path origin = file_dir.empty() ? stdfs::path(".") : stdfs::path(file_dir);
    auto from_origin = [&](const std::string& rel) {
        std::string r = stdfs::path(rel).lexically_relative(origin).lexically_normal().generic_string();
        while (r.size() > 1 && r.back() == '/') r.pop_back();
        return "$ORIGIN/" + (r.empty() ? std::string(".") : r);
    };
    for (const auto& entry : str::split(rpath, ':')) {
        if (entry.empty()) continue;
        if (str::starts_with(entry, "$ORIGIN") || str::starts_with(entry, "${ORIGIN}")) {
            add(entry);
            continue;
        }
        std::optional<std::string> in;
        if (entry[0] == '/') in = inside(stdfs::path(entry).lexically_normal().string(), prefix);
        if (!in) {
            if (dropped) dropped->push_back(entry);
            continue;
        }
        add(from_origin(*in));
    }
    for (const auto& r : rpaths) {
        if (r.empty()) continue;
        add(r[0] == '/' ? r : from_origin(stdfs::path(r).lexically_normal().generic_string()));
    }
    return str::join(out, ":");
}

Result<std::optional<PrefixFile>> detect_prefix(const stdfs::path& file, const std::string& rel,
                                                const std::string& prefix, BinaryPrefix binary) {
    if (prefix.empty()) return std::optional<PrefixFile>{};
    auto in = fs::InputFile::open(file);  // only a regular file, never waiting on a FIFO
    if (!in) return unexpected(in.error());
    int fd = in->release();
    const std::size_t chunk = 1 << 20, keep = prefix.size() - 1;
    std::vector<char> buf(chunk + keep);
    std::size_t have = 0;  // bytes carried over from the previous chunk
    bool has_nul = false, found = false;
    for (;;) {
        ssize_t n = ::read(fd, buf.data() + have, chunk);
        if (n < 0) {
            if (errno == EINTR) continue;
            int err = errno;
            ::close(fd);
            return fail(SourceLoc{file.string()}, std::string("read failed: ") + std::strerror(err));
        }
        if (n == 0) break;
        if (!has_nul && std::memchr(buf.data() + have, 0, static_cast<std::size_t>(n))) has_nul = true;
        std::size_t total = have + static_cast<std::size_t>(n);
        if (!found && ::memmem(buf.data(), total, prefix.data(), prefix.size())) found = true;
        if (found && has_nul) break;
        if (has_nul && binary == BinaryPrefix::ignore) break;
        have = std::min(keep, total);
        std::memmove(buf.data(), buf.data() + total - have, have);
    }
    ::close(fd);
    if (!found) return std::optional<PrefixFile>{};
    if (has_nul && binary == BinaryPrefix::ignore) return std::optional<PrefixFile>{};
    return std::optional<PrefixFile>{PrefixFile{rel, prefix, has_nul ? types::FileMode::binary : types::FileMode::text}};
}

namespace {

Result<void> run_patchelf(const stdfs::path& exe, const Walked& f, const std::string& rpath,
                          const process::Env& env) {
    process::Command cmd;
    cmd.argv = {exe.string()};
    // conda-build always writes DT_RPATH (a DT_RUNPATH becomes one).
    cmd.argv.insert(cmd.argv.end(), {"--force-rpath", "--set-rpath", rpath, f.abs.string()});
    cmd.env = env;
    auto out = process::capture(cmd);
    if (!out) return unexpected(out.error());
    if (out->exit_code != 0)
        return fail(SourceLoc{f.rel}, "patchelf --set-rpath failed: " + std::string(str::trim(out->err)));
    return {};
}

Result<stdfs::path> find_patchelf(const PostprocessOptions& opts) {
    if (opts.patchelf.find('/') != std::string::npos) {
        if (::access(opts.patchelf.c_str(), X_OK) == 0) return stdfs::path(opts.patchelf);
    } else {
        auto it = opts.env.find("PATH");
        if (auto p = process::find_executable(opts.patchelf, it == opts.env.end() ? "" : it->second); p && !p->empty())
            return *p;
    }
    return fail(opts.patchelf + " not found", "apt-get install patchelf");
}

// Step 2 on every dynamic ELF file (post.py post_process_shared_lib; not on
// *.debug files; only the listed ones under binary_relocation: [globs]).
Result<void> relocate_all(const std::vector<Walked>& entries, const std::string& prefix,
                          const PostprocessOptions& opts, PostprocessReport& report) {
    std::optional<stdfs::path> patchelf;
    for (const auto& e : entries) {
        if (e.type != stdfs::file_type::regular || str::starts_with(e.rel, "info/") || str::ends_with(e.rel, ".debug"))
            continue;
        if (!opts.relocate_only.empty() &&
            std::none_of(opts.relocate_only.begin(), opts.relocate_only.end(),
                         [&](const std::string& g) { return caseless_fnmatch(e.rel, g); }))
            continue;
        auto elf = read_elf(e.abs);
        if (!elf) return unexpected(elf.error());
        if (!elf->is_elf || !elf->is_dynamic) continue;
        std::vector<std::string> dropped;
        std::string dir_rel = stdfs::path(e.rel).parent_path().generic_string();
        std::string fixed = relocate_rpath(elf->rpath, prefix, dir_rel, opts.rpaths, &dropped);
        for (const auto& d : dropped)
            report.warnings.push_back(e.rel + ": rpath entry " + d + " is outside the prefix (removed)");
        if (fixed == elf->rpath && elf->kind != RpathKind::runpath) continue;
        if (!patchelf) {
            auto found = find_patchelf(opts);
            if (!found) return unexpected(found.error());
            patchelf = *found;
        }
        if (auto r = run_patchelf(*patchelf, e, fixed, opts.env); !r) return unexpected(r.error());
        report.rpaths_rewritten.push_back(e.rel + ": " + elf->rpath + " -> " + fixed);
    }
    return {};
}

// Step 3 on every regular file (symlinks hold no prefix of their own), as
// the recipe's prefix keys say.
Result<std::vector<PrefixFile>> detect_all(const std::vector<Walked>& entries, const std::string& prefix,
                                           const PostprocessOptions& opts) {
    std::vector<std::string> files;
    for (const auto& e : entries)
        if (e.type != stdfs::file_type::directory && !str::starts_with(e.rel, "info/")) files.push_back(e.rel);
    PrefixScan scan(opts.prefix_rules, files, opts.binary);
    std::vector<PrefixFile> found;
    for (const auto& e : entries) {
        if (e.type != stdfs::file_type::regular || str::starts_with(e.rel, "info/") || scan.skips(e.rel)) continue;
        auto pf = detect_prefix(e.abs, e.rel, prefix, scan.binary());
        if (!pf) return unexpected(pf.error());
        if (*pf) found.push_back(**pf);
    }
    return scan.record(std::move(found));
}

}  // namespace

Result<PostprocessReport> postprocess(const stdfs::path& dir, const PostprocessOptions& opts) {
    PostprocessReport report;
    const std::string prefix = effective_prefix(dir, opts.prefix);

    auto links = fix_symlinks(dir, prefix);
    if (!links) return unexpected(links.error());
    report.symlinks_made_relative = *links;

    auto entries = walk(dir);
    if (!entries) return unexpected(entries.error());

    if (opts.rpath == RpathFix::rewrite)
        if (auto ok = relocate_all(*entries, prefix, opts, report); !ok) return unexpected(ok.error());
    if (opts.linkage) {
        auto lk = check_linkage(dir, *opts.linkage);
        if (!lk) return unexpected(lk.error());
        report.linkage = std::move(*lk);
    }

    for (const auto& e : *entries) {
        if (opts.build_id == BuildIdFix::keep) break;
        if (e.type != stdfs::file_type::regular || str::starts_with(e.rel, "info/")) continue;
        if (auto n = normalize_nvcc_temp_names(e.abs); !n) return unexpected(n.error());
        auto done = rehash_build_id(e.abs);
        if (!done) return unexpected(done.error());
        if (*done) report.build_ids_rehashed.push_back(e.rel);
    }

    auto found = detect_all(*entries, prefix, opts);
    if (!found) return unexpected(found.error());
    report.prefix_files = std::move(*found);
    return report;
}

}  // namespace sf::package
