// Applying recipe patches: `patch -pN --batch --forward` (N guessed as
// conda-build's source.py _guess_patch_strip_level does; checked with
// --dry-run first, so a failing patch leaves the tree as it was), or
// `git apply` where patch is missing. Failures are turned into one line that
// names the patch, the hunk and the file.
#include <sys/stat.h>

#include <boost/regex.hpp>

#include <algorithm>
#include <cstdint>
#include <set>

#include "core/rewrap.hpp"
#include "process/git.hpp"
#include "source/source.hpp"
#include "util/fs.hpp"
#include "util/strings.hpp"

namespace sf::source {

namespace stdfs = std::filesystem;

namespace {

constexpr const char* kRefresh = " — refresh the patch against the new source";

// As in ECMAScript and Python's re, ^ and $ match only at the ends of the text and . matches no
// line break (Boost's Perl default would match ^ and $ at every line and . at any character).
constexpr boost::regex::flag_type kEcma = boost::regex::no_mod_s | boost::regex::no_mod_m;

process::Env tool_env(const SourceContext& ctx) {
    process::Env env = ctx.env;
    env["LC_ALL"] = "C";  // we read the tools' messages
    return env;
}

// "src/foo.cpp" from patch's "checking file src/foo.cpp" / "patching file 'a b'".
std::string unquote(std::string s) {
    if (s.size() >= 2 && (s.front() == '\'' || s.front() == '"') && s.back() == s.front()) s = s.substr(1, s.size() - 2);
    return s;
}

// Reads GNU patch's output and says what went wrong, in one line.
std::string explain_patch_failure(const std::string& output) {
    static const boost::regex file_re(R"(^(?:checking|patching) file (.+)$)", kEcma);
    static const boost::regex hunk_re(R"(^Hunk #(\d+) FAILED at (\d+))", kEcma);
    static const boost::regex missing_re(R"(^\|\+\+\+ (?:b/)?(\S+))", kEcma);
    std::string current, first_fail;
    int failed = 0;
    bool cant_find = false, reversed = false;
    std::string missing_file;
    for (const auto& line : str::split_lines(output)) {
        boost::smatch m;
        if (boost::regex_search(line, m, file_re)) {
            current = unquote(m[1]);
        } else if (boost::regex_search(line, m, hunk_re)) {
            if (failed++ == 0)
                first_fail = "hunk #" + m[1].str() + " FAILED at " + m[2].str() + " (" + current + ")";
        } else if (str::starts_with(line, "can't find file to patch")) {
            cant_find = true;
        } else if (cant_find && missing_file.empty() && boost::regex_search(line, m, missing_re)) {
            missing_file = m[1];
        } else if (line.find("Reversed (or previously applied) patch detected") != std::string::npos) {
            reversed = true;
        }
    }
    if (failed > 0) {
        if (failed > 1) first_fail += " and " + std::to_string(failed - 1) + " more hunk(s)";
        return first_fail + kRefresh;
    }
    if (cant_find)
        return "can't find file to patch (" + (missing_file.empty() ? std::string("unknown file") : missing_file) +
               ")" + kRefresh;
    if (reversed) return "patch is already applied or reversed (" + current + ")" + kRefresh;
    for (const auto& line : str::split_lines(output))
        if (!str::trim(line).empty()) return std::string(str::trim(line));
    return "patch failed with no output";
}

// git apply says "error: patch failed: src/foo.cpp:12".
std::string explain_git_apply_failure(const std::string& output) {
    static const boost::regex failed_re(R"(patch failed: (.+):(\d+))", kEcma);
    static const boost::regex missing_re(R"(error: (.+): No such file or directory)", kEcma);
    boost::smatch m;
    if (boost::regex_search(output, m, failed_re))
        return "hunk FAILED at " + m[2].str() + " (" + m[1].str() + ")" + kRefresh;
    if (boost::regex_search(output, m, missing_re)) return "can't find file to patch (" + m[1].str() + ")" + kRefresh;
    for (const auto& line : str::split_lines(output))
        if (!str::trim(line).empty()) return std::string(str::trim(line));
    return "git apply failed with no output";
}

// The paths a patch names (conda-build's _get_patch_file_details:
// r"^(?:---|\+\+\+) ([^\n\t]+)", /dev/null left out).
std::set<std::string> patched_paths(const std::string& text) {
    std::set<std::string> out;
    for (const auto& line : str::split_lines(text)) {
        if (!str::starts_with(line, "--- ") && !str::starts_with(line, "+++ ")) continue;
        std::string p = line.substr(4);
        p = p.substr(0, p.find('\t'));
        if (!p.empty() && p != "/dev/null") out.insert(p);
    }
    return out;
}

Result<process::Outcome> run_tool(std::vector<std::string> argv, const stdfs::path& dir, process::Env env) {
    process::Command cmd;
    cmd.argv = std::move(argv);
    cmd.cwd = dir;
    cmd.env = std::move(env);
    return process::capture(cmd);
}

}  // namespace

int guess_strip_level(const std::string& patch_text, const stdfs::path& dir) {
    auto paths = patched_paths(patch_text);
    if (paths.empty()) return 1;
    size_t maxlevel = SIZE_MAX;
    std::vector<std::vector<std::string>> parts;
    for (const auto& p : paths) {
        parts.push_back(str::split(p, '/'));
        std::erase_if(parts.back(), [](const std::string& s) { return s.empty(); });
        maxlevel = std::min(maxlevel, parts.back().empty() ? 0 : parts.back().size() - 1);
    }
    if (maxlevel == 0) return 0;
    std::vector<int> histo(maxlevel + 1, 0);
    for (const auto& ps : parts)
        for (size_t level = 0; level <= maxlevel; ++level) {
            stdfs::path candidate = dir;
            for (size_t i = level; i < ps.size(); ++i) candidate /= ps[i];
            std::error_code ec;
            if (stdfs::exists(candidate, ec)) ++histo[level];
        }
    // The most files found; on a tie, the least deep level.
    return static_cast<int>(std::max_element(histo.begin(), histo.end()) - histo.begin());
}

Result<void> apply_patches(const std::vector<std::string>& patches, const stdfs::path& dir, const SourceContext& ctx) {
    if (patches.empty()) return {};
    // Every patch must exist before any is applied.
    std::vector<stdfs::path> files;
    for (const auto& name : patches) {
        stdfs::path p(name);
        stdfs::path full = p.is_absolute() ? p : ctx.recipe_dir / p;
        struct stat st{};
        if (::stat(full.c_str(), &st) != 0)
            return fail(SourceLoc{p.string()}, "patch file not found",
                        "looked for " + full.string() + "; fix the recipe's `patches:` list");
        if (!S_ISREG(st.st_mode))  // `patch` would wait on a FIFO forever
            return fail(SourceLoc{p.string()}, "patch file is " + fs::file_kind(st.st_mode) + ", not a regular file",
                        "fix the recipe's `patches:` list");
        files.push_back(stdfs::absolute(full));
    }
    process::Env env = tool_env(ctx);
    auto path_it = env.find("PATH");
    std::string path_var = path_it == env.end() ? "" : path_it->second;
    bool have_patch = process::find_executable("patch", path_var).has_value();
    if (!have_patch && !process::find_executable("git", path_var))
        return fail_runtime({}, "cannot apply patches: neither 'patch' nor 'git' is on PATH", "PATH=" + path_var);

    // A patch that is there but does not apply fails the job (exit 1), as a
    // failed script does; one that is missing is the recipe's error (2).
    for (size_t i = 0; i < files.size(); ++i) {
        const std::string& label = patches[i];
        std::string level = "-p1";
        if (auto text = fs::read_file(files[i])) level = "-p" + std::to_string(guess_strip_level(*text, dir));
        if (ctx.on_line) ctx.on_line("applying " + label + " (" + level + ")");
        if (have_patch) {
            std::vector<std::string> base = {"patch", level, "--batch", "--forward", "--no-backup-if-mismatch",
                                              "-i", files[i].string()};
            auto check = base;
            check.push_back("--dry-run");
            auto dry = run_tool(check, dir, env);
            if (!dry) return rewrap(dry.error(), SourceLoc{label});
            if (dry->exit_code != 0)
                return fail_runtime(SourceLoc{label}, explain_patch_failure(dry->out + dry->err));
            auto real = run_tool(base, dir, env);
            if (!real) return rewrap(real.error(), SourceLoc{label});
            if (real->exit_code != 0) return fail_runtime(SourceLoc{label}, explain_patch_failure(real->out + real->err));
        } else {
            // Outside any repository: one above `dir` would re-root the paths,
            // and a source's own .git would bring its config.
            process::GitCall call{{"apply", level, "--whitespace=nowarn"}, {files[i].string()}};
            call.repository = process::Repository::none;
            call.cwd = dir;
            call.env = env;
            auto check = call;
            check.args.push_back("--check");
            auto dry = process::git(check);
            if (!dry) return rewrap(dry.error(), SourceLoc{label});
            if (dry->exit_code != 0) return fail_runtime(SourceLoc{label}, explain_git_apply_failure(dry->out + dry->err));
            auto real = process::git(call);
            if (!real) return rewrap(real.error(), SourceLoc{label});
            if (real->exit_code != 0) return fail_runtime(SourceLoc{label}, explain_git_apply_failure(real->out + real->err));
        }
    }
    return {};
}

}  // namespace sf::source
