#include "feedstock/lint.hpp"

#include <algorithm>
#include <map>
#include <set>
#include <tuple>

#include <boost/regex.hpp>
#include <yaml-cpp/yaml.h>

#include "feedstock/ci_job.hpp"
#include "feedstock/lint_v1.hpp"
#include "feedstock/recipe_extra.hpp"
#include "feedstock/rerender.hpp"
#include "feedstock/smithy.hpp"
#include "recipe/raw_recipe.hpp"
#include "recipe/v1_recipe.hpp"
#include "render/render.hpp"
#include "types/platform.hpp"
#include "util/fs.hpp"
#include "util/strings.hpp"
#include "variant/config.hpp"
#include "variant/selection.hpp"

namespace sf::feedstock {
namespace {

namespace stdfs = std::filesystem;

// As in ECMAScript and Python's re, ^ and $ match only at the ends of the text and . matches no
// line break (Boost's Perl default would match ^ and $ at every line and . at any character).
constexpr boost::regex::flag_type kEcma = boost::regex::no_mod_s | boost::regex::no_mod_m;

// Keys that carry settings for tools around the build, never used by a recipe.
bool is_tooling_key(const std::string& k) {
    // conda-smithy writes these into every .ci_support file for its own CI
    // scripts and conda-build's macOS SDK handling, whatever the recipe uses.
    static const std::set<std::string> keys = {"target_platform", "channel_targets", "channel_sources", "docker_image",
                                               kRunnerKey, kTimeoutKey, "cdt_name", "build_platform",
                                               "pin_run_as_build", "macos_machine", "MACOSX_DEPLOYMENT_TARGET",
                                               "MACOSX_SDK_VERSION", "ignore_build_only_deps", "extend_keys"};
    return keys.count(k) > 0;
}

struct Linter {
    const LintOptions& opts;
    const recipe::RawRecipe& raw;
    std::vector<Finding> out{};
    std::vector<types::Platform> platforms{};       // the known ones of those asked for
    std::vector<render::RenderedRecipe> renders{};  // platforms that rendered
    std::set<std::string> used{};                   // keys used on any platform
    std::map<std::string, std::set<std::string>> used_on{};    // platform -> keys used anywhere
    std::map<std::string, std::set<std::string>> needed_on{};  // platform -> keys the built outputs use
    std::set<std::string> present{};                // keys defined on any platform

    void add(const char* id, SourceLoc loc, Severity s, std::string msg, std::string hint) {
        out.push_back(Finding{std::move(loc), s, std::move(msg), std::move(hint), id});
    }
    // 1-based line of the first line of meta.yaml containing `needle`, or 0.
    int line_of(const std::string& needle, int from = 1) const {
        auto lines = str::split_lines(raw.text);
        for (size_t i = static_cast<size_t>(from - 1); i < lines.size(); ++i)
            if (lines[i].find(needle) != std::string::npos) return static_cast<int>(i) + 1;
        return 0;
    }
    SourceLoc meta(int line) const { return SourceLoc{raw.meta_file, line}; }

    void parse_platforms(const std::vector<std::string>& names) {
        for (const auto& n : names) {
            if (auto p = types::Platform::parse(n))
                platforms.push_back(*p);
            else
                add("bad-platform", meta(0), Severity::error, p.error().message, p.error().hint);
        }
    }

