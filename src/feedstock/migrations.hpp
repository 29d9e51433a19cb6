#pragma once
// CFEP-9 migrations as conda-smithy applies them: which files
// (.ci_support/migrations/ or the pinning's copy), in which order, and
// variant_add, the algebra that lays each one over the merged spec.
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "core/diagnostics.hpp"
#include "core/error.hpp"
#include "types/platform.hpp"
#include "variant/config.hpp"

namespace sf::feedstock {

// A spec as conda-smithy's variant algebra sees it: key -> list of values,
// zip_keys as groups, pin_run_as_build per package.
struct AlgebraSpec {
    std::map<std::string, std::vector<std::string>> lists;
    std::vector<std::vector<std::string>> zip_keys;
    std::map<std::string, variant::PinRunAsBuild> pin_run_as_build;

    static AlgebraSpec from(const variant::SpecSource& s);
    variant::SpecSource to_source(const std::string& name) const;
};

struct Migration {
    std::string file;
    double migrator_ts = -1;
    std::string operation;    // "", key_add, key_remove
    std::vector<std::string> primary_key;
    std::vector<std::string> additional_zip_keys;
    std::map<std::string, std::vector<std::string>> ordering;
    AlgebraSpec spec;         // the migration's keys (__migrator and migrator_ts left out)
};

// The migration files conda-smithy applies for a feedstock: each of
// FEEDSTOCK/.ci_support/migrations/*.yaml, or the pinning's copy
// (PINNING_DIR/share/conda-forge/migrations/) when it has the same name,
// migrator_ts and migration_number and the local one does not say use_local.
// A local file with a timestamp the pinning no longer has is left out (its
// migration is over). Without a pinning copy dir, every local file.
Result<std::vector<std::filesystem::path>> migration_files(const std::filesystem::path& feedstock_dir,
                                                           const std::filesystem::path& pinning_file);

// One line saying where `files` (migration_files' answer) came from:
// "migrations: 2 from F/.ci_support/migrations, 1 from P/share/conda-forge/migrations",
// or "migrations: none (F/.ci_support/migrations holds none)".
std::string migration_sources(const std::vector<std::filesystem::path>& files, const std::filesystem::path& feedstock_dir);

// One migration file read for the selection's platforms and environment
// (selectors applied).
Result<Migration> read_migration(const std::filesystem::path& file, const variant::Selection& sel, Diagnostics* diag);

// variant_add(spec, migration): conda-smithy's variant algebra.
Result<AlgebraSpec> variant_add(const AlgebraSpec& v1, const Migration& m);

// Applies migrations in (migrator_ts, file name) order.
Result<AlgebraSpec> apply_migrations(AlgebraSpec spec, std::vector<Migration> migrations);

// Is `e` a key_add whose key has no values to extend? With no pinning (-e)
// given, that is the likely cause, and the caller says so.
bool key_add_unmet(const Error& e);

}  // namespace sf::feedstock
