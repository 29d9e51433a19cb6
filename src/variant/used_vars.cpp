#include "variant/used_vars.hpp"

#include <algorithm>

#include "util/strings.hpp"

namespace sf::variant {
namespace {

std::string re_escape(std::string_view s) {
    std::string out;
    for (char c : s) {
        if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_') out += '\\';
        out += c;
    }
    return out;
}

}  // namespace

UsedVarScanner::UsedVarScanner(std::vector<std::string> keys) : keys_(std::move(keys)) {}

const UsedVarScanner::Patterns& UsedVarScanner::patterns(const std::string& key) const {
    auto it = cache_.find(key);
    if (it != cache_.end()) return it->second;
    Patterns p;
    std::string v = re_escape(key);
    std::string v_req;
    {
        auto parts = str::split(key, '_');
        for (size_t i = 0; i < parts.size(); ++i) v_req += (i ? "[-_]" : "") + re_escape(parts[i]);
    }
    static const PyRegex compiler_key(R"((.*?)_(compiler|stdlib)(_version)?$)");
    std::vector<std::string> full;
    if (auto m = compiler_key.match(key)) {
        p.compiler_lang = m->str(1);
        // used by compiler('<lang>') or stdlib('<lang>'), whichever the key names
        full.push_back(R"(\{\s*)" + m->str(2) + R"(\([\'\"])" + re_escape(p.compiler_lang) +
                       R"([\"\'][^\{]*?\})");
    }
    std::string variant_re = R"(\{\s*(?:pin_[a-z]+\(\s*?['\"])?)" + v + R"([^_0-9a-zA-Z].*?\}\})";
    std::string selector_re = R"(^[^#\[]*?\#?\s\[[^\]]*?(?<![_\w\d]))" + v + R"([=\s<>!\]])";
    std::string conditional_re = R"((?:^|[^\{])\{%\s*(?:el)?if\s*.*)" + v + R"(\s*(?:[^%]*?)?%\})";
    std::string requirement_re = R"(^\s+\-\s+)" + v_req + R"(\s*(?:\s[\[#]|$))";
    full.push_back(variant_re);
    full.push_back(requirement_re);
    full.push_back(conditional_re);
    full.push_back(R"((?:^|[^\{])\{%\s*for\s*.*\s*in\s*)" + v + R"((?![a-zA-Z_0-9])(?:[^%]*?)?%\})");
    full.push_back(R"((?:^|[^\{])\{%\s*set\s*.*\s*=\s*.*)" + v + R"((?![a-zA-Z_0-9])(?:[^%]*?)?%\})");
    p.full = std::make_unique<PyRegex>(str::join(full, "|"));
    p.selectors = std::make_unique<PyRegex>(selector_re);
    p.shell = std::make_unique<PyRegex>(R"((^[^$]*?\$\{?\s*)" + v + R"(\s*[\s|\}]))",
                                        PyRegex::multiline | PyRegex::dotall);
    p.batch = std::make_unique<PyRegex>(R"(\%)" + v + R"(\%)", PyRegex::multiline | PyRegex::dotall);
    return cache_.emplace(key, std::move(p)).first->second;
}

bool UsedVarScanner::line_uses(const std::string& key, std::string_view line, Scan scan) const {
    const Patterns& p = patterns(key);
    bool compiler = !p.compiler_lang.empty() && scan == Scan::full;
    if (compiler) {
        if (line.find(key) == std::string_view::npos && line.find(p.compiler_lang) == std::string_view::npos)
            return false;
    } else {
        std::string dashless = str::replace_all(std::string(line), "-", "_");
        if (dashless.find(key) == std::string::npos) return false;
    }
    return (scan == Scan::full ? *p.full : *p.selectors).matches_anywhere(line);
}

std::set<std::string> UsedVarScanner::in_text(std::string_view text, Scan scan) const {
    auto& memo = memo_[scan == Scan::full ? 1 : 0];
    if (auto it = memo.find(std::string(text)); it != memo.end()) return it->second;
    std::set<std::string> used;
    auto lines = str::split_lines(text);
    std::string dashless = str::replace_all(std::string(text), "-", "_");
    for (const auto& key : keys_) {
        // Cheap pre-check on the whole text before the per-line regexes.
        const Patterns& p = patterns(key);
        bool maybe = dashless.find(key) != std::string::npos ||
                     (!p.compiler_lang.empty() && text.find(p.compiler_lang) != std::string_view::npos);
        if (!maybe) continue;
        for (const auto& line : lines)
            if (line_uses(key, line, scan)) {
                used.insert(key);
                break;
            }
    }
    // A C/C++ compiler brings the macOS SDK along, as in conda-build.
    if ((used.count("c_compiler") || used.count("cxx_compiler")) &&
        std::find(keys_.begin(), keys_.end(), "CONDA_BUILD_SYSROOT") != keys_.end())
        used.insert("CONDA_BUILD_SYSROOT");
    memo.emplace(std::string(text), used);
    return used;
}

int UsedVarScanner::first_use_in_text(const std::string& key, std::string_view text, Scan scan) const {
    auto lines = str::split_lines(text);
    for (size_t i = 0; i < lines.size(); ++i)
        if (line_uses(key, lines[i], scan)) return static_cast<int>(i) + 1;
    return 0;
}

std::set<std::string> UsedVarScanner::in_shell_script(std::string_view text) const {
    std::set<std::string> used;
    for (const auto& key : keys_)
        if (text.find(key) != std::string_view::npos && patterns(key).shell->matches_anywhere(text))
            used.insert(key);
    return used;
}

std::set<std::string> UsedVarScanner::in_batch_script(std::string_view text) const {
    std::set<std::string> used;
    for (const auto& key : keys_)
        if (text.find(key) != std::string_view::npos && patterns(key).batch->matches_anywhere(text))
            used.insert(key);
    return used;
}

int UsedVarScanner::first_use_in_script(const std::string& key, std::string_view text) const {
    auto m = patterns(key).shell->search(text);
    if (!m) m = patterns(key).batch->search(text);
    if (!m) return 0;
    size_t at = text.find(key, m->position);
    if (at == std::string_view::npos) at = m->position;
    return 1 + static_cast<int>(std::count(text.begin(), text.begin() + static_cast<long>(at), '\n'));
}

}  // namespace sf::variant
