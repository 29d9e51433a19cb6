#include "feedstock/smithy.hpp"

#include <algorithm>
#include <cctype>
#include <cstring>
#include <regex>
#include <set>

#include "feedstock/forge_config.hpp"
#include "feedstock/migrations.hpp"
#include "feedstock/smithy_detail.hpp"
#include "recipe/raw_recipe.hpp"
#include "recipe/v1_recipe.hpp"
#include "types/version.hpp"
#include "util/fs.hpp"
#include "util/hash.hpp"
#include "util/strings.hpp"

namespace sf::feedstock {
namespace {

namespace stdfs = std::filesystem;
using detail::Compat;
using detail::Config;
using detail::KeyCorpus;
using detail::Target;
using detail::Values;
using detail::contains;

// PyYAML (YAML 1.1) implicit types: a string that reads as one is quoted.
bool looks_typed(const std::string& s) {
    static const std::regex typed(
        R"(^(?:yes|Yes|YES|no|No|NO|true|True|TRUE|false|False|FALSE|on|On|ON|off|Off|OFF)$)"
        R"(|^(?:~|null|Null|NULL)$)"
        R"(|^[-+]?(?:0b[0-1_]+|0[0-7_]+|(?:0|[1-9][0-9_]*)|0x[0-9a-fA-F_]+|[1-9][0-9_]*(?::[0-5]?[0-9])+)$)"
        R"(|^(?:[-+]?(?:[0-9][0-9_]*)\.[0-9_]*(?:[eE][-+][0-9]+)?|\.[0-9_]+(?:[eE][-+][0-9]+)?)"
        R"(|[-+]?[0-9][0-9_]*(?::[0-5]?[0-9])+\.[0-9_]*|[-+]?\.(?:inf|Inf|INF)|\.(?:nan|NaN|NAN))$)"
        R"(|^[0-9][0-9][0-9][0-9]-[0-9][0-9]?-[0-9][0-9]?)"
        R"(|^(?:<<|=)$)");
    return std::regex_search(s, typed);
}

bool needs_quotes(const std::string& s) {
    if (s.empty() || looks_typed(s)) return true;
    static const std::string indicators = "-?:,[]{}#&*!|>'\"%@`";
    if (indicators.find(s[0]) != std::string::npos) {
        // "-", "?" and ":" start a plain scalar when a non-space follows.
        bool plain_ok = (s[0] == '-' || s[0] == '?' || s[0] == ':') && s.size() > 1 && s[1] != ' ';
        if (!plain_ok) return true;
    }
    if (s.front() == ' ' || s.back() == ' ' || s.back() == ':') return true;
    if (s.find(": ") != std::string::npos || s.find(" #") != std::string::npos) return true;
    for (unsigned char c : s)
        if (c < 0x20 || c == 0x7f) return true;
    return false;
}

// `ints`: (key, value) pairs written as YAML integers (Target::ints).
std::string dump(const Config& c, bool bools, const std::set<std::pair<std::string, std::string>>& ints) {
    std::map<std::string, std::string> blocks;  // key -> its YAML lines
    for (const auto& [k, v] : c.lists) {
        std::string b = yaml_scalar(k, bools) + ":";
        if (v.empty()) b += " []";
        b += "\n";
        for (const auto& x : v) b += "- " + (ints.count({k, x}) ? x : yaml_scalar(x, bools)) + "\n";
        blocks[k] = b;
    }
    if (c.has_prab) {
        std::string b = "pin_run_as_build:\n";
        for (const auto& [pkg, pin] : c.prab) {
            b += "  " + yaml_scalar(pkg, bools) + ":\n";
            if (!pin.min_pin.empty()) b += "    min_pin: " + yaml_scalar(pin.min_pin, bools) + "\n";
            if (!pin.max_pin.empty()) b += "    max_pin: " + yaml_scalar(pin.max_pin, bools) + "\n";
        }
        blocks["pin_run_as_build"] = b;
    }
    if (c.has_zip) {
        std::string b = "zip_keys:\n";
        for (const auto& g : c.zip_keys) {
            for (size_t i = 0; i < g.size(); ++i) b += (i ? "  - " : "- - ") + yaml_scalar(g[i], bools) + "\n";
        }
        blocks["zip_keys"] = b;
    }
    std::string out;
    for (const auto& [k, b] : blocks) out += b;
    return out;
}

// `skip`: files left out (the recipe's own variant configs, for the corpus
// prune_unused reads).
KeyCorpus key_corpus(const stdfs::path& recipe_dir, const std::string& recipe_text,
                     const std::vector<detail::RecipeConfig>& skip = {}) {
    KeyCorpus c;
    c.text = recipe_text;
    std::error_code ec;
    auto skipped = [&](const stdfs::path& p) {
        return std::any_of(skip.begin(), skip.end(), [&](const detail::RecipeConfig& r) { return r.file == p; });
    };
    for (const auto& e : stdfs::recursive_directory_iterator(recipe_dir, ec)) {
        auto ext = e.path().extension();
        auto name = e.path().filename();
        if (!e.is_regular_file(ec) || name == "meta.yaml" || name == "recipe.yaml" || ext == ".patch" || ext == ".diff" ||
            e.file_size(ec) > (4u << 20) || skipped(e.path()))
            continue;
        if (auto t = fs::read_file(e.path())) c.text += "\n" + *t;
    }
    std::replace(c.text.begin(), c.text.end(), '-', '_');
    c.index();
    c.compilers = c.has("compiler");
    c.stdlib = c.has("stdlib");
    c.cdt = c.has("cdt(");
    return c;
}

}  // namespace

namespace {

std::uint32_t gram(const char* p, unsigned bits) {
    std::uint32_t v;
    std::memcpy(&v, p, 4);
    return (v * 2654435761u) >> (32 - bits);
}

bool word_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }
bool name_char(char c) {
    return !std::isspace(static_cast<unsigned char>(c)) && std::strchr("\"',:;[]{}()#|=<>!~*%$`\\", c) == nullptr;
}

}  // namespace

