#include "engine/staging_archive.hpp"

#include <algorithm>
#include <set>

#include <nlohmann/json.hpp>

#include "archive/tree_archive.hpp"
#include "core/rewrap.hpp"
#include "core/version.hpp"
#include "types/identifiers.hpp"
#include "util/dir_handle.hpp"
#include "util/fs.hpp"
#include "util/hash.hpp"
#include "util/strings.hpp"

namespace sf::engine::detail {

namespace {

constexpr std::size_t kMaxManifest = 64 << 20;

nlohmann::json to_json(const StagingManifest& m) {
    nlohmann::json dirs = nlohmann::json::array();
    for (const auto& d : m.dirs) {
        nlohmann::json ex = nlohmann::json::array();
        for (const auto& e : d.run_exports) ex.push_back({{"spec", e.spec}, {"from", e.from}});
        dirs.push_back({{"staging", d.staging}, {"base", d.base}, {"staged_files", d.staged_files}, {"run_exports", ex},
                        {"done", d.done}});
    }
    return {{"format", m.format},          {"id", m.id},
            {"recipe_hash", m.recipe_hash}, {"platform", m.platform},
            {"splitforge_version", m.splitforge_version}, {"variant", m.variant},
            {"partial", m.partial},        {"work_dir", m.work_dir},      {"host_prefix", m.host_prefix},
            {"build_env", m.build_env},    {"host_env", m.host_env},
            {"dirs", dirs}};
}

// A relative path below the work dir, without "..": the manifest is input.
bool safe_relative(const std::string& s) {
    if (s.empty() || s[0] == '/') return false;
    for (const auto& part : stdfs::path(s)) if (part == ".." || part == ".") return false;
    return true;
}

Result<StagingManifest> from_json(const nlohmann::json& j, const std::string& where) {
    StagingManifest m;
    try {
        m.format = j.at("format").get<int>();
        if (m.format != 1)
            return fail(SourceLoc{where}, "staging archive format " + std::to_string(m.format) + ", this splitforge reads 1",
                        "write the archive again with this splitforge");
        m.id = j.at("id").get<std::string>();
        m.recipe_hash = j.at("recipe_hash").get<std::string>();
        m.platform = j.at("platform").get<std::string>();
        m.splitforge_version = j.at("splitforge_version").get<std::string>();
        m.variant = j.at("variant").get<std::map<std::string, std::string>>();
        m.partial = j.value("partial", false);
        m.work_dir = j.at("work_dir").get<std::string>();
        m.host_prefix = j.at("host_prefix").get<std::string>();
        m.build_env = j.at("build_env").get<std::vector<std::string>>();
        m.host_env = j.at("host_env").get<std::vector<std::string>>();
        for (const auto& d : j.at("dirs")) {
            StagingManifest::Dir dir{d.at("staging").get<std::string>(), d.at("base").get<std::string>(),
                                     d.at("staged_files").get<std::vector<std::string>>(), {}, d.value("done", true)};
            for (const auto& e : d.at("run_exports"))
                dir.run_exports.push_back({e.at("spec").get<std::string>(), e.at("from").get<std::string>()});
            if (!safe_relative(dir.base)) return fail(SourceLoc{where}, "dirs: '" + dir.base + "' is not a path below the work dir");
            for (const auto& f : dir.staged_files)
                if (!safe_relative(f)) return fail(SourceLoc{where}, "dirs: staged file '" + f + "' is not a path below the prefix");
            m.dirs.push_back(std::move(dir));
        }
    } catch (const nlohmann::json::exception& e) {
        return fail(SourceLoc{where}, std::string("not a staging manifest: ") + e.what(),
                    "give an archive that `splitforge build --staging-only` wrote");
    }
    const stdfs::path w(m.work_dir);
    if (!w.is_absolute() || w.lexically_normal() != w)
        return fail(SourceLoc{where}, "work_dir '" + m.work_dir + "' is not an absolute, normal path");
    return m;
}

}  // namespace

std::vector<std::string> env_records(const env::PreparedEnv& e) {
    std::vector<std::string> out = e.installed;
    out.insert(out.end(), e.from_host.begin(), e.from_host.end());
    return out;
}

std::string staging_id(const plan::BuildPlan& p, const plan::StagingBuild& b) {
    return p.name + "-" + p.version + "-" + b.label;
}

Result<std::string> recipe_hash(const stdfs::path& recipe_dir, const std::vector<stdfs::path>& leave_out) {
    std::string key;
    for (const auto& rel : recipe_dir_files(recipe_dir, leave_out, true)) {
        auto h = hash::file_sha256(recipe_dir / rel);
        if (!h) return unexpected(h.error());
        key += rel + "\n" + *h + "\n";
    }
    return hash::sha256(key);
}

Result<StagingManifest> make_manifest(const Ctx& ctx, const plan::BuildPlan& p, const plan::StagingBuild& b,
                                      const std::map<std::string, Staging>& sts) {
    StagingManifest m;
    m.id = staging_id(p, b);
    auto h = recipe_hash(stdfs::absolute(p.recipe_dir), {ctx.output, ctx.work});
    if (!h) return unexpected(h.error());
    m.recipe_hash = *h;
    m.platform = p.platform.name();
    m.splitforge_version = kVersion;
    m.variant = staging_keys(b);
    m.work_dir = ctx.work.lexically_normal().string();
    m.host_prefix = ctx.host_prefix.string();
    m.partial = ctx.time_up;
    // Each record once: a resumed build's dirs all carry the archive's lists.
    auto add = [](std::vector<std::string>& to, const std::vector<std::string>& from) {
        for (const auto& r : from)
            if (std::find(to.begin(), to.end(), r) == to.end()) to.push_back(r);
    };
    for (const auto& [name, st] : sts) {
        add(m.build_env, st.build_env);
        add(m.host_env, st.host_env);
        m.dirs.push_back({name, st.src_dir.parent_path().lexically_relative(ctx.work).generic_string(), st.staged_files,
                          st.run_exports, st.done});
    }
    return m;
}

Result<stdfs::path> write_staging_archive(const Ctx& ctx, const StagingManifest& m, const plan::StagingBuild& b) {
    auto root = fs::Dir::open(ctx.output);
    if (!root) return unexpected(root.error());
    auto dir = root->sub("staging", fs::Create::yes);  // never through a symlink
    if (!dir) return unexpected(dir.error());
    const std::string full = m.id + ".tar.zst", partial = m.id + ".partial.tar.zst";
    const stdfs::path file = dir->path() / (m.partial ? partial : full);
    const std::string top = "staging-" + b.label;
    auto tree = archive::tree_with_dirs(ctx.work / top, top);
    if (!tree) return unexpected(tree.error());
    archive::TarEntry manifest;
    manifest.name = kManifestName;
    manifest.content = to_json(m).dump(1) + "\n";
    tree->insert(tree->begin(), std::move(manifest));
    // Level 3: a build tree is large and its archive short-lived.
    archive::Compression c{archive::Codec::zstd, 3, std::max(1, ctx.cpu_count)};
    if (auto ok = archive::write_tree_archive(file, *tree, c); !ok) return unexpected(ok.error());
    // One archive per staging id: its latest state.
    if (auto ok = dir->remove(m.partial ? full : partial); !ok) return unexpected(ok.error());
    return file;
}

Result<StagingManifest> read_staging_manifest(const stdfs::path& file) {
    std::error_code ec;
    if (!stdfs::is_regular_file(file, ec))
        return fail(SourceLoc{file.string()}, "no such staging archive", "give the file `build --staging-only` wrote");
    auto text = archive::read_first_member(file, kManifestName, kMaxManifest);
    if (!text) return unexpected(text.error());
    auto j = nlohmann::json::parse(*text, nullptr, false);
    if (j.is_discarded() || !j.is_object())
        return fail(SourceLoc{file.string()}, std::string(kManifestName) + " is not a JSON object");
    return from_json(j, file.string() + ": " + kManifestName);
}

Result<void> check_manifest(const StagingManifest& m, const stdfs::path& file, const plan::BuildPlan& p,
                            const plan::StagingBuild& b, const std::vector<stdfs::path>& leave_out) {
    const SourceLoc at{file.string()};
    const std::string hint = "build the staging archive again from this recipe and selection";
    if (m.id != staging_id(p, b))
        return fail(at, "the archive holds staging build " + m.id + ", this build's is " + staging_id(p, b), hint);
    if (m.platform != p.platform.name())
        return fail(at, "the archive was built for " + m.platform + ", this build is for " + p.platform.name(), hint);
    if (m.splitforge_version != kVersion)
        return fail(at, "the archive was written by splitforge " + m.splitforge_version + ", this is " + kVersion,
                    "use the same splitforge in every job");
    auto h = recipe_hash(stdfs::absolute(p.recipe_dir), leave_out);
    if (!h) return unexpected(h.error());
    if (m.recipe_hash != *h)
        return fail(at, "the recipe changed since the archive was written (recipe hash " + h->substr(0, 12) +
                            ", the archive's " + m.recipe_hash.substr(0, 12) + ")", hint);
    const auto keys = staging_keys(b);
    for (const auto& [k, v] : keys) {
        auto it = m.variant.find(k);
        if (it == m.variant.end() || it->second != v)
            return fail(at, "variant key " + k + ": this build has '" + v + "', the archive " +
                                (it == m.variant.end() ? "has none" : "'" + it->second + "'"), hint);
    }
    for (const auto& [k, v] : m.variant)
        if (!keys.count(k)) return fail(at, "variant key " + k + ": the archive has '" + v + "', this build has none", hint);
    return {};
}

// The variant keys the staging script sees: those every output of the build
// agrees on (python and output-local keys like with_magma differ).
std::map<std::string, std::string> staging_keys(const plan::StagingBuild& b) {
    std::map<std::string, std::set<std::string>> seen;
    for (const auto& s : b.steps)
        for (const auto& [k, v] : s.output.used) seen[k].insert(v);
    std::map<std::string, std::string> out;
    for (const auto& [k, vals] : seen)
        if (vals.size() == 1 && k != "python") out[k] = *vals.begin();
    if (!seen.count("target_platform"))
        if (const std::string* tp = b.variant.get("target_platform")) out["target_platform"] = *tp;
    return out;
}

Result<void> check_restore_dir(const StagingManifest& m, const stdfs::path& file, const plan::BuildPlan& p,
                               const BuildOptions& opts) {
    const stdfs::path w(m.work_dir);
    const std::string hint = "give --work-dir " + m.work_dir + ", or the --output-folder it was built in: a build tree "
                             "stays where it was built";
    std::error_code ec;
    if (!opts.work_dir.empty()) {
        if (stdfs::absolute(opts.work_dir, ec).lexically_normal() == w) return {};
        return fail(SourceLoc{file.string()},
                    "the archive was built in " + m.work_dir + ", not in --work-dir " + opts.work_dir.string(), hint);
    }
    // A work area's stable dir of this recipe. Outside this output folder's
    // own area it must not exist yet (a fresh CI checkout): the restore
    // replaces the dir, and a manifest must not make it remove another's.
    const std::string stem = w.filename().string(), want = p.name + "-";
    const bool hex = stem.size() == want.size() + 10 && stem.rfind(want, 0) == 0 &&
                     stem.find_first_not_of("0123456789abcdef", want.size()) == std::string::npos;
    if (w.parent_path().filename() != ".splitforge-work" || !hex)
        return fail(SourceLoc{file.string()}, "the archive was built in --work-dir " + m.work_dir, hint);
    const stdfs::path own = (stdfs::absolute(opts.output_folder, ec) / ".splitforge-work").lexically_normal();
    if (w.parent_path() != own && stdfs::symlink_status(w, ec).type() != stdfs::file_type::not_found)
        return fail(SourceLoc{file.string()}, "the archive's work dir " + m.work_dir +
                    " exists and belongs to another output folder, not " + opts.output_folder.string(),
                    "build with --output-folder " + w.parent_path().parent_path().string() + ", or remove that dir");
    if (auto ok = types::check_prefix(m.work_dir); !ok) return rewrap(ok.error(), file.string() + ": the archive's work dir: ");
    return {};
}

Result<StagingManifest> manifest_to_restore(const BuildOptions& opts, const plan::BuildPlan& p) {
    const stdfs::path& file = opts.from_staging;
    auto m = read_staging_manifest(file);
    if (!m) return m;
    if (p.builds.size() != 1) {
        std::vector<std::string> labels;
        for (const auto& b : p.builds) labels.push_back(b.label);
        return fail(SourceLoc{file.string()}, "--from-staging restores one staging build; this selection has " +
                                                  std::to_string(p.builds.size()) + (labels.empty() ? "" : ": " + str::join(labels, ", ")),
                    "narrow the selection with -m or --variant to the archive's (" + m->id + ")");
    }
    if (opts.staging_only == StagingOnly::yes && !m->partial)
        return fail(SourceLoc{file.string()}, "the archive's staging build is complete: --staging-only has nothing to resume",
                    "build its outputs with --from-staging and without --staging-only");
    std::error_code ec;
    const std::vector<stdfs::path> leave_out = {stdfs::absolute(opts.output_folder, ec),
                                                opts.work_dir.empty() ? stdfs::path(m->work_dir) : opts.work_dir};
    if (auto ok = check_manifest(*m, file, p, p.builds.front(), leave_out); !ok) return unexpected(ok.error());
    if (auto ok = check_restore_dir(*m, file, p, opts); !ok) return unexpected(ok.error());
    return m;
}

void init_staging(const plan::BuildPlan& p, Staging& st, const stdfs::path& base) {
    st.recipe_dir = stdfs::absolute(p.recipe_dir);
    st.format = p.format;
    st.src_dir = base / "work";
    st.source_name = p.name + "-" + p.version;
    st.package_name = p.name;
    st.package_version = p.version;
    st.staged = base / "staged";
}

Result<void> restore_staging(Ctx& ctx, const plan::BuildPlan& p, const plan::StagingBuild& b, const stdfs::path& file,
                             const StagingManifest& m, std::map<std::string, Staging>& sts) {
    const std::string top = "staging-" + b.label;
    for (const auto& d : m.dirs)
        if (d.base != top && d.base.rfind(top + "/", 0) != 0)
            return fail(SourceLoc{file.string()}, "dirs: '" + d.base + "' is not inside " + top);
    std::error_code ec;
    stdfs::remove_all(ctx.work / top, ec);
    fs::TempDir tmp(".restore", ctx.work);
    const stdfs::path into = tmp.path() / "tree";
    ctx.progress("==> " + p.name + " [" + b.label + "]: restoring " + file.filename().string() + " into " + ctx.work.string());
    if (auto ok = archive::extract_tree_archive(file, into); !ok) return ok;
    if (!stdfs::is_directory(into / top, ec))
        return fail(SourceLoc{file.string()}, "holds no " + top + "/", "give the archive of this staging build");
    stdfs::rename(into / top, ctx.work / top, ec);
    if (ec) return fail_runtime(SourceLoc{(ctx.work / top).string()}, "cannot move the restored tree into place: " + ec.message());
    for (const auto& d : m.dirs) {
        Staging& st = sts[d.staging];
        st.build = &b;
        init_staging(p, st, ctx.work / d.base);
        st.keys = staging_keys(b);
        st.staged_files = d.staged_files;
        st.run_exports = d.run_exports;
        st.build_env = m.build_env;
        st.host_env = m.host_env;
        st.restored = true;
        st.done = d.done;
    }
    if (!sts.count("")) return fail(SourceLoc{file.string()}, "the manifest names no top-level staging dir");
    return {};
}

}  // namespace sf::engine::detail
