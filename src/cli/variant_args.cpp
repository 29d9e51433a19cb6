#include "cli/variant_args.hpp"

#include <algorithm>
#include <filesystem>

#include "core/error.hpp"
#include "env/condarc.hpp"
#include "util/strings.hpp"

namespace sf::cli {

void VariantArgs::add_to(CLI::App* sub, WithPlatform with_platform) {
    sub->add_option("-m,--variant-config-files", files, "Extra variant config file (repeatable)");
    sub->add_option("-e,--exclusive-config-file", exclusive_files,
                    "Global pinning file, e.g. conda-forge's conda_build_config.yaml (repeatable; the recipe's "
                    "own config and -m files override it)");
    sub->add_flag("--strict", strict,
                  "Make what conda-build accepts with a warning (unknown selector names, repeated keys) an error");
    sub->add_flag("--ignore-system-variants", ignore_system_variants,
                  "Do not read ~/conda_build_config.yaml (or .condarc's conda_build/config_file) and "
                  "./conda_build_config.yaml, which conda-build reads first when no -e is given");
    sub->add_option("--variant", overrides, "Override a variant key: KEY=VALUE[,VALUE...] (repeatable)");
    if (with_platform == WithPlatform::yes)
        sub->add_option("--platform,--target-platform", platform,
                        "Target platform (a subdir, not noarch), e.g. osx-arm64; default: the -m files' target_platform, else "
                        "this machine's");
}

namespace {

// conda-build's find_config_files: the user's file (expanded as
// os.path.expanduser does), then the current directory's, those that exist.
std::vector<std::filesystem::path> system_variant_files() {
    namespace stdfs = std::filesystem;
    std::vector<stdfs::path> out;
    std::error_code ec;
    // A .condarc that does not parse is reported by the commands that use it.
    auto rc = env::load_config();
    std::string user = rc ? rc->conda_build_config_file.value : std::string();
    const char* home = std::getenv("HOME");
    if (user.empty() && home && *home) user = std::string(home) + "/conda_build_config.yaml";
    else if (str::starts_with(user, "~/") && home) user = std::string(home) + user.substr(1);
    if (!user.empty() && stdfs::is_regular_file(user, ec)) out.push_back(stdfs::absolute(user, ec));
    if (stdfs::is_regular_file("conda_build_config.yaml", ec)) out.push_back(stdfs::absolute("conda_build_config.yaml", ec));
    return out;
}

}  // namespace

variant::Selection VariantArgs::selection() const {
    auto sel = value_or_throw(variant::select(platform, {files.begin(), files.end()}, overrides,
                                              {exclusive_files.begin(), exclusive_files.end()}));
    sel.strict = strict;
    if (!ignore_system_variants) sel.system_files = system_variant_files();
    return sel;
}

std::vector<std::pair<std::string, VariantArgs>> ci_support_jobs(const std::string& recipe_dir, const VariantArgs& args) {
    namespace stdfs = std::filesystem;
    std::vector<std::pair<std::string, VariantArgs>> jobs;
    if (!args.files.empty() || !args.exclusive_files.empty()) return jobs;
    std::error_code ec;
    const stdfs::path root = stdfs::path(recipe_dir) / "..";
    const stdfs::path ci = root / ".ci_support";
    if (stdfs::is_directory(root / "variants", ec) || !stdfs::is_directory(ci, ec)) return jobs;
    const auto wanted = value_or_throw(variant::select(args.platform, {}, {}, {})).platform;
    std::vector<stdfs::path> files;
    for (const auto& e : stdfs::directory_iterator(ci, ec))
        if (e.path().extension() == ".yaml" && e.is_regular_file(ec)) files.push_back(e.path());
    std::sort(files.begin(), files.end());
    for (const auto& f : files) {
        VariantArgs a = args;
        a.files = {f.string()};
        auto sel = variant::select("", {f}, {}, {});  // the file's own target_platform
        if (!sel || sel->platform != wanted) continue;  // another platform's job, or not a config
        jobs.emplace_back(stdfs::path(".ci_support" / f.filename()).generic_string(), std::move(a));
    }
    return jobs;
}

}  // namespace sf::cli