void detail::KeyCorpus::index() {
    for (size_t i = 0; i + 4 <= text.size(); ++i) {
        std::uint32_t h = gram(text.data() + i, kBits);
        grams[h / 64] |= std::uint64_t{1} << (h % 64);
    }
    for (bool (*in_run)(char) : {word_char, name_char})
        for (size_t i = 0; i < text.size();) {
            if (!in_run(text[i])) {
                ++i;
                continue;
            }
            size_t j = i;
            while (j < text.size() && in_run(text[j])) ++j;
            words.emplace(text, i, j - i);
            i = j;
        }
}

bool detail::KeyCorpus::may_have(const std::string& k) const {
    for (size_t i = 0; i + 4 <= k.size(); ++i) {
        std::uint32_t h = gram(k.data() + i, kBits);
        if (!(grams[h / 64] >> (h % 64) & 1)) return false;
    }
    return true;
}

bool detail::KeyCorpus::find(const std::string& k) const {
    if (words.count(k)) return true;
    if (!may_have(k)) return false;
    // The scans of all keys together read at most 64 MiB plus 16 texts.
    if (scanned > (std::size_t{64} << 20) + 16 * text.size()) return true;
    auto at = text.find(k);
    scanned += at == std::string::npos ? text.size() : at + k.size();
    return at != std::string::npos;
}

Result<Compat> detail::Compat::of(const std::string& version) {
    Compat c;
    if (version.empty()) return c;
    auto v = types::Version::parse(version);
    if (!v) return fail("--smithy-version: '" + version + "' is not a version", "e.g. --smithy-version 3.45.1");
    auto before = [&](const char* x) { return *v < *types::Version::parse(x); };
    c.bools = !before("3.48.0");
    c.keep_cdt = before("3.52.3");
    c.labels_with_gha = !before("3.58.1");
    return c;
}

