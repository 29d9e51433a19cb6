#pragma once
// Pieces of the installer (install.cpp): the package cache and the prefix
// transaction. Internal to src/env/.
#include <filesystem>
#include <functional>
#include <string>
#include <utility>
#include <unordered_set>
#include <vector>

#include "core/error.hpp"
#include "env/install.hpp"
#include "env/solve.hpp"
#include "process/process.hpp"
#include "types/package_record.hpp"

namespace sf::fs {
class Dir;
}

namespace sf::env::detail {

// A package extracted (and checked against its paths.json) in the cache.
struct CachedPackage {
    Candidate candidate;
    stdfs::path dir;  // <pkgs_dir>/<sha256>
    std::string md5, sha256;
    std::uint64_t size = 0;
    types::PathsJson paths;
    // noarch: python: where its site-packages/ goes in this prefix
    // ("lib/python3.12/site-packages"; install_noarch.hpp); empty otherwise.
    std::string site_packages;
    std::string python_minor;  // "3.12": that Python's, with site_packages
};

// Verifies the file's sha256/size against its repodata record (when it has
// one), then extracts it into <pkgs_dir>/<sha256> unless already there. A
// remote candidate is downloaded first (download_package).
Result<CachedPackage> fetch(const Candidate& c, const stdfs::path& pkgs_dir, Network net = Network::online);

// A remote candidate's archive, in <pkgs_dir>/archives/<sha256>/<fn>: kept
// from an earlier run when its bytes still hash to the record's sha256,
// else downloaded under a temp name, checked against the record's size and
// sha256, and only then renamed into place (under <sha256>.lock). A record
// without a sha256 is refused: nothing would check the download. On a
// mismatch nothing of the download stays, and the one-line error names the
// package and its URL (masked).
// Offline, an archive not already there is an error naming it.
Result<stdfs::path> download_package(const Candidate& c, const stdfs::path& pkgs_dir, Network net);

// The archives of the remote candidates among `cs` not already in the
// cache, downloaded N at a time into <pkgs_dir>/archives/<sha256>/<fn>, each
// under its entry's lock and checked as download_package checks one (online
// only; what this skips, download_package still does or refuses). Every
// transfer runs to its end; the first failure is the error, and no failed
// one leaves anything in the cache. `report` (optional) sees files and bytes.
// An archive found intact in one of `conda_dirs` (conda's pkgs_dirs) is
// taken from there instead (offline too); each one downloaded is given to
// the first writable of them (install_conda_cache.cpp).
Result<void> download_packages(const std::vector<const Candidate*>& cs, const stdfs::path& pkgs_dir,
                               const std::vector<stdfs::path>& conda_dirs, Network net, const DownloadReport& report);

// conda's package caches: `given` (InstallOptions::conda_pkgs_dirs), else
// $CONDA_PKGS_DIRS split on ',' as conda splits it (absolute paths and ~/ only).
std::vector<stdfs::path> conda_pkgs_dirs(const std::vector<stdfs::path>& given);
// <dir>/<fn> of the first of `dirs` that holds the record's archive intact,
// linked (else copied) into `entry` as <fn>; false when none does.
bool take_from_conda(const std::vector<stdfs::path>& dirs, const Candidate& c, const fs::Dir& entry);
// `file` (checked) as <dir>/<fn> in the first writable of `dirs`, under
// conda's lock on <fn>.partial; nothing when it is there already.
void give_to_conda(const std::vector<stdfs::path>& dirs, const Candidate& c, const stdfs::path& file);

// Where `rel` lands inside `prefix`, resolved component by component with
// lstat(): a symlink already in the prefix is followed only while it stays
// inside (also the last component when `follow_last`). Returns the path
// relative to the prefix with no symlink left in it (but the last, when not
// followed), or an error when it would lead outside.
// `real_dirs` (optional): resolved directories already seen to be real ones
// (no symlink on the way); the walk starts below the deepest of them and adds
// those it finds. Valid while no directory in the prefix is replaced.
Result<std::string> resolve_in_prefix(const stdfs::path& prefix, const std::string& rel, bool follow_last,
                                      std::unordered_set<std::string>* real_dirs = nullptr);

// A path a package may not install: conda-meta/, names the installer
// reserves (.splitforge*), control characters. `rel` is a safe_member_path().
Result<void> check_package_path(const std::string& dist, const std::string& rel);
// Is the first component of `rel` conda-meta, an installer name
// (.splitforge*) or a temp name the installer makes (fs::temp_name)?
bool is_reserved_top(const std::string& rel);

// A candidate's sha256/md5 are hex of the right length (or empty), and a
// channel candidate's file name is a plain name, before any of them is used.
Result<void> check_candidate(const Candidate& c);
bool is_lower_hex(const std::string& s, std::size_t len);

// Exclusive lock on a prefix for one install (flock on the directory itself,
// created if missing). Waits for another holder, telling `waiting` once. A
// prefix it created and that is still empty is removed on release.
class PrefixLock {
public:
    PrefixLock() = default;
    ~PrefixLock();
    PrefixLock(const PrefixLock&) = delete;
    PrefixLock& operator=(const PrefixLock&) = delete;
    Result<void> acquire(const stdfs::path& prefix, const std::function<void(const std::string&)>& waiting);

private:
    stdfs::path prefix_;
    int fd_ = -1;
    bool created_ = false;
};

// Removes leftovers of killed installs in the package cache (.staging-* and
// .stale-* of processes that are gone).
void sweep_cache(const stdfs::path& pkgs_dir);
// What killed installs left in the prefix (a file written aside, a trash
// directory); the holder of the prefix lock calls it, whether or not it then
// has anything to change (a run killed while writing its last file leaves
// nothing to redo).
void sweep_prefix(const stdfs::path& prefix);

// Changes to a prefix that can be undone. Files that get replaced or removed
// are moved into a trash directory inside the prefix (same file system) and
// moved back by rollback(). The destructor rolls back unless commit() ran.
class Transaction {
public:
    explicit Transaction(stdfs::path prefix);
    ~Transaction();
    Transaction(const Transaction&) = delete;
    Transaction& operator=(const Transaction&) = delete;

