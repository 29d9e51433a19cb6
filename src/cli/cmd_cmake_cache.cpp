// `splitforge cmake-cache`: typed CMakeCache.txt edits (retarget-python, set,
// unset). Each prints the diff it made; --dry-run prints it and writes nothing.
#include <functional>
#include <iostream>
#include <memory>

#include "cli/commands.hpp"
#include "core/error.hpp"
#include "core/rewrap.hpp"
#include "script/cmake_cache.hpp"
#include "script/cmake_cache_python.hpp"

namespace sf::cli {

namespace {

struct CacheOpts {
    std::string file;
    bool dry_run = false;
    std::string python;
    std::vector<std::string> items;  // KEY:TYPE=VALUE for set, KEY for unset
};

using Change = std::function<Result<void>(script::CMakeCache&)>;

// Applies `change` to the file (or, with --dry-run, only shows it), prints
// the diff and returns the exit code. `after` runs once the edit is done,
// before the diff is printed (for warnings).
int edit(const Console& console, const CacheOpts& o, const std::string& what, const Change& change,
         const std::function<void()>& after = {}) {
    auto dry = o.dry_run ? script::DryRun::yes : script::DryRun::no;
    std::string diff = value_or_throw(script::edit_cache_file(o.file, change, dry), "cmake-cache " + what);
    if (after) after();
    if (console.json) {
        console.print_json({{"file", o.file}, {"changed", !diff.empty()}, {"dry_run", o.dry_run}, {"diff", diff}});
        return 0;
    }
    if (diff.empty()) {
        std::cerr << o.file << ": no change\n";
    } else {
        std::cout << diff;
        if (dry == script::DryRun::yes) std::cerr << o.file << ": dry run, nothing written\n";
    }
    return 0;
}

// FILE and --dry-run, which every editing subcommand takes.
CLI::App* editing_subcommand(CLI::App* parent, const char* name, const char* help, CacheOpts& o, Cli& cli) {
    auto* s = parent->add_subcommand(name, help);
    add_json_flag(s, cli);
    s->add_option("file", o.file, "path to CMakeCache.txt")->required();
    s->add_flag("--dry-run", o.dry_run, "print the diff, change nothing");
    return s;
}

}  // namespace

void register_cmake_cache(CLI::App& app, Cli& cli) {
    auto* sub = app.add_subcommand("cmake-cache", "Edit a CMakeCache.txt (typed, byte-for-byte, with a diff)");
    sub->require_subcommand(1);
    auto opts = std::make_shared<CacheOpts>();

    auto* retarget = editing_subcommand(
        sub, "retarget-python", "Point a configured build at another Python, so only Python parts rebuild", *opts, cli);
    retarget->add_option("--python", opts->python, "the new interpreter (path, or a name on PATH)")->required();
    retarget->callback([&cli, opts] {
        cli.action = [&cli, opts] {
            script::RetargetReport report;
            auto change = [&](script::CMakeCache& c) -> Result<void> {
                auto r = script::retarget_python(c, opts->python);
                if (!r) return rewrap(r.error(), SourceLoc{});
                report = *r;
                return {};
            };
            return edit(cli.console, *opts, "retarget-python", change, [&] {
                for (const auto& k : report.stale)
                        cli.console.warning(opts->file + ": " + k +
                                        " still names the old interpreter; set it with `splitforge cmake-cache set`");
            });
        };
    });

    auto* set = editing_subcommand(sub, "set", "Set entries: cmake-cache set FILE KEY:TYPE=VALUE...", *opts, cli);
    set->add_option("entries", opts->items, "KEY:TYPE=VALUE (type optional for an existing key)")->required();
    set->callback([&cli, opts] {
        cli.action = [&cli, opts] {
            return edit(cli.console, *opts, "set", [&](script::CMakeCache& c) -> Result<void> {
                for (const auto& item : opts->items) {
                    auto e = script::parse_assignment(item);
                    if (!e) return rewrap(e.error(), SourceLoc{});
                    if (e->type.empty()) {
                        auto cur = c.get(e->key);
                        if (!cur)
                            return fail("'" + e->key + "' is not in " + opts->file,
                                        "give a type for a new entry, e.g. " + e->key + ":STRING=" + e->value);
                        e->type = cur->type;
                    }
                    c.set(e->key, e->type, e->value);
                }
                return {};
            });
        };
    });

    auto* unset = editing_subcommand(
        sub, "unset", "Remove entries (with their help text): cmake-cache unset FILE KEY...", *opts, cli);
    unset->add_option("keys", opts->items, "keys to remove")->required();
    unset->callback([&cli, opts] {
        cli.action = [&cli, opts] {
            return edit(cli.console, *opts, "unset", [&](script::CMakeCache& c) -> Result<void> {
                for (const auto& k : opts->items) c.erase(k);
                return {};
            });
        };
    });

    auto* get = sub->add_subcommand("get", "Print an entry's value: cmake-cache get FILE KEY");
    get->add_option("file", opts->file, "path to CMakeCache.txt")->required();
    get->add_option("keys", opts->items, "key")->required()->expected(1);
    add_json_flag(get, cli);
    get->callback([&cli, opts] {
        cli.action = [&cli, opts] {
            auto cache = value_or_throw(script::CMakeCache::load(opts->file));
            auto e = cache.get(opts->items.at(0));
            if (!e) throw Failure(Error{{opts->file}, "'" + opts->items.at(0) + "' is not in the cache", {}});
            if (cli.console.json)
                cli.console.print_json({{"file", opts->file}, {"key", opts->items.at(0)}, {"type", e->type}, {"value", e->value}});
            else
                std::cout << e->value << "\n";
            return 0;
        };
    });
}

}  // namespace sf::cli