namespace {

// The file name: conda-smithy's config_name, cut for Windows' path limit.
std::string file_name(const ForgeTarget& t, const Config& c, const std::set<std::string>& top_loop,
                      const std::string& feedstock_name) {
    std::string name = t.name + "_";
    for (const auto& k : top_loop) {
        if (k == "target_platform") continue;
        auto it = c.lists.find(k);
        name += k + (it != c.lists.end() && !it->second.empty() ? it->second.front() : "");
    }
    std::string out;
    for (char ch : name) {
        if (ch == '*' || ch == ' ') ch = '_';
        if (std::string("<>:?*,\"/|\\").find(ch) != std::string::npos) continue;
        out += ch;
    }
    std::string repo = feedstock_name + "-feedstock";
    size_t outer = std::string("C:/Users/runnerx/_work/").size() + 2 * repo.size() + 2 + std::string(".ci_support/").size();
    if (outer + out.size() + 5 > 259) out = out.substr(0, 259 - outer - 15) + "_h" + hash::sha256(out).substr(0, 8);
    return out + ".yaml";
}

// conda-smithy's `^[^#]*compiler\(("cuda"|'cuda')\)`: a line calling
// compiler('cuda') with no '#' before the call.
bool uses_cuda(const std::string& recipe_text) {
    bool cuda = false;
    for (const auto& line : str::split(recipe_text, '\n'))
        for (const char* call : {"compiler(\"cuda\")", "compiler('cuda')"}) {
            auto at = line.find(call);
            cuda |= at != std::string::npos && line.find('#') > at;
        }
    return cuda;
}

// The feedstock's name, for the Windows path limit of file names: the
// recipe's extra/feedstock-name, else the first output's name (by dist()).
std::string name_of_feedstock(const std::string& recipe_text, const std::vector<Target>& targets) {
    std::string feedstock_name;
    if (auto it = recipe_text.find("feedstock-name"); it != std::string::npos) {
        static const std::regex fn(R"(^\s*feedstock-name:\s*['"]?([A-Za-z0-9_.-]+))");
        for (const auto& line : str::split(recipe_text, '\n')) {
            std::smatch m;
            if (std::regex_search(line, m, fn)) feedstock_name = m[1];
        }
    }
    std::string first_dist;
    for (const auto& t : targets)
        if (feedstock_name.empty() && !t.first_dist.empty() && (first_dist.empty() || t.first_dist < first_dist)) {
            first_dist = t.first_dist;
        }
    for (const auto& t : targets)
        if (feedstock_name.empty() && !first_dist.empty() && t.first_dist == first_dist) feedstock_name = t.first_name;
    return feedstock_name;
}

}  // namespace

bool is_feedstock_dir(const stdfs::path& dir) {
    std::error_code ec;
    if (stdfs::exists(dir / "meta.yaml", ec) || stdfs::exists(dir / "recipe.yaml", ec)) return false;
    return stdfs::exists(dir / "recipe" / "meta.yaml", ec) || stdfs::exists(dir / "recipe" / "recipe.yaml", ec);
}

std::string yaml_scalar(const std::string& s, bool bools) {
    if (bools && (s == "true" || s == "false")) return s;  // conda-smithy writes these back as booleans
    if (!needs_quotes(s)) return s;
    std::string q = "'";
    for (char c : s) q += c == '\'' ? std::string("''") : std::string(1, c);
    return q + "'";
}

