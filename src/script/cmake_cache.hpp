#pragma once
// A typed CMakeCache.txt editor. Each line is an entry (`KEY:TYPE=VALUE`,
// `KEY=VALUE`, `"KEY:WITH:COLON":TYPE=VALUE`), a comment (`//` help text or
// `#`) or a blank. Edits are tracked per line, so serialize() reproduces every
// untouched line byte-for-byte and diff() shows exactly what changed.
#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/error.hpp"

namespace sf::script {

struct CacheEntry {
    std::string key;
    std::string type;   // BOOL, PATH, FILEPATH, STRING, INTERNAL, STATIC, UNINITIALIZED; empty if untyped
    std::string value;  // unquoted
};

class CMakeCache {
public:
    // Errors name `file:line` for a line CMake itself would reject.
    static Result<CMakeCache> parse(std::string_view text, const std::string& file = "CMakeCache.txt");
    static Result<CMakeCache> load(const std::filesystem::path& p);

    std::optional<CacheEntry> get(std::string_view key) const;  // the last one wins, as in CMake
    std::vector<CacheEntry> entries() const;                     // in file order

    // Changes the entry in place (keeping its position and help text) or adds
    // it: INTERNAL entries at the end, others at the end of the EXTERNAL part.
    void set(std::string_view key, std::string_view type, std::string_view value);

    // Removes the entry, its `//` help lines and its `KEY-ADVANCED` /
    // `KEY-STRINGS` / `KEY-MODIFIED` property entries. Returns whether it existed.
    bool erase(std::string_view key);
    // Erases every entry the predicate selects; returns how many keys went.
    size_t erase_if(const std::function<bool(const CacheEntry&)>& pred);

    std::string serialize() const;
    bool modified() const;

    // `diff -U0` style: `@@ -a,b +c,d @@` hunks of `-old` / `+new` lines, with
    // `--- label` / `+++ label` headers. Empty when nothing changed.
    std::string diff(const std::string& label) const;

private:
    enum class Kind { entry, comment, blank };
    enum class State { same, changed, added, removed };
    struct Line {
        Kind kind = Kind::blank;
        State state = State::same;
        std::string raw;   // current text, without the line break
        std::string orig;  // text as parsed (for the diff)
        std::string eol;   // "\n", "\r\n", or "" on an unterminated last line
        CacheEntry entry;  // for Kind::entry
        bool quoted_key = false;
    };
    std::vector<Line> lines_;

    int find_last(std::string_view key) const;
    void remove_line(size_t i);
    static std::string format(const CacheEntry& e, bool quoted_key);
};

enum class DryRun { yes, no };

// Loads the cache at `p`, applies `edit`, and (unless dry-run, or nothing
// changed) writes it back atomically. Returns the diff (empty if no change).
Result<std::string> edit_cache_file(const std::filesystem::path& p,
                                    const std::function<Result<void>(CMakeCache&)>& edit, DryRun dry_run);

// Parses `KEY:TYPE=VALUE` (or `KEY=VALUE`) as given on a command line.
Result<CacheEntry> parse_assignment(std::string_view text);

}  // namespace sf::script
