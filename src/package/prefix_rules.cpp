#include "package/prefix_rules.hpp"

#include <fnmatch.h>

#include "util/strings.hpp"

namespace sf::package {

namespace {

bool magic(const std::string& s) { return s.find_first_of("*?[") != std::string::npos; }

// One component against one pattern component (glob's hidden-name rule:
// a wildcard never matches a leading '.').
bool component_matches(const std::string& name, const std::string& pat) {
    if (!magic(pat)) return name == pat;
    return ::fnmatch(pat.c_str(), name.c_str(), FNM_PERIOD) == 0;
}

bool match_parts(const std::vector<std::string>& name, std::size_t i, const std::vector<std::string>& pat,
                 std::size_t j) {
    if (j == pat.size()) return i == name.size();
    if (pat[j] == "**") {
        // Zero components, or one more (not hidden) and try again.
        if (match_parts(name, i, pat, j + 1)) return true;
        return i < name.size() && !str::starts_with(name[i], ".") && match_parts(name, i + 1, pat, j);
    }
    return i < name.size() && component_matches(name[i], pat[j]) && match_parts(name, i + 1, pat, j + 1);
}

std::string strip_dot_slash(std::string p) {
    while (str::starts_with(p, "./")) p = p.substr(2);
    while (p.size() > 1 && p.back() == '/') p.pop_back();
    return p;
}

}  // namespace

bool glob_matches(const std::string& rel, const std::string& pattern) {
    return match_parts(str::split(rel, '/'), 0, str::split(strip_dot_slash(pattern), '/'), 0);
}

std::set<std::string> expand_globs(const std::vector<std::string>& patterns, const std::vector<std::string>& files) {
    std::set<std::string> out;
    for (const auto& raw : patterns) {
        const std::string p = strip_dot_slash(raw);
        if (p.empty()) continue;
        for (const auto& f : files)
            if (f == p || str::starts_with(f, p + "/") || (magic(p) && glob_matches(f, p))) out.insert(f);
    }
    return out;
}

PrefixScan::PrefixScan(const PrefixRules& rules, const std::vector<std::string>& files, BinaryPrefix caller)
    : rules_(rules),
      ignored_(expand_globs(rules.ignore_files, files)),
      text_(expand_globs(rules.text_files, files)),
      binary_files_(expand_globs(rules.binary_files, files)) {
    // get_files_with_prefix: detect_binary_files_with_prefix false and no
    // binary_has_prefix_files: binary files are not looked at.
    const bool off = rules.detect_binary == BinaryPrefix::ignore && rules.binary_files.empty();
    binary_ = caller == BinaryPrefix::ignore || off ? BinaryPrefix::ignore : BinaryPrefix::detect;
}

bool PrefixScan::skips(const std::string& rel) const {
    if (str::ends_with(rel, ".pyc") || str::ends_with(rel, ".pyo")) return true;
    return rules_.ignore == IgnorePrefix::all || ignored_.count(rel) > 0;
}

Result<std::vector<PrefixFile>> PrefixScan::record(std::vector<PrefixFile> found) const {
    // Listed files are looked for among those found, as conda-build removes
    // each from a copy of its list; the leftovers are errors.
    std::set<std::string> text_left = text_, binary_left = binary_files_;
    const bool detect = rules_.detect_binary ? *rules_.detect_binary == BinaryPrefix::detect : binary_files_.empty();
    std::vector<PrefixFile> out;
    for (auto& f : found) {
        const bool is_binary = f.mode == types::FileMode::binary;
        if (binary_files_.count(f.path) || ((binary_files_.empty() || detect) && is_binary)) {
            f.mode = types::FileMode::binary;
            binary_left.erase(f.path);
        } else if (text_.count(f.path) || (text_.empty() && !is_binary)) {
            f.mode = types::FileMode::text;
            text_left.erase(f.path);
        } else {
            continue;  // "Ignoring (not in build/<mode>_has_prefix_files)"
        }
        out.push_back(std::move(f));
    }
    for (const auto& [left, key] : {std::pair{&text_left, "has_prefix_files"}, std::pair{&binary_left, "binary_has_prefix_files"}})
        if (!left->empty())
            return fail(SourceLoc{*left->begin()},
                        "did not detect the hard-coded build prefix in this file, which build/" + std::string(key) +
                            " lists" + (left->size() > 1 ? " (and " + std::to_string(left->size() - 1) + " more)" : ""),
                        "remove it from build/" + std::string(key) + ", or make sure the build writes the prefix into it");
    return out;
}

}  // namespace sf::package