    // A render error or warning as a finding; an unknown selector name
    // becomes "key 'X' is used by the recipe but missing from the variants".
    void report(const Error& e, const std::string& platform, Severity severity, std::set<std::string>& seen) {
        static const boost::regex unknown(R"(unknown name '([A-Za-z_][A-Za-z0-9_]*)')");
        boost::smatch m;
        if (boost::regex_search(e.message, m, unknown)) {
            // A key the CI files define for other platforms only (arm_variant_type):
            // reading it as False elsewhere is what the recipe means.
            if (severity == Severity::warning && keys_in_job_files.count(m[1].str())) return;
            if (!seen.insert(e.loc.str() + m[1].str()).second) return;
            std::string what = "key '" + m[1].str() + "' is used by the recipe but missing from the variants (on " +
                               platform + ")";
            if (severity == Severity::warning) what += "; conda-build reads it as False";
            add("missing-key", e.loc, severity, what, "add `" + m[1].str() + ":` with its values to conda_build_config.yaml");
            return;
        }
        if (!seen.insert(e.loc.str() + e.message).second) return;
        // A key outside conda-build's table (render/v0_schema.hpp): its own
        // check, the same on every platform.
        if (e.message.find("[v0-unknown-key]") != std::string::npos)
            return add("unknown-key", e.loc, severity, e.message, e.hint);
        std::string what = severity == Severity::error ? "cannot render for " + platform + ": " + e.message : e.message;
        add("render", e.loc.file.empty() ? meta(0) : e.loc, severity, what, e.hint);
    }

    // The CI variant files by target platform. A feedstock's recipe renders
    // only with them (conda-smithy's .ci_support files carry the global
    // pinning: cuda_compiler_version, c_stdlib_version, ...), so lint renders
    // each one as a -m file, as the CI job does.
    std::map<std::string, std::vector<stdfs::path>> job_files_by_platform{};

    void collect_job_files(const stdfs::path& dir) {
        auto files = job_files(dir);
        if (!files) return;
        for (const auto& f : *files)
            if (auto job = read_job_file(f)) {
                job_files_by_platform[job->platform].push_back(f);
                for (const auto& [k, v] : job->keys) keys_in_job_files.insert(k);
            }
    }
    std::set<std::string> keys_in_job_files{};

    // Without --platform, lint every platform the CI files name too: a
    // feedstock's ppc64le or win-arm64 files are not stale just because the
    // default list leaves those platforms out.
    void add_job_platforms() {
        for (const auto& [name, files] : job_files_by_platform) {
            auto known = std::any_of(platforms.begin(), platforms.end(), [&](const auto& p) { return p.name() == name; });
            if (known) continue;
            if (auto p = types::Platform::parse(name)) platforms.push_back(*p);
        }
    }

    void render_one(const types::Platform& platform, std::vector<stdfs::path> files, std::set<std::string>& seen) {
        const std::string& p = platform.name();
        variant::Selection sel;
        sel.platform = platform;
        sel.strict = opts.strict;
        sel.variant_files = std::move(files);
        auto rr = render::render(raw, sel);
        if (!rr) {
            report(rr.error(), p, Severity::error, seen);
            return;
        }
        for (const auto& w : rr->warnings) report(w, p, Severity::warning, seen);
        for (const auto& v : rr->variants)
            for (const auto& [k, val] : v.values) present.insert(k);
        if (rr->tops.empty()) return;  // everything skipped here
        used.insert(rr->used_keys.begin(), rr->used_keys.end());
        used_on[p].insert(rr->used_keys.begin(), rr->used_keys.end());
        // What a CI file of this platform must hold: the keys the outputs
        // built here use (conda-smithy's rule), not what skipped ones would.
        auto& needed = needed_on[p];
        for (const auto& o : rr->outputs)
            for (const auto& [k, val] : o.used) needed.insert(k);
        renders.push_back(std::move(*rr));
        if (smithy_files) smithy_keys(platform, sel);
    }

    // conda-smithy wrote the files of a feedstock's .ci_support by its own
    // rules (render::RenderOptions::smithy, each target a native build): a
    // key is used where those rules say so even when conda-build's render
    // reads past it (pyyaml's `python {{ python_min }}.*  # [use_noarch]`
    // keeps python_min in its linux-aarch64 files).
    bool smithy_files = false;
    std::map<std::string, std::set<std::string>> smithy_used_on{};

