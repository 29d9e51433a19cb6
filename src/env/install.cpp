#include "env/install.hpp"

#include <sys/stat.h>

#include <algorithm>
#include <cstdlib>
#include <map>
#include <set>

#include "archive/read.hpp"
#include "env/install_detail.hpp"
#include "env/install_noarch.hpp"
#include "env/solve.hpp"
#include "types/identifiers.hpp"
#include "types/json_fields.hpp"
#include "util/fs.hpp"
#include "util/hash.hpp"
#include "util/strings.hpp"

namespace sf::env {
namespace {

using json = nlohmann::json;
using detail::CachedPackage;
using detail::Transaction;
using detail::noarch_target;

bool is_package_file(const std::string& s) {
    return str::ends_with(s, ".conda") || str::ends_with(s, ".tar.bz2");
}

struct Installed {
    std::string dist;       // name-version-build
    std::string meta_file;  // conda-meta/<dist>.json, relative to the prefix
    std::vector<std::string> files;
    nlohmann::json record;  // as conda-meta holds it (python's python_site_packages_path)
};

// One conda-meta record: its package name and what it installed. The name,
// version and build are checked as a repodata record's are: the dist name
// they make is compared and printed.
Result<std::pair<std::string, Installed>> installed_record(const std::string& text, const std::string& file) {
    auto j = types::parse_json_object(text, file);
    if (!j) return Unexpected<Error>{j.error()};
    types::JsonFields f(*j, file);
    std::string parts[3];
    const std::pair<const char*, Result<void> (*)(std::string_view)> fields[] = {
        {"name", types::check_package_name}, {"version", types::check_version}, {"build", types::check_build_string}};
    for (int i = 0; i < 3; ++i) {
        auto s = f.required_string(fields[i].first);
        if (!s) return Unexpected<Error>{s.error()};
        if (auto ok = fields[i].second(*s); !ok)
            return fail(file + ": '" + fields[i].first + "': " + ok.error().message,
                        "the record is damaged; remove it by hand");
        parts[i] = std::move(*s);
    }
    auto files = f.strings("files");
    if (!files) return Unexpected<Error>{files.error()};
    Installed inst;
    inst.dist = parts[0] + "-" + parts[1] + "-" + parts[2];
    inst.files = std::move(*files);
    if (parts[0] == "python") inst.record = std::move(*j);
    return std::pair{parts[0], std::move(inst)};
}

// What conda-meta says is installed, by package name.
Result<std::map<std::string, Installed>> read_installed(const stdfs::path& prefix) {
    std::map<std::string, Installed> out;
    std::error_code ec;
    stdfs::path meta = prefix / "conda-meta";
    if (!stdfs::is_directory(meta, ec)) return out;
    for (const auto& e : stdfs::directory_iterator(meta, ec)) {
        if (e.path().extension() != ".json") continue;
        auto text = fs::read_file(e.path());
        if (!text) return Unexpected<Error>{text.error()};
        auto rec = installed_record(*text, e.path().string());
        if (!rec) return Unexpected<Error>{rec.error()};
        auto& [name, inst] = *rec;
        inst.meta_file = "conda-meta/" + e.path().filename().string();
        out[name] = std::move(inst);
    }
    return out;
}

// Fails before anything is linked when a binary placeholder is too short for
// the prefix, or the package needs handling we do not do.
Result<void> precheck(const CachedPackage& pkg, const std::string& prefix) {
    const auto& rec = pkg.candidate.record;
    for (const auto& e : pkg.paths.paths) {
        auto rel = archive::safe_member_path(e.path);
        if (!rel) return fail(rec.dist_name() + ": info/paths.json: " + rel.error().message, "the package is unsafe; do not install it");
        if (str::starts_with(*rel, "info/")) continue;
        if (auto ok = detail::check_package_path(rec.dist_name(), *rel); !ok) return ok;
        if (e.prefix_placeholder.empty()) continue;
        if (auto ok = check_placeholder(e.prefix_placeholder); !ok)
            return fail(rec.dist_name() + ": " + e.path + ": " + ok.error().message, ok.error().hint);
        if (e.file_mode != types::FileMode::binary) continue;
        if (prefix.size() > e.prefix_placeholder.size())
            return fail(rec.dist_name() + ": " + e.path + ": the prefix '" + prefix + "' (" +
                        std::to_string(prefix.size()) + " characters) is longer than the binary placeholder (" +
                        std::to_string(e.prefix_placeholder.size()) + " characters)",
                        "install into a shorter prefix");
    }
    return {};
}

// Links one package into the prefix and returns its conda-meta record. A
// noarch: python package's files land where its site_packages says, its
// entry points are written, and its .py files go into `py` for compile_pycs.
Result<json> link_package(Transaction& tx, const CachedPackage& pkg, const std::string& prefix, LinkMode mode,
                          const std::string& requested_spec, std::vector<std::string>& py) {
    json paths = json::array();
    json files = json::array();
    bool copied = mode == LinkMode::copy;
    // What the files with a placeholder may add up to once replaced: the
    // package's own extraction budget, so a short placeholder repeated in a
    // small file cannot write gigabytes.
    std::uint64_t budget = archive::extraction_limit(pkg.size);
    for (const auto& e : pkg.paths.paths) {
        auto rel = archive::safe_member_path(e.path);
        if (!rel) return fail(pkg.candidate.file.string() + ": info/paths.json: " + rel.error().message);
        if (str::starts_with(*rel, "info/")) continue;
        stdfs::path src = pkg.dir / *rel;
        // conda's paths_data keeps a noarch: python file's package path; files lists where it went.
        json pd = {{"_path", *rel}, {"path_type", types::to_string(e.type)}};
        if (!pkg.site_packages.empty()) {
            if (str::starts_with(*rel, "site-packages/") && str::ends_with(*rel, ".py") &&
                e.type != types::PathType::directory)
                py.push_back(noarch_target(*rel, pkg.site_packages));
            *rel = noarch_target(*rel, pkg.site_packages);
        }
        switch (e.type) {
            case types::PathType::directory: {
                if (auto ok = tx.make_dirs(*rel); !ok) return Unexpected<Error>{ok.error()};
                break;
            }
            case types::PathType::softlink: {
                std::error_code ec;
                auto target = stdfs::read_symlink(src, ec);
                if (ec) return fail(src.string() + ": cannot read symlink: " + ec.message());
                if (auto ok = tx.symlink(target.string(), *rel); !ok) return Unexpected<Error>{ok.error()};
                break;
            }
            case types::PathType::hardlink: {
                if (!e.prefix_placeholder.empty()) {
                    auto data = fs::read_file(src);
                    if (!data) return Unexpected<Error>{data.error()};
                    std::string out;
                    if (e.file_mode == types::FileMode::binary) {
                        auto r = replace_prefix_binary(*data, e.prefix_placeholder, prefix);
                        if (!r) return fail(pkg.candidate.record.dist_name() + ": " + *rel + ": " + r.error().message);
                        out = std::move(*r);
                    } else {
                        auto r = replace_prefix_text(*data, e.prefix_placeholder, prefix, budget);
                        if (!r)
                            return fail(pkg.candidate.record.dist_name() + ": " + *rel + ": " + r.error().message,
                                        r.error().hint);
                        out = std::move(*r);
                    }
                    budget -= std::min<std::uint64_t>(budget, out.size());
                    struct stat st{};
                    unsigned m = ::stat(src.c_str(), &st) == 0 ? st.st_mode : 0644;
                    if (auto ok = tx.write(*rel, out, m); !ok) return Unexpected<Error>{ok.error()};
                    pd["prefix_placeholder"] = e.prefix_placeholder;
                    pd["file_mode"] = types::to_string(e.file_mode);
                    pd["sha256_in_prefix"] = hash::sha256(out);
                } else {
                    auto how = tx.link(src, *rel, e.no_link ? LinkMode::copy : mode);
                    if (!how) return Unexpected<Error>{how.error()};
                    if (*how == Transaction::Linked::copy && !e.no_link) copied = true;
                }
                break;
            }
        }
        if (e.type != types::PathType::directory) {
            files.push_back(*rel);
            pd["sha256"] = e.sha256.empty() ? json(nullptr) : json(e.sha256);
            pd["size_in_bytes"] = e.size ? json(*e.size) : json(nullptr);
        }
        paths.push_back(std::move(pd));
    }
    if (!pkg.site_packages.empty()) {
        auto eps = detail::noarch_entry_points(pkg);
        if (!eps) return Unexpected<Error>{eps.error()};
        // pythonX.Y of the env, as conda's get_python_short_path.
        std::string python = prefix + "/bin/python" + pkg.python_minor;
        for (const auto& ep : *eps) {
            std::string rel = "bin/" + ep.command, text = types::entry_point_script(ep, python, types::LauncherStyle::conda);
            if (auto ok = tx.write(rel, text, 0755); !ok) return Unexpected<Error>{ok.error()};
            files.push_back(rel);
            paths.push_back({{"_path", rel}, {"path_type", "unix_python_entry_point"}, {"size_in_bytes", text.size()}});
        }
    }

    json rec = pkg.candidate.record.to_json();
    rec["md5"] = pkg.md5;
    rec["sha256"] = pkg.sha256;
    rec["size"] = pkg.size;
    rec["files"] = files;
    rec["paths_data"] = {{"paths_version", 1}, {"paths", paths}};
    rec["extracted_package_dir"] = pkg.dir.string();
    rec["package_tarball_full_path"] = pkg.candidate.file.string();
    // conda's LinkType: 1 hardlink, 3 copy.
    rec["link"] = {{"source", pkg.dir.string()}, {"type", copied ? 3 : 1}};
    rec["requested_spec"] = requested_spec;
    return rec;
}

// conda's clobber warning: a file two packages ship (one already installed
// and staying, or two being linked now), a noarch: python entry point over
// another package's file, or a path already in the prefix that no package
// owns (conda's "path exists but is not owned": a venv's bin/python). The
// one linked last wins, as in conda.
std::vector<std::string> clobbers(const stdfs::path& prefix, const std::map<std::string, Installed>& installed,
                                  const std::vector<const Installed*>& to_remove,
                                  const std::vector<CachedPackage>& to_link) {
    std::map<std::string, std::string> owner;  // path -> dist
    std::set<std::string> going;               // files of the packages replaced now
    for (const auto& [name, inst] : installed) {
        bool removed = std::find(to_remove.begin(), to_remove.end(), &inst) != to_remove.end();
        for (const auto& f : inst.files) {
            if (removed)
                going.insert(f);
            else
                owner[f] = inst.dist;
        }
    }
    std::vector<std::string> out;
    auto claim = [&](const std::string& path, const std::string& dist) {
        auto [it, fresh] = owner.try_emplace(path, dist);
        struct stat st{};
        if (!fresh) {
            out.push_back("clobber: " + path + " is in both " + it->second + " and " + dist + "; " + dist +
                          "'s copy is installed");
            it->second = dist;
        } else if (!going.count(path) && ::lstat((prefix / path).c_str(), &st) == 0 && !S_ISDIR(st.st_mode)) {
            out.push_back("clobber: " + path + " is already in the prefix and belongs to no package; " + dist +
                          "'s copy replaces it");
        }
    };
    for (const auto& pkg : to_link) {
        const std::string dist = pkg.candidate.record.dist_name();
        for (const auto& e : pkg.paths.paths)
            if (e.type != types::PathType::directory)
                claim(pkg.site_packages.empty() ? e.path : noarch_target(e.path, pkg.site_packages), dist);
        if (pkg.site_packages.empty()) continue;
        if (auto eps = detail::noarch_entry_points(pkg))  // a malformed one fails when linked
            for (const auto& ep : *eps) claim("bin/" + ep.command, dist);
    }
    return out;
}

// Where each noarch: python package's files go: the site-packages of the
// Python the prefix will hold. None there is an error naming the package.
Result<void> place_noarch_python(const stdfs::path& prefix, const std::map<std::string, Installed>& installed,
                                 const std::vector<const Installed*>& to_remove, std::vector<CachedPackage>& to_link) {
    std::optional<std::string> installed_python;
    // The python record the prefix will hold: its python_site_packages_path.
    const json none = json::object();
    const json* python_record = &none;
    std::string python_dist;
    if (auto it = installed.find("python"); it != installed.end() &&
                                           std::find(to_remove.begin(), to_remove.end(), &it->second) == to_remove.end())
        installed_python = it->second.dist, python_record = &it->second.record, python_dist = it->second.dist;
    for (const auto& p : to_link)
        if (p.candidate.record.name == "python") python_record = &p.candidate.record.raw, python_dist = p.candidate.record.dist_name();
    std::optional<std::string> minor, site_packages;
    if (python_record->contains("python_site_packages_path")) {  // checked even when nothing needs it
        auto dir = detail::site_packages_dir(*python_record, python_dist, "");
        if (!dir) return Unexpected<Error>{dir.error()};
        site_packages = *dir;
    }
    bool looked = false;
    for (auto& pkg : to_link) {
        if (pkg.candidate.record.noarch != "python") continue;
        if (!looked) minor = detail::target_python(prefix, to_link, installed_python), looked = true;
        if (!minor)
            return fail(pkg.candidate.record.dist_name() + ": a noarch: python package needs a python in the environment",
                        "add python to the packages to install");
        if (!site_packages) {
            auto dir = detail::site_packages_dir(*python_record, python_dist, *minor);
            if (!dir) return Unexpected<Error>{dir.error()};
            site_packages = *dir;
        }
        pkg.python_minor = *minor;
        pkg.site_packages = *site_packages;
    }
    return {};
}

detail::LinkScript link_script(const char* kind, const CachedPackage& pkg, const stdfs::path& dir) {
    const auto& r = pkg.candidate.record;
    return {kind, r.name, r.version.str(), r.build_number, dir};
}

// A removed package's pre-unlink: its version and build number from the dist name.
detail::LinkScript unlink_script(const std::string& name, const std::string& dist, const stdfs::path& prefix) {
    detail::LinkScript s{"pre-unlink", name, "", 0, prefix};
    std::string rest = dist.size() > name.size() + 1 ? dist.substr(name.size() + 1) : "";
    if (auto dash = rest.rfind('-'); dash != std::string::npos) {
        s.version = rest.substr(0, dash);
        const std::string build = rest.substr(dash + 1);
        if (auto us = build.rfind('_'); us != std::string::npos && us + 1 < build.size() &&
                                        build.find_first_not_of("0123456789", us + 1) == std::string::npos)
            s.build_number = std::stoll(build.substr(us + 1));
    }
    return s;
}

void progress(const InstallOptions& o, const std::string& line) {
    if (o.on_progress) o.on_progress(line);
}

// Step 1 of an install: the requests parsed and solved against the
// channels. Nothing is touched: no prefix, no package cache entry.
struct Solved {
    std::vector<Candidate> solution;
    std::map<std::string, std::string> requested;  // package name -> what the user wrote
    std::vector<std::string> warnings;            // records left out of the channels
};

Result<Solved> solve_requests(const std::vector<std::string>& requests, const InstallOptions& opts,
                              const stdfs::path& pkgs_dir) {
    SolveRequest req;
    Solved out;
    for (const auto& r : requests) {
        if (is_package_file(r)) {
            auto c = candidate_from_file(r);
            if (!c) return Unexpected<Error>{c.error()};
            out.requested[c->record.name] = r;
            req.pinned.push_back(std::move(*c));
        } else {
            auto m = types::MatchSpec::parse(r);
            if (!m) return Unexpected<Error>{m.error()};
            out.requested[m->name()] = r;
            req.specs.push_back(std::move(*m));
        }
    }
    ChannelIndex index;
    if (!opts.channels.empty()) {
        // The names a sharded channel's shards are read for (and those they reach).
        std::set<std::string> names;
        for (const auto& m : req.specs) names.insert(m.name());
        for (const auto& c : req.pinned)
            for (const auto& m : c.depends) names.insert(m.name());
        auto idx = load_channels(opts.channels, opts.platform, pkgs_dir, opts.network, names);
        if (!idx) return Unexpected<Error>{idx.error()};
        index = std::move(*idx);
    }
    out.warnings = index.warnings;
    if (opts.on_warning)
        for (const auto& w : index.warnings) opts.on_warning(w);
    req.host_provided = opts.host_provided;
    for (const auto& n : opts.in_prefix) req.host_provided.insert(n);
    std::erase_if(index.packages, [&](const Candidate& c) { return opts.in_prefix.count(c.record.name) > 0; });
    auto solution = solve(index, req);
    if (!solution) return Unexpected<Error>{solution.error()};
    for (const auto& c : *solution)
        if (auto ok = detail::check_candidate(c); !ok) return Unexpected<Error>{ok.error()};
    out.solution = std::move(*solution);
    return out;
}

// --dry-run's answer: what the install would link, keep and remove.
InstallResult planned(const std::vector<Candidate>& solution, const std::map<std::string, Installed>& installed) {
    InstallResult r;
    for (const auto& c : solution) {
        auto it = installed.find(c.record.name);
        if (it != installed.end() && it->second.dist == c.record.dist_name()) {
            r.unchanged.push_back(c.record.dist_name());
            continue;
        }
        if (it != installed.end()) r.removed.push_back(it->second.dist);
        r.linked.push_back(c.record.dist_name());
    }
    return r;
}

}  // namespace

std::vector<std::string> channel_list(const std::vector<stdfs::path>& dirs) {
    return {dirs.begin(), dirs.end()};
}

stdfs::path default_pkgs_dir() {
    if (const char* d = std::getenv("SPLITFORGE_PKGS_DIR"); d && *d) return d;
    if (const char* x = std::getenv("XDG_CACHE_HOME"); x && *x) return stdfs::path(x) / "splitforge/pkgs";
    const char* home = std::getenv("HOME");
    return stdfs::path(home && *home ? home : "/tmp") / ".cache/splitforge/pkgs";
}

Result<InstallResult> install(const stdfs::path& prefix_in, const std::vector<std::string>& requests,
                              const InstallOptions& opts) {
    if (requests.empty()) return fail("nothing to install", "give package specs or package files");
    std::error_code ec;
    stdfs::path prefix = stdfs::absolute(prefix_in, ec).lexically_normal();
    std::string prefix_str = prefix.string();
    while (prefix_str.size() > 1 && prefix_str.back() == '/') prefix_str.pop_back();
    // Prefix replacement writes the prefix into scripts and text files.
    if (auto ok = types::check_prefix(prefix_str); !ok) return Unexpected<Error>{ok.error()};
    prefix = prefix_str;
    stdfs::path pkgs_dir = opts.pkgs_dir.empty() ? default_pkgs_dir() : stdfs::absolute(opts.pkgs_dir, ec);

    // 1. Parse and resolve; nothing is touched yet.
    auto solved = solve_requests(requests, opts, pkgs_dir);
    if (!solved) return Unexpected<Error>{solved.error()};
    const auto& requested = solved->requested;
    const auto* solution = &solved->solution;
    if (opts.dry_run) {
        auto installed = read_installed(prefix);
        if (!installed) return Unexpected<Error>{installed.error()};
        auto r = planned(*solution, *installed);
        r.warnings = solved->warnings;
        return r;
    }
    InstallResult result;
    result.warnings = solved->warnings;

    // Everything from here on sees the prefix alone.
    detail::PrefixLock lock;
    if (auto ok = lock.acquire(prefix, opts.on_progress); !ok) return Unexpected<Error>{ok.error()};
    detail::sweep_cache(pkgs_dir);
    detail::sweep_prefix(prefix);

    auto installed = read_installed(prefix);
    if (!installed) return Unexpected<Error>{installed.error()};

    // 2. Fetch into the cache and check everything that can be checked:
    // the remote archives first, all at once (N at a time).
    {
        std::vector<const Candidate*> wanted;
        for (const auto& c : *solution) {
            auto it = installed->find(c.record.name);
            if (it == installed->end() || it->second.dist != c.record.dist_name()) wanted.push_back(&c);
        }
        const auto conda_dirs = detail::conda_pkgs_dirs(opts.conda_pkgs_dirs);
        if (auto ok = detail::download_packages(wanted, pkgs_dir, conda_dirs, opts.network, opts.on_download); !ok)
            return Unexpected<Error>{ok.error()};
    }
    std::vector<CachedPackage> to_link;
    std::vector<const Installed*> to_remove;
    for (const auto& c : *solution) {
        auto it = installed->find(c.record.name);
        if (it != installed->end() && it->second.dist == c.record.dist_name()) {
            result.unchanged.push_back(c.record.dist_name());
            continue;
        }
        progress(opts, "fetching " + c.record.fn);
        auto pkg = detail::fetch(c, pkgs_dir, opts.network);
        if (!pkg) return Unexpected<Error>{pkg.error()};
        if (auto ok = precheck(*pkg, prefix_str); !ok) return Unexpected<Error>{ok.error()};
        if (it != installed->end()) to_remove.push_back(&it->second);
        to_link.push_back(std::move(*pkg));
    }
    if (to_link.empty()) return result;
    if (auto ok = place_noarch_python(prefix, *installed, to_remove, to_link); !ok) return Unexpected<Error>{ok.error()};

    auto clobbered = clobbers(prefix, *installed, to_remove, to_link);
    if (opts.on_warning)
        for (const auto& w : clobbered) opts.on_warning(w);
    result.warnings.insert(result.warnings.end(), clobbered.begin(), clobbered.end());

    // 3. Change the prefix, undoably.
    Transaction tx(prefix);
    if (auto ok = tx.begin(); !ok) return Unexpected<Error>{ok.error()};
    const process::Env script_env = opts.script_env ? *opts.script_env : process::minimal_env();
    // A package's link script runs only when the caller asked (RunScripts).
    auto run_script = [&](const detail::LinkScript& s) -> Result<std::string> {
        if (opts.run_scripts == RunScripts::no) return std::string();
        return detail::run_link_script(s, prefix, script_env, opts.on_progress);
    };
    for (const auto& [name, inst] : *installed) {  // conda's pre-unlink, before anything goes
        if (std::find(to_remove.begin(), to_remove.end(), &inst) == to_remove.end()) continue;
        auto w = run_script(unlink_script(name, inst.dist, prefix));
        if (!w) return Unexpected<Error>{w.error()};
        if (!w->empty() && opts.on_warning) opts.on_warning(*w);
        if (!w->empty()) result.warnings.push_back(*w);
    }
    for (const Installed* old : to_remove) {
        progress(opts, "removing " + old->dist);
        for (const auto& f : old->files) {
            // Re-checked now: only package paths inside the prefix, never conda-meta/.
            auto rel = archive::safe_member_path(f);
            auto ok = rel ? detail::check_package_path(old->dist, *rel) : Result<void>(Unexpected<Error>{rel.error()});
            if (!ok)
                return fail(prefix_str + "/" + old->meta_file + ": lists '" + f +
                                "', not a file a package may own; refusing to remove it",
                            "the record is damaged; remove the package's conda-meta record by hand");
            if (auto rm = tx.remove(*rel); !rm) return Unexpected<Error>{rm.error()};
        }
        if (auto ok = tx.remove(old->meta_file); !ok) return Unexpected<Error>{ok.error()};
        result.removed.push_back(old->dist);
    }
    std::vector<json> records;
    records.reserve(to_link.size());  // PycJob points into them
    std::vector<detail::PycJob> pyc_jobs;
    for (const auto& pkg : to_link) {
        const auto& rec = pkg.candidate.record;
        progress(opts, "linking " + rec.dist_name());
        auto pre = run_script(link_script("pre-link", pkg, pkg.dir));
        if (!pre) return Unexpected<Error>{pre.error()};
        auto it = requested.find(rec.name);
        std::vector<std::string> py;
        auto meta = link_package(tx, pkg, prefix_str, opts.link_mode, it == requested.end() ? "" : it->second, py);
        if (!meta) return Unexpected<Error>{meta.error()};
        records.push_back(std::move(*meta));
        if (!py.empty()) pyc_jobs.push_back({&records.back()["files"], &records.back()["paths_data"]["paths"], std::move(py)});
    }
    // Compiling runs the env's python, which may be one of the packages.
    if (!pyc_jobs.empty() && opts.run_scripts == RunScripts::yes) {
        progress(opts, "compiling .pyc files");
        std::string minor;
        for (const auto& p : to_link)
            if (!p.python_minor.empty()) minor = p.python_minor;
        auto warned = detail::compile_pycs(tx, prefix, minor, pyc_jobs);
        if (!warned) return Unexpected<Error>{warned.error()};
        for (const auto& w : *warned)
            if (opts.on_warning) opts.on_warning(w);
        result.warnings.insert(result.warnings.end(), warned->begin(), warned->end());
    }
    for (std::size_t i = 0; i < to_link.size(); ++i) {
        const auto& rec = to_link[i].candidate.record;
        // `replace`: a url made from a path that is not UTF-8 must not throw.
        auto text = records[i].dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
        if (auto ok = tx.write("conda-meta/" + rec.dist_name() + ".json", text, 0644); !ok)
            return Unexpected<Error>{ok.error()};
        result.linked.push_back(rec.dist_name());
    }
    if (!stdfs::exists(prefix / "conda-meta/history", ec))
        if (auto ok = tx.write("conda-meta/history", "", 0644); !ok) return Unexpected<Error>{ok.error()};
    // conda's post-link, once every package is linked; a failure undoes the install.
    for (const auto& pkg : to_link) {
        auto post = run_script(link_script("post-link", pkg, prefix));
        if (!post) return Unexpected<Error>{post.error()};
    }
    tx.commit();
    return result;
}

}  // namespace sf::env
