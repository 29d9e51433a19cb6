// `splitforge cmake-cache`: typed CMakeCache.txt edits (retarget-python, set,
// unset). Each prints the diff it made; --dry-run prints it and writes nothing.
#include <iostream>
#include <memory>

#include "script/cmake_cache.hpp"
#include "script/cmake_cache_python.hpp"
#include "cli/commands.hpp"
#include "core/error.hpp"
#include "util/strings.hpp"

namespace sf::cli {

namespace {

struct CacheOpts {
    std::string file;
    bool dry_run = false;
    std::string python;
    std::vector<std::string> items;  // KEY:TYPE=VALUE for set, KEY for unset
};

int finish(const std::string& file, const std::string& diff, script::DryRun dry) {
    if (diff.empty()) {
        std::cerr << file << ": no change\n";
    } else {
        std::cout << diff;
        if (dry == script::DryRun::yes) std::cerr << file << ": dry run, nothing written\n";
    }
    return 0;
}

}  // namespace

void register_cmake_cache(CLI::App& app, Action& action) {
    auto* sub = app.add_subcommand("cmake-cache", "Edit a CMakeCache.txt (typed, byte-for-byte, with a diff)");
    sub->require_subcommand(1);
    auto opts = std::make_shared<CacheOpts>();

    auto* retarget = sub->add_subcommand(
        "retarget-python", "Point a configured build at another Python, so only Python parts rebuild");
    retarget->add_option("file", opts->file, "path to CMakeCache.txt")->required();
    retarget->add_option("--python", opts->python, "the new interpreter (path, or a name on PATH)")->required();
    retarget->add_flag("--dry-run", opts->dry_run, "print the diff, change nothing");
    retarget->callback([&action, opts] {
        action = [opts] {
            auto dry = opts->dry_run ? script::DryRun::yes : script::DryRun::no;
            script::RetargetReport report;
            auto diff = script::edit_cache_file(
                opts->file,
                [&](script::CMakeCache& c) -> Result<void> {
                    auto r = script::retarget_python(c, opts->python);
                    if (!r) return fail(r.error().message, r.error().hint);
                    report = *r;
                    return {};
                },
                dry);
            std::string d = value_or_throw(std::move(diff), "cmake-cache retarget-python");
            for (const auto& k : report.stale)
                std::cerr << opts->file << ": warning: " << k
                          << " still names the old interpreter; set it with `splitforge cmake-cache set`\n";
            return finish(opts->file, d, dry);
        };
    });

    auto* set = sub->add_subcommand("set", "Set entries: cmake-cache set FILE KEY:TYPE=VALUE...");
    set->add_option("file", opts->file, "path to CMakeCache.txt")->required();
    set->add_option("entries", opts->items, "KEY:TYPE=VALUE (type optional for an existing key)")->required();
    set->add_flag("--dry-run", opts->dry_run, "print the diff, change nothing");
    set->callback([&action, opts] {
        action = [opts] {
            auto dry = opts->dry_run ? script::DryRun::yes : script::DryRun::no;
            auto diff = script::edit_cache_file(
                opts->file,
                [&](script::CMakeCache& c) -> Result<void> {
                    for (const auto& item : opts->items) {
                        auto e = script::parse_assignment(item);
                        if (!e) return fail(e.error().message, e.error().hint);
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
                },
                dry);
            return finish(opts->file, value_or_throw(std::move(diff), "cmake-cache set"), dry);
        };
    });

    auto* unset = sub->add_subcommand("unset", "Remove entries (with their help text): cmake-cache unset FILE KEY...");
    unset->add_option("file", opts->file, "path to CMakeCache.txt")->required();
    unset->add_option("keys", opts->items, "keys to remove")->required();
    unset->add_flag("--dry-run", opts->dry_run, "print the diff, change nothing");
    unset->callback([&action, opts] {
        action = [opts] {
            auto dry = opts->dry_run ? script::DryRun::yes : script::DryRun::no;
            auto diff = script::edit_cache_file(
                opts->file,
                [&](script::CMakeCache& c) -> Result<void> {
                    for (const auto& k : opts->items) c.erase(k);
                    return {};
                },
                dry);
            return finish(opts->file, value_or_throw(std::move(diff), "cmake-cache unset"), dry);
        };
    });

    auto* get = sub->add_subcommand("get", "Print an entry's value: cmake-cache get FILE KEY");
    get->add_option("file", opts->file, "path to CMakeCache.txt")->required();
    get->add_option("keys", opts->items, "key")->required()->expected(1);
    get->callback([&action, opts] {
        action = [opts] {
            auto cache = value_or_throw(script::CMakeCache::load(opts->file));
            auto e = cache.get(opts->items.at(0));
            if (!e) throw Failure(Error{{opts->file}, "'" + opts->items.at(0) + "' is not in the cache", {}});
            std::cout << e->value << "\n";
            return 0;
        };
    });
}

}  // namespace sf::cli