    void smithy_keys(const types::Platform& platform, variant::Selection sel) {
        sel.build_platform = platform;
        render::RenderOptions smithy;
        smithy.smithy = true;
        auto rr = render::render(raw, sel, nullptr, smithy);
        if (!rr) return;  // conda-build's render decides what lint reports
        auto& keys = smithy_used_on[platform.name()];
        for (const auto& o : rr->outputs)
            for (const auto& [k, val] : o.used) keys.insert(k);
        if (keeps_python_min(raw.text)) keys.insert("python_min");
    }

    void render_all() {
        std::set<std::string> seen_errors;
        for (const auto& platform : platforms) {
            auto it = job_files_by_platform.find(platform.name());
            if (it == job_files_by_platform.end()) {
                // CI files for other platforms only: the feedstock does not build here.
                if (job_files_by_platform.empty() || !opts.platforms.empty()) render_one(platform, {}, seen_errors);
                continue;
            }
            for (const auto& f : it->second) render_one(platform, {f}, seen_errors);
        }
    }

    void declared_keys() {
        auto extra = recipe_extra(raw, "linux-64", {});
        if (!extra || !extra->IsMap() || !(*extra)["splitforge"]) return;
        YAML::Node sf = (*extra)["splitforge"];
        for (const char* list : {"use_keys", "output_keys"}) {
            if (!sf[list] || !sf[list].IsSequence()) continue;
            int from = line_of(std::string(list) + ":");
            for (const auto& k : sf[list]) {
                std::string key = k.as<std::string>();
                if (present.count(key) || renders.empty()) continue;
                add("missing-key", meta(line_of(key, std::max(from, 1))), Severity::error,
                    "key '" + key + "' is used by the recipe (extra/splitforge/" + list + ") but no variant config defines it",
                    "add `" + key + ":` with its values to conda_build_config.yaml");
            }
        }
    }

    void config_file_keys() {
        if (!raw.config_file) return;
        std::map<std::string, int> keys;
        // A key set to "*" alone pins nothing: it is there to hide the global
        // pinning's values (arrow's `libarrow: ["*"]`, kept in the recipes
        // that do not name libarrow too), so "remove it" is no advice for it.
        std::set<std::string> guards, pins;
        for (const auto& platform : platforms) {
            variant::Selection sel;
            sel.platform = platform;
            auto src = variant::read_config_file(*raw.config_file, sel);
            if (!src) continue;  // a broken config already failed rendering
            for (const auto& [k, v] : src->lists) {
                if (!keys.count(k)) keys[k] = src->line_of.count(k) ? src->line_of.at(k) : 0;
                bool star = std::all_of(v.begin(), v.end(), [](const std::string& x) { return str::trim(x) == "*"; });
                (star && !v.empty() ? guards : pins).insert(k);
            }
        }
        for (const auto& k : pins) guards.erase(k);
        std::string file = raw.config_file->lexically_normal().string();
        // A zip partner of a used key (numpy zipped with python) stays: the
        // zip needs it, and removing it means editing zip_keys too.
        std::set<std::string> partners;
        for (const auto& platform : platforms) {
            variant::Selection sel;
            sel.platform = platform;
            auto spec = variant::load(sel, raw.config_file);
            if (!spec) continue;
            for (const auto& g : spec->specials.zip_keys)
                for (const auto& k : g)
                    if (used.count(k)) partners.insert(g.begin(), g.end());
        }
        variant::Specials none;
        for (const auto& [k, line] : keys) {
            if (used.count(k) || partners.count(k) || guards.count(k) || is_tooling_key(k) || none.is_special(k) || renders.empty()) continue;
            add("unused-key", SourceLoc{file, line}, Severity::warning, "variant key '" + k + "' is not used by the recipe on any platform",
                "remove it, or use it in meta.yaml or a build script");
        }
    }