Result<SmithyResult> smithy_configs(const SmithyOptions& opts) {
    auto forge = read_forge_config(opts.feedstock_dir);
    if (!forge) return unexpected(forge.error());
    // conda_build_tool names the recipe file conda-smithy reads.
    const stdfs::path recipe_dir = opts.feedstock_dir / forge->recipe_dir;
    std::optional<recipe::RawRecipe> raw;
    std::optional<recipe::V1Recipe> v1;
    std::vector<detail::RecipeConfig> configs;
    if (forge->rattler_build()) {
        auto r = recipe::load_v1_recipe(recipe_dir);
        if (!r) return unexpected(r.error());
        v1 = std::move(*r);
        // conda-build's get_package_combined_spec reads the recipe's
        // conda_build_config.yaml; conda-smithy lays variants.yaml over it.
        std::error_code ec;
        if (stdfs::is_regular_file(recipe_dir / "conda_build_config.yaml", ec))
            configs.push_back({recipe_dir / "conda_build_config.yaml", variant::ConfigSyntax::selectors});
        if (stdfs::is_regular_file(recipe_dir / "variants.yaml", ec))
            configs.push_back({recipe_dir / "variants.yaml", variant::ConfigSyntax::conditionals});
    } else {
        auto r = recipe::RawRecipe::load(recipe_dir);
        if (!r) return unexpected(r.error());
        raw = std::move(*r);
        if (raw->config_file) configs.push_back({*raw->config_file});
    }
    auto recipe_text = fs::read_file(recipe_dir / (v1 ? "recipe.yaml" : "meta.yaml"));
    if (!recipe_text) return unexpected(recipe_text.error());
    auto migration_paths =
        migration_files(opts.feedstock_dir, opts.exclusive_files.empty() ? stdfs::path() : opts.exclusive_files.front());
    if (!migration_paths) return unexpected(migration_paths.error());
    SmithyResult res;
    res.migrations = migration_sources(*migration_paths, opts.feedstock_dir);

    auto compat = Compat::of(opts.smithy_version);
    if (!compat) return unexpected(compat.error());
    // Reading keeps every key some file of the recipe names (its own config
    // included, so a zip partner set only there is read); pruning keeps the
    // keys the recipe and its scripts name, and their zip partners: a key
    // only the recipe's config names is never used (conda-build and
    // rattler-build look for used keys in the recipe and its scripts), and a
    // config of 100k keys no longer travels through every later stage.
    KeyCorpus corpus = key_corpus(recipe_dir, *recipe_text);
    KeyCorpus used_corpus = key_corpus(recipe_dir, *recipe_text, configs);
    const detail::TargetInputs in{raw ? &*raw : nullptr, v1 ? &*v1 : nullptr, *recipe_text, configs, *forge,
                                  opts, *migration_paths, corpus, used_corpus, *compat};
    const bool cuda = uses_cuda(*recipe_text);
    // What conda-smithy sets in os.environ for the pinning's selectors: ours
    // travel in each target's Selection, over the process environment.
    recipe::EnvOverlay os_environ = {{"CF_COMPILER_STACK", "comp7"}, {"CF_MIN_PY_VER", "27"},
                                     {"CF_MAX_PY_VER", "37"},         {"CF_MIN_R_VER", "34"},
                                     {"CF_MAX_R_VER", "34"}};
    std::vector<Target> targets;
    for (const auto& ft : forge->targets()) {
        if (!opts.platforms.empty() && !contains(opts.platforms, ft.name) && !contains(opts.platforms, ft.subdir()))
            continue;
        os_environ = detail::target_environ(std::move(os_environ), *forge, ft, cuda);
        auto t = detail::render_target(in, ft, os_environ);
        if (!t) return unexpected(t.error());
        res.targets.push_back(ft.name);
        if (t->configs.empty()) res.empty_targets.push_back(ft.name);
        res.warnings.insert(res.warnings.end(), t->warnings.begin(), t->warnings.end());
        targets.push_back(std::move(*t));
    }
    const std::string feedstock_name = name_of_feedstock(*recipe_text, targets);
    std::set<std::string> seen;
    for (const auto& t : targets)
        for (const auto& c : t.configs) {
            std::string name = file_name(t.t, c, t.top_loop, feedstock_name);
            if (!seen.insert(name).second) continue;
            res.files.push_back({name, t.t.name, dump(c, compat->bools, t.ints)});
        }
    std::sort(res.files.begin(), res.files.end(), [](const auto& a, const auto& b) { return a.name < b.name; });
    // One warning per text.
    std::vector<Error> uniq;
    for (const auto& w : res.warnings)
        if (std::none_of(uniq.begin(), uniq.end(), [&](const Error& x) { return x.str() == w.str(); })) uniq.push_back(w);
    res.warnings = std::move(uniq);
    return res;
}

}  // namespace sf::feedstock
