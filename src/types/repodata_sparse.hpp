#pragma once
// repodata.json read sparsely, as rattler's gateway reads it: one pass over
// the text checks it is JSON (as strictly as nlohmann's parser: grammar,
// UTF-8, \u surrogates, depth) and notes where each record is and its
// "name"; a record is parsed into a PackageRecord only when a solve asks
// for its name. conda-forge's linux-64 has ~500k records, and a solve
// needs a few thousand of them.
#include <map>
#include <memory>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "core/error.hpp"
#include "types/package_record.hpp"

namespace sf::types {

class SparseRepoData {
public:
    // `text` is kept (the records are read from it later); `source` names
    // the file in errors. The errors are RepoData::parse's.
    static Result<SparseRepoData> parse(std::string text, std::string_view source);

    const std::string& subdir() const { return subdir_; }
    const std::string& base_url() const { return base_url_; }
    // Every "name" a record is written with.
    std::set<std::string> names() const;
    // The records written with one of `names` (all of them: `all`), in
    // RepoData::parse's order: "packages" then "packages.conda", each by
    // fn; an invalid one is skipped as BadRecord::skip says.
    RepoData records(const std::set<std::string>& names) const;
    RepoData all() const;

private:
    struct Entry {
        std::size_t section;  // 0: "packages", 1: "packages.conda"
        std::string fn;
        std::string_view text;
    };
    RepoData read(const std::vector<const Entry*>& entries) const;

    std::shared_ptr<const std::string> text_;
    std::string source_, subdir_, base_url_;
    std::map<std::string, std::vector<Entry>> by_name_;
    // Records with no string "name": never asked for by name, but reported
    // as RepoData::parse reports them.
    std::vector<Entry> unnamed_;
};

}  // namespace sf::types