    void variant_files(const stdfs::path& dir) {
        auto files = job_files(dir);
        if (!files) return;
        for (const auto& f : *files) {
            std::string file = f.lexically_normal().string();
            auto job = read_job_file(f);
            if (!job) {
                add("variant-file", job.error().loc, Severity::error, job.error().message, job.error().hint);
                continue;
            }
            std::map<std::string, int> lines;
            auto text = fs::read_file(f);
            auto tl = str::split_lines(text ? *text : std::string());
            for (size_t i = 0; i < tl.size(); ++i)
                if (!tl[i].empty() && tl[i][0] != ' ' && tl[i][0] != '-' && tl[i][0] != '#')
                    lines.emplace(tl[i].substr(0, tl[i].find(':')), static_cast<int>(i) + 1);
            std::set<std::string> zipped;
            for (const auto& g : job->zip_keys) zipped.insert(g.begin(), g.end());
            auto it = used_on.find(job->platform);
            if (it == used_on.end()) {
                add("stale-variant-file", SourceLoc{file, lines["target_platform"]}, Severity::warning,
                    "the recipe builds nothing for " + job->platform,
                    "run `splitforge rerender` to drop stale variant files");
                continue;
            }
            const auto& by_smithy = smithy_used_on[job->platform];
            for (const auto& [k, v] : job->keys)
                if (!it->second.count(k) && !by_smithy.count(k) && !is_tooling_key(k) && !zipped.count(k))
                    add("unused-key", SourceLoc{file, lines[k]}, Severity::warning,
                        "variant key '" + k + "' is not used by the recipe on " + job->platform,
                        "remove it, or run `splitforge rerender`");
            for (const auto& k : needed_on[job->platform])
                if (!job->values(k) && !is_tooling_key(k))
                    add("missing-key", SourceLoc{file}, Severity::error, "key '" + k + "' is used by the recipe but missing from this variant file",
                        "run `splitforge rerender`");
        }
    }

    void patches() {
        std::set<std::string> listed;
        for (const auto& rr : renders)
            for (const auto& top : rr.tops)
                for (const auto& s : top.sources) listed.insert(s.patches.begin(), s.patches.end());
        std::set<stdfs::path> dirs, listed_paths;
        std::error_code ec;
        if (stdfs::is_directory(raw.dir / "patches", ec)) dirs.insert((raw.dir / "patches").lexically_normal());
        for (const auto& p : listed) {
            stdfs::path full = (raw.dir / p).lexically_normal();
            listed_paths.insert(full);
            if (!stdfs::is_regular_file(full, ec))
                add("missing-patch", meta(line_of(stdfs::path(p).filename().string())), Severity::error,
                    "patch '" + p + "' is listed but missing", "add the file, or drop it from source/patches");
            else
                dirs.insert(full.parent_path());
        }
        for (const auto& d : dirs) {
            std::vector<stdfs::path> files;
            for (const auto& e : stdfs::directory_iterator(d, ec))
                if (e.is_regular_file() && (e.path().extension() == ".patch" || e.path().extension() == ".diff"))
                    files.push_back(e.path().lexically_normal());
            std::sort(files.begin(), files.end());
            for (const auto& f : files) {
                if (listed_paths.count(f) || renders.empty()) continue;
                // pyyaml's `- 0002-....patch  # [py<39]`: named, but on a line no linted variant selects.
                std::string rel = f.lexically_relative(raw.dir.lexically_normal()).generic_string();
                bool named = false;  // outside a comment (r-base's `# - 0010-....patch` is no listing)
                for (const auto& line : str::split_lines(raw.text))
                    if (auto at = line.find(rel); at != std::string::npos && line.rfind('#', at) == std::string::npos)
                        named = true;
                if (named)
                    add("unlisted-patch", SourceLoc{f.string()}, Severity::warning,
                        "patch is listed in meta.yaml only on lines that no linted platform or variant selects",
                        "delete it and its line, or fix the line's selector");
                else
                    add("unlisted-patch", SourceLoc{f.string()}, Severity::warning, "patch is not listed in meta.yaml",
                        "add it to source/patches, or delete it");
            }
        }
    }

