#pragma once
// Staging archives: `build --staging-only` ends each staging build by
// writing OUT/staging/<staging id>.tar.zst (its work dir: sources, build
// trees, what the staging script installed, plus a manifest), and
// `build --from-staging FILE` restores it and builds the outputs from it
// without running the staging script again, on another machine or CI job.
//
// A build tree records absolute paths (CMakeCache.txt, RPATHs, depfiles),
// so it is restored where it was built: the manifest names that work dir,
// and mtimes are kept, so ninja finds the restored tree up to date and only
// what the outputs' scripts change is rebuilt.
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "core/error.hpp"
#include "engine/engine_detail.hpp"

namespace sf::engine::detail {

inline constexpr const char* kManifestName = "splitforge-staging.json";

struct StagingManifest {
    int format = 1;
    std::string id;                  // staging_id()
    std::string recipe_hash;         // recipe_hash() of the recipe dir
    std::string platform;
    std::string splitforge_version;
    std::map<std::string, std::string> variant;  // the staging keys (staging_keys())
    bool partial = false;            // --time-limit stopped it: `--staging-only --from-staging` resumes
    std::string work_dir;            // absolute: where the trees were built
    std::string host_prefix;         // the padded host prefix the staging script installed into
    std::vector<std::string> build_env, host_env;  // what the staging envs held
    struct Dir {
        std::string staging;         // "" (the top level) or a staging output's name
        std::string base;            // relative to work_dir: staging-LABEL[/N]
        std::vector<std::string> staged_files;
        std::vector<InheritedExport> run_exports;
        bool done = true;            // false: its script was stopped (or not started) in a partial archive
    };
    std::vector<Dir> dirs;
};

// What an env held, for the manifest: its installed dists, then its host tools.
std::vector<std::string> env_records(const env::PreparedEnv& e);

// <name>-<version>-<label>: the archive's file name without .tar.zst.
std::string staging_id(const plan::BuildPlan& p, const plan::StagingBuild& b);

// sha256 over the recipe dir's files (relative names and contents, sorted;
// dot-files and the `leave_out` dirs, the output and work folders, left out).
Result<std::string> recipe_hash(const stdfs::path& recipe_dir, const std::vector<stdfs::path>& leave_out);

// The manifest of a staging build that ran (`sts` by staging name).
Result<StagingManifest> make_manifest(const Ctx& ctx, const plan::BuildPlan& p, const plan::StagingBuild& b,
                                      const std::map<std::string, Staging>& sts);

// Writes <output>/staging/<id>.tar.zst (<id>.partial.tar.zst when
// m.partial, removing the other one): the manifest first, then
// staging-LABEL with its mtimes. Returns its path.
Result<stdfs::path> write_staging_archive(const Ctx& ctx, const StagingManifest& m, const plan::StagingBuild& b);

// Reads and checks an archive's manifest (its first member); an input error
// naming the file when it is none of ours.
Result<StagingManifest> read_staging_manifest(const stdfs::path& file);

// The archive fits this build: the same staging id, recipe, variant,
// platform and splitforge version; else one error naming the difference.
Result<void> check_manifest(const StagingManifest& m, const stdfs::path& file, const plan::BuildPlan& p,
                            const plan::StagingBuild& b, const std::vector<stdfs::path>& leave_out);

// Where `m` is restored: its work dir, which must be a stable dir of this
// recipe (<folder>/.splitforge-work/<name>-<hash>), not yet existing unless
// <folder> is this output folder; or the --work-dir given, which must then
// be the archive's.
Result<void> check_restore_dir(const StagingManifest& m, const stdfs::path& file, const plan::BuildPlan& p,
                               const BuildOptions& opts);

// --from-staging's manifest, read and checked against the plan (which must
// hold one staging build) and the work dir options.
Result<StagingManifest> manifest_to_restore(const BuildOptions& opts, const plan::BuildPlan& p);

// Restores staging-LABEL into ctx.work (which is m.work_dir) and fills
// `sts` as the staging build that wrote it left them (of a partial archive:
// each dir restored, and done or not).
Result<void> restore_staging(Ctx& ctx, const plan::BuildPlan& p, const plan::StagingBuild& b,
                             const stdfs::path& file, const StagingManifest& m, std::map<std::string, Staging>& sts);

// The fields of a Staging that follow from where it lives (no I/O).
void init_staging(const plan::BuildPlan& p, Staging& st, const stdfs::path& base);

// The variant keys the staging script sees (engine.cpp).
std::map<std::string, std::string> staging_keys(const plan::StagingBuild& b);

}  // namespace sf::engine::detail
