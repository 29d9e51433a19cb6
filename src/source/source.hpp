#pragma once
// The source stage: fetch a recipe's `source:` into the work dir (SRC_DIR).
//   url + sha256 (md5 optional): file://, a local path, or http(s) via curl;
//     downloads land in a cache keyed by sha256 and are verified on every use;
//     archives (.tar.gz/.tgz/.tar.bz2/.tar.xz/.tar.zst/.tar/.zip) are unpacked
//     safely with libarchive and a single top-level directory is stripped,
//     as conda-build does; any other file is copied as is.
//   path: a local directory, copied.
//   git_url + git_rev: git clone, then checkout of the rev.
// Then `patches` are applied in order (patch -p1, or git apply without patch).
// Every child process goes through the process wrapper with ctx.env.
#include <filesystem>
#include <functional>
#include <string>
#include <vector>

#include "core/error.hpp"
#include "process/process.hpp"
#include "types/recipe_values.hpp"

namespace sf::source {

struct SourceContext {
    std::filesystem::path work_dir;    // SRC_DIR; created when missing
    std::filesystem::path recipe_dir;  // base of relative `path`, `url` and `patches`
    std::filesystem::path cache_dir;   // download cache; empty: default_source_cache(env)
    process::Env env;                  // for git, patch and curl (needs PATH)
    bool offline = false;              // `build --offline`: a remote url only from the cache
    std::function<void(const std::string&)> on_line;  // progress and tool output; may be empty
};

// $SPLITFORGE_CACHE/src, else $HOME/.cache/splitforge/src (from `env`).
std::filesystem::path default_source_cache(const process::Env& env);

enum class CacheUse { hit, miss, none };

struct FetchResult {
    std::filesystem::path dir;  // where the source landed (work_dir / folder)
    CacheUse cache = CacheUse::none;
};

// Fetches one source (and applies its patches) into ctx.work_dir / spec.folder.
Result<FetchResult> fetch_source(const types::Source& spec, const SourceContext& ctx);

// Fetches each source in order; stops at the first error.
Result<std::vector<FetchResult>> fetch_sources(const std::vector<types::Source>& specs, const SourceContext& ctx);

// Downloads (or copies) `spec.url` into the cache, verifying the checksums.
// Without a sha256 a local file is used in place (CacheUse::none).
struct Download {
    std::filesystem::path file;
    CacheUse cache = CacheUse::none;
};
Result<Download> download(const types::Source& spec, const SourceContext& ctx);

enum class StripTop { yes, no };

// Unpacks `archive` into `dest` (created; may already hold other sources).
// Members must be relative without "..", symlinks must stay inside.
Result<void> extract_archive(const std::filesystem::path& archive, const std::filesystem::path& dest, StripTop strip);

// Is this file name one extract_archive() unpacks?
bool is_archive_name(const std::string& name);

// The -p level for a patch, as conda-build's _guess_patch_strip_level: for
// each level up to the fewest leading dirs of its paths, how many of the
// files it names exist under `dir`; the most found wins, the least deep on a
// tie (0 when a path has no dir; 1 when it names no file).
int guess_strip_level(const std::string& patch_text, const std::filesystem::path& dir);

// Applies each patch (as named, relative to ctx.recipe_dir) to `dir` in order.
// Errors read `patches/0002-fix.patch: hunk #1 FAILED at 12 (src/foo.cpp) — ...`.
Result<void> apply_patches(const std::vector<std::string>& patches, const std::filesystem::path& dir,
                           const SourceContext& ctx);

}  // namespace sf::source