    Result<void> begin();  // creates the prefix if needed
    Result<void> make_dirs(const std::string& rel);        // rel and its parents
    Result<void> remove(const std::string& rel);           // moves an existing file aside (not a directory)
    enum class Linked { hardlink, copy };
    Result<Linked> link(const stdfs::path& src, const std::string& rel, LinkMode mode);
    // Written aside, then renamed into place: whole or absent, even under kill -9.
    Result<void> write(const std::string& rel, const std::string& data, unsigned mode);
    Result<void> symlink(const std::string& target, const std::string& rel);
    // A file another program (the Python compiler) is about to write at rel:
    // its directories made as for link(), what is there moved aside, and the
    // file removed again by rollback(). Returns its absolute path.
    Result<stdfs::path> reserve(const std::string& rel);
    void commit();
    void rollback();

private:
    // Resolves rel's parent inside the prefix, creates it, moves aside what is
    // at rel; returns the resolved path (relative to the prefix).
    Result<std::string> prepare(const std::string& rel);
    Result<void> make_resolved_dirs(const std::string& resolved, const std::string& rel);
    // resolve_in_prefix(), refusing a path that reaches conda-meta/ or an
    // installer name through a symlink.
    Result<std::string> resolve(const std::string& rel, bool follow_last) const;
    stdfs::path prefix_, trash_;
    bool created_prefix_ = false, done_ = false;
    std::vector<stdfs::path> created_files_, created_dirs_;
    std::vector<std::pair<stdfs::path, stdfs::path>> moved_;  // original -> trash
    std::vector<stdfs::path> removed_;                         // for empty-dir cleanup
    mutable std::unordered_set<std::string> real_dirs_;       // resolve()'s memo: directories never go mid-transaction
};

}  // namespace sf::env::detail

namespace sf::env::detail {

// conda's run_script (core/link.py) for one package's link script:
// bin/.<name>-<kind>.sh under `dir` (the extracted package for pre-link, the
// prefix otherwise), run as `bash -x <script>` in its own directory with
// PREFIX, PKG_NAME, PKG_VERSION, PKG_BUILDNUM, ROOT_PREFIX (the prefix: we
// have no base env), SOURCE_DIR for pre-link, and PATH led by the script's
// directory, over `base`. A missing script is success. After it,
// <prefix>/.messages.txt is reported and removed, as conda does.
// pre-link and post-link failures are errors (conda's LinkError) naming the
// script, its exit code and the end of its output; a pre-unlink failure is
// a warning. Deliberate difference: post-link runs without sourcing the
// prefix's activation scripts (conda's activate=True); CONDA_PREFIX is set.
struct LinkScript {
    std::string kind;  // "pre-link", "post-link", "pre-unlink"
    std::string name, version;
    std::int64_t build_number = 0;
    stdfs::path dir;  // where bin/.<name>-<kind>.sh lies
};
// Returns the warning of a failed pre-unlink ("" otherwise).
Result<std::string> run_link_script(const LinkScript& s, const stdfs::path& prefix, const process::Env& base,
                                    const std::function<void(const std::string&)>& on_progress);

}  // namespace sf::env::detail