    void sources() {
        std::set<std::string> seen;
        for (const auto& rr : renders)
            for (const auto& top : rr.tops)
                for (const auto& s : top.sources) {
                    if (s.url.empty() || !seen.insert(s.url).second) continue;
                    int line = line_of(s.url);
                    if (!line) line = line_of("url:");
                    if (!s.sha256.empty()) continue;
                    if (!s.md5.empty())
                        add("md5-only", meta(line), Severity::warning, "source " + s.url + " is checked by md5 only",
                            "use `sha256:` with the download's sha256sum");
                    else
                        add("no-sha256", meta(line), Severity::error, "source " + s.url + " has no sha256",
                            "add `sha256:` with the download's sha256sum");
                }
    }

    void tests() {
        std::map<std::string, bool> tested;  // output -> has a test on some platform
        for (const auto& rr : renders)
            for (const auto& o : rr.outputs) {
                bool t = !o.test.empty();
                if (o.is_staging)
                    for (const char* f : {"run_test.sh", "run_test.py", "run_test.bat", "run_test.pl"})
                        t = t || raw.script_text(f) != nullptr;
                tested[o.name] = tested[o.name] || t;
            }
        for (const auto& [name, t] : tested) {
            if (t) continue;
            static const boost::regex name_line(R"(^\s*-?\s*name:\s*["']?([^"'\s#]+))", kEcma);
            int line = 0;
            auto lines = str::split_lines(raw.text);
            for (size_t i = 0; i < lines.size() && !line; ++i) {
                boost::smatch m;
                if (boost::regex_search(lines[i], m, name_line) && m[1] == name) line = static_cast<int>(i) + 1;
            }
            add("no-test", meta(line), Severity::warning, "output '" + name + "' has no test",
                "add test/commands or test/imports, even a file-exists check");
        }
    }

    void pins() {
        std::set<std::string> names;
        for (const auto& rr : renders) {
            names.insert(rr.name);
            for (const auto& o : rr.outputs) names.insert(o.name);
        }
        static const boost::regex name_line(R"(^\s*-?\s*name:\s*["']?([A-Za-z0-9_.+-]+)["']?\s*(#.*)?$)", kEcma);
        static const boost::regex pin(R"(pin_subpackage\(\s*["']([^"']+)["'])");
        auto lines = str::split_lines(raw.text);
        for (const auto& l : lines) {
            boost::smatch m;
            if (boost::regex_match(l, m, name_line)) names.insert(m[1]);
        }
        for (size_t i = 0; i < lines.size(); ++i) {
            std::string_view t = str::trim(lines[i]);
            if (t.empty() || t[0] == '#') continue;
            for (auto it = boost::sregex_iterator(lines[i].begin(), lines[i].end(), pin); it != boost::sregex_iterator(); ++it) {
                std::string n = (*it)[1];
                if (names.count(n)) continue;
                std::string near = str::closest(n, {names.begin(), names.end()});
                add("pin-subpackage", SourceLoc{raw.meta_file, static_cast<int>(i) + 1, static_cast<int>(it->position(1)) + 1},
                    Severity::error, "pin_subpackage('" + n + "') names no output of this recipe",
                    near.empty() ? "outputs: " + str::join(std::vector<std::string>(names.begin(), names.end()), ", ")
                                 : "did you mean '" + near + "'?");
            }
        }
    }
};

}  // namespace

std::string Finding::str() const {
    std::string s = loc.str();
    s += s.empty() ? "" : ": ";
    s += severity == Severity::error ? "error: " : "warning: ";
    s += message;
    if (!suggestion.empty()) s += " (" + suggestion + ")";
    if (!id.empty()) s += " [" + id + "]";
    return s;
}

const std::vector<std::string>& check_ids() {
    static const std::vector<std::string> ids = {
        "bad-checksum", "bad-platform", "extra", "md5-only", "missing-key", "missing-patch", "no-sha256",
        "no-test", "pin-subpackage", "render", "stale-variant-file", "undefined-variable", "unknown-key",
        "unlisted-patch", "unused-key", "variant-file"};
    return ids;
}

namespace {

// The findings without the silenced checks (--skip, extra/splitforge/lint_skip),
// sorted by place, each once.
Result<std::vector<Finding>> finish(std::vector<Finding> out, const std::vector<std::string>& skip) {
    const auto& known = check_ids();
    for (const auto& id : skip)
        if (std::find(known.begin(), known.end(), id) == known.end()) {
            std::string near = str::closest(id, known);
            return fail("unknown lint check '" + id + "'",
                        (near.empty() ? std::string() : "did you mean '" + near + "'? ") + "checks: " +
                            str::join(known, ", "));
        }
    out.erase(std::remove_if(out.begin(), out.end(),
                             [&](const Finding& f) { return std::find(skip.begin(), skip.end(), f.id) != skip.end(); }),
              out.end());
    std::sort(out.begin(), out.end(), [](const Finding& a, const Finding& b) {
        return std::tie(a.loc.file, a.loc.line, a.loc.col, a.message) < std::tie(b.loc.file, b.loc.line, b.loc.col, b.message);
    });
    out.erase(std::unique(out.begin(), out.end(), [](const Finding& a, const Finding& b) { return a.str() == b.str(); }),
              out.end());
    return out;
}

}  // namespace

Result<std::vector<Finding>> lint(const LintOptions& opts) {
    if (recipe::is_v1_recipe_dir(opts.recipe_dir)) {
        auto found = lint_v1(opts);
        if (!found) return unexpected(found.error());
        std::vector<std::string> skip = opts.skip;
        skip.insert(skip.end(), found->skip.begin(), found->skip.end());
        return finish(std::move(found->findings), skip);
    }
    auto raw = recipe::RawRecipe::load(opts.recipe_dir);
    if (!raw) return unexpected(raw.error());
    Linter l{.opts = opts, .raw = *raw};
    l.parse_platforms(opts.platforms.empty() ? default_platforms() : opts.platforms);
    stdfs::path vdir = opts.variants_dir ? *opts.variants_dir : opts.recipe_dir / ".." / "variants";
    std::error_code ec;
    // A conda-forge feedstock has no variants/: its CI files are the
    // variants, as conda-smithy's linter reads them.
    stdfs::path ci = opts.recipe_dir / ".." / ".ci_support";
    if (!opts.variants_dir && !stdfs::is_directory(vdir, ec) && stdfs::is_directory(ci, ec))
        vdir = ci;
    const bool have_variants = stdfs::is_directory(vdir, ec);
    if (!have_variants && opts.variants_dir)
        return fail(SourceLoc{vdir.string()}, "variants directory does not exist", "run `splitforge rerender` first");
    if (have_variants) l.collect_job_files(vdir);
    stdfs::path vname = vdir.lexically_normal();
    if (vname.filename().empty()) vname = vname.parent_path();  // ".ci_support/"
    l.smithy_files = have_variants && vname.filename() == ".ci_support" && !l.job_files_by_platform.empty();
    if (opts.platforms.empty()) l.add_job_platforms();
    l.render_all();
    l.declared_keys();
    l.config_file_keys();
    if (have_variants) l.variant_files(vdir);
    l.patches();
    l.sources();
    l.tests();
    l.pins();
    if (auto ok = validate_splitforge_extra(*raw); !ok)
        l.add("extra", ok.error().loc, Severity::error, ok.error().message, ok.error().hint);
    std::vector<std::string> skip = opts.skip;
    for (const auto& id : lint_skip_ids(*raw)) skip.push_back(id);
    return finish(std::move(l.out), skip);
}

}  // namespace sf::feedstock
