#pragma once
// Pieces of the installer (install.cpp): the package cache and the prefix
// transaction. Internal to src/env/.
#include <filesystem>
#include <string>
#include <utility>
#include <vector>

#include "core/error.hpp"
#include "env/install.hpp"
#include "env/solve.hpp"
#include "types/package_record.hpp"

namespace sf::env::detail {

// A package extracted (and checked against its paths.json) in the cache.
struct CachedPackage {
    Candidate candidate;
    stdfs::path dir;  // <pkgs_dir>/<sha256>
    std::string md5, sha256;
    std::uint64_t size = 0;
    types::PathsJson paths;
};

// Verifies the file's sha256/size against its repodata record (when it has
// one), then extracts it into <pkgs_dir>/<sha256> unless already there.
Result<CachedPackage> fetch(const Candidate& c, const stdfs::path& pkgs_dir);

// Changes to a prefix that can be undone. Files that get replaced or removed
// are moved into a trash directory inside the prefix (same file system) and
// moved back by rollback(). The destructor rolls back unless commit() ran.
class Transaction {
public:
    explicit Transaction(stdfs::path prefix);
    ~Transaction();
    Transaction(const Transaction&) = delete;
    Transaction& operator=(const Transaction&) = delete;

    Result<void> begin();                                  // creates the prefix if needed
    Result<void> make_dirs(const std::string& rel);        // rel and its parents
    Result<void> remove(const std::string& rel);           // moves an existing file aside
    enum class Linked { hardlink, copy };
    Result<Linked> link(const stdfs::path& src, const std::string& rel, LinkMode mode);
    Result<void> write(const std::string& rel, const std::string& data, unsigned mode);
    Result<void> symlink(const std::string& target, const std::string& rel);
    void commit();
    void rollback();

private:
    Result<void> prepare(const std::string& rel);  // parents + move aside what is there
    stdfs::path prefix_, trash_;
    bool created_prefix_ = false, done_ = false;
    std::vector<stdfs::path> created_files_, created_dirs_;
    std::vector<std::pair<stdfs::path, stdfs::path>> moved_;  // original -> trash
    std::vector<stdfs::path> removed_;                         // for empty-dir cleanup
};

}  // namespace sf::env::detail
