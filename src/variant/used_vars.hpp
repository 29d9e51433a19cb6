#pragma once
// Which variant keys a piece of recipe text uses. These are conda-build's own
// regexes (variants.py), run through PyRegex so that our matrix, and therefore
// our hashes, agree with conda-build's exactly: Jinja references, `{% if %}`
// conditions, {% for %} and {% set %} right-hand sides, pin_*() names, bare
// requirement names, selectors, compiler() calls, and
// $VAR / ${VAR} in shell scripts (%VAR% in batch files).
#include <cstdint>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "util/pyregex.hpp"

namespace sf::variant {

enum class Scan { selectors_only, full };

// Whose regexes: conda-build 24.11 (our render's reference, the goldens) or
// conda-build 26.7, which conda-smithy renders with today: `{% set %}`
// needs a word boundary before the key, `{{ key}}` counts, cdt() uses the
// cdt_* keys.
enum class ScanRules { conda_build_24_11, conda_build_26_7 };

class UsedVarScanner {
public:
    explicit UsedVarScanner(std::vector<std::string> keys, ScanRules rules = ScanRules::conda_build_24_11);

    std::set<std::string> in_text(std::string_view text, Scan scan) const;
    std::set<std::string> in_shell_script(std::string_view text) const;
    std::set<std::string> in_batch_script(std::string_view text) const;

    // 1-based line of the first use of `key` in `text`, or 0.
    int first_use_in_text(const std::string& key, std::string_view text, Scan scan) const;
    int first_use_in_script(const std::string& key, std::string_view text) const;

    const std::vector<std::string>& keys() const { return keys_; }

private:
    // A regex compiled on first use: most keys never need most of theirs.
    struct LazyRegex {
        std::string source;
        unsigned flags = PyRegex::none;
        mutable std::unique_ptr<PyRegex> re;
        const PyRegex& operator*() const {
            if (!re) re = std::make_unique<PyRegex>(source, flags);
            return *re;
        }
        const PyRegex* operator->() const { return &**this; }
    };
    struct Alternative {
        LazyRegex re;
        std::vector<std::string> needs;  // literals every match contains
        bool list_item = false;          // the match starts a "  - " line
    };
    struct Patterns {
        std::string key;
        bool rules_26_7 = false;
        std::vector<Alternative> full;  // Scan::full: any alternative matches
        LazyRegex selectors, shell, batch;
        std::string compiler_lang;  // non-empty for <lang>_compiler(_version) keys
        std::string compiler_kind;  // "compiler" or "stdlib" for those keys
        bool cdt = false;           // a cdt_* key under conda-build 26.7 rules
    };
    const Patterns& patterns(const std::string& key) const;
    const Patterns& patterns(std::uint32_t k) const;  // of keys_[k]
    bool line_uses(const std::string& key, std::string_view line, Scan scan) const;
    static bool could_match(std::string_view line, Scan scan);
    // The key's pattern for `scan` matches somewhere in `line`: by the
    // hand-written matchers of key_patterns.hpp on a plain line, else by the
    // regexes themselves.
    static bool matches(const Patterns& p, std::string_view line, Scan scan, bool plain);
    static bool regex_matches(const Patterns& p, std::string_view line, Scan scan);

public:
    // Both ways, for the test that proves them equal.
    bool matches_by_hand(const std::string& key, std::string_view line, Scan scan) const;
    bool matches_by_regex(const std::string& key, std::string_view line, Scan scan) const;

private:

    std::vector<std::string> keys_;
    ScanRules rules_;
    bool identifier_keys_ = true;  // every key is [A-Za-z0-9_]+: scripts need no regex
    mutable std::map<std::string, Patterns> cache_;  // compiled lazily, per scanner
    // The keys (indices into keys_) one line uses, for `scan`.
    const std::vector<std::uint32_t>& line_keys(std::string_view line, Scan scan) const;

    struct Hash {
        using is_transparent = void;
        size_t operator()(std::string_view s) const { return std::hash<std::string_view>{}(s); }
    };
    template <typename T>
    using TextMap = std::unordered_map<std::string, T, Hash, std::equal_to<>>;

    // Candidate keys by the first character of their text (read with '-' as
    // '_', conda-build's prefilter); compiler and cdt keys of the full scan
    // are also candidates by their language or "cdt(", and sit apart.
    std::vector<std::uint32_t> by_first_[256];
    std::vector<std::uint32_t> special_;
    std::vector<char> is_special_;  // per key: in special_
    mutable std::vector<const Patterns*> by_index_;  // per key, once compiled
    std::vector<std::string> special_needle_;  // per special_ entry
    mutable TextMap<std::set<std::string>> memo_[2];             // text -> used, per Scan
    mutable TextMap<std::vector<std::uint32_t>> line_used_[2];  // line -> keys it uses, per Scan
    mutable TextMap<std::set<std::string>> script_memo_[2];     // script -> used (shell, batch)

};

}  // namespace sf::variant
