// conda's link scripts (core/link.py run_script), run by the installer.
#include <cstdint>

#include "env/install_detail.hpp"
#include "util/dir_handle.hpp"
#include "util/fs.hpp"
#include "util/strings.hpp"

namespace sf::env::detail {

namespace {

// The last lines of a script's output, for the error (conda prints it all).
std::string tail_of(const std::string& out, std::size_t max_lines = 12) {
    auto lines = str::split(std::string(str::trim(out)), '\n');
    if (lines.size() > max_lines) lines.erase(lines.begin(), lines.end() - static_cast<std::ptrdiff_t>(max_lines));
    return str::join(lines, " | ");
}

// conda's messages(): <prefix>/.messages.txt is shown, then removed.
void report_messages(const stdfs::path& prefix, const std::function<void(const std::string&)>& on_progress) {
    auto dir = fs::Dir::open(prefix);
    if (!dir || dir->kind(".messages.txt") != fs::Kind::file) return;
    if (auto text = dir->read(".messages.txt", std::size_t{1} << 20); text && on_progress)
        for (const auto& l : str::split(std::string(str::trim(*text)), '\n')) on_progress(l);
    (void)dir->remove(".messages.txt");
}

}  // namespace

Result<std::string> run_link_script(const LinkScript& s, const stdfs::path& prefix, const process::Env& base,
                                    const std::function<void(const std::string&)>& on_progress) {
    const std::string file = "." + s.name + "-" + s.kind + ".sh";
    const stdfs::path bin = s.dir / "bin";
    auto bindir = fs::Dir::open(s.dir);
    if (!bindir) return unexpected(bindir.error());
    auto sub = bindir->sub("bin");  // a bin/ that is a symlink is no place to run from
    if (!sub || sub->kind(file) != fs::Kind::file) return std::string();
    process::Command cmd;
    cmd.argv = {"bash", "-x", (bin / file).string()};
    cmd.cwd = bin;
    cmd.env = base;
    cmd.env["PREFIX"] = prefix.string();
    cmd.env["ROOT_PREFIX"] = prefix.string();
    cmd.env["CONDA_PREFIX"] = prefix.string();
    cmd.env["PKG_NAME"] = s.name;
    cmd.env["PKG_VERSION"] = s.version;
    cmd.env["PKG_BUILDNUM"] = std::to_string(s.build_number);
    if (s.kind == "pre-link") cmd.env["SOURCE_DIR"] = s.dir.string();
    auto path = cmd.env.find("PATH");
    cmd.env["PATH"] = bin.string() + (path == cmd.env.end() || path->second.empty() ? "" : ":" + path->second);
    if (on_progress) on_progress("running " + s.kind + " script of " + s.name);
    auto out = process::capture(cmd);
    if (!out) return unexpected(out.error());
    report_messages(prefix, on_progress);
    if (out->exit_code == 0) return std::string();
    const std::string what = s.kind + " script failed for package " + s.name + "-" + s.version + " (" +
                             (bin / file).string() + ", exit code " + std::to_string(out->exit_code) + ")";
    if (s.kind == "pre-unlink") return what + "; consider notifying the package maintainer";
    return fail_runtime(SourceLoc{}, what + ": " + tail_of(out->out + "\n" + out->err), "the package's " + s.kind + " script must succeed");
}

}  // namespace sf::env::detail
