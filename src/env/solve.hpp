#pragma once
// Resolving match specs against channels.
//
// A channel (a directory or a URL: env/channel.hpp) has <subdir>/repodata.json; we read the target
// platform's subdir and noarch/. The resolver is a depth-first backtracking
// search (solve_search.cpp, iterative; the order in solve_rank.cpp): specs
// are taken in order, each picks the best candidate that matches
// in the order conda's solvers use (no track_features first, highest version,
// build number, then among tied builds the one whose dependencies reach the
// highest versions, then newest timestamp, then the one that adds the fewest
// packages; never the build string's text),
// its depends are queued, and a dead end backtracks to the last choice. Chosen packages are never re-chosen, and
// `constrains` of chosen packages filter later choices (and vice versa).
//
// Virtual packages (names starting with "__", e.g. __glibc, __cuda, __unix)
// are treated as always satisfied: we do not probe the host, the way conda
// does when every virtual package is overridden. Packages that merely
// *provide* such names in a channel are never chosen for them.
#include <chrono>
#include <cstdint>
#include <filesystem>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "env/channel.hpp"
#include "core/error.hpp"
#include "types/match_spec.hpp"
#include "types/package_record.hpp"
#include "types/platform.hpp"

namespace sf::env {

namespace stdfs = std::filesystem;

enum class Origin { channel, file };  // from repodata, or a package file given directly

struct Candidate {
    types::PackageRecord record;  // fn, url and channel are set
    stdfs::path file;            // the package file on disk (a remote one's: once fetched)
    std::string download_url;    // a remote channel's: where to fetch it (credentials kept; never shown)
    Origin origin = Origin::channel;
    int channel_index = 0;       // position in the channel list (lower wins ties)
    std::vector<types::MatchSpec> depends, constrains;  // parsed
    std::string broken;          // why the record's depends/constrains do not parse
};

struct ChannelIndex {
    std::vector<std::string> channels;  // as given, for messages
    std::vector<Candidate> packages;
    // Records left out as invalid (one line each, for the user) and, by the
    // name they were written with, why: a solve that needs that name says so.
    std::vector<std::string> warnings;
    std::map<std::string, std::string> skipped;
    // Every name the channels hold, read or not: "did you mean" picks from these.
    std::set<std::string> all_names;
};

// Reads <channel>/<platform>/repodata.json and <channel>/noarch/repodata.json
// for each channel (env/channel.hpp: a URL, a directory or a name; a
// remote one's repodata through the HTTP cache under <pkgs_dir>/cache,
// pkgs_dir empty: default_pkgs_dir()). A channel must exist and have at
// least one of the two. Only the records of `names` and of the names they
// reach through depends and constrains are read (`names` empty: all): from
// repodata.json sparsely (types/repodata_sparse.hpp), from a remote subdir
// with CEP-16 shards by fetching those names' shards (channel_shards.hpp).
Result<ChannelIndex> load_channels(const std::vector<std::string>& channels, const types::Platform& platform,
                                   const stdfs::path& pkgs_dir = {}, Network net = Network::online,
                                   const std::set<std::string>& names = {});

// A candidate for a package file given on the command line (its info/index.json).
Result<Candidate> candidate_from_file(const stdfs::path& pkg);

// What one solve may spend. Work counts what a step costs, not steps:
// each requirement taken from the queue, each candidate matched or ranked.
// Past any limit the solve stops with an error naming it; the search keeps
// no recursion, so depth costs memory (bounded here), never the stack.
struct SolveLimits {
    std::uint64_t max_work = 30'000'000;  // a few seconds
    std::chrono::milliseconds max_time{30'000};
    std::uint64_t max_memory = std::uint64_t{1} << 30;  // bytes of search state, estimated
};

struct SolveRequest {
    std::vector<types::MatchSpec> specs;  // what the user asked for
    std::vector<Candidate> pinned;       // must be in the result as given (package files)
    SolveLimits limits;
    std::set<std::string> host_provided;  // met by the host when no channel has them (libgcc-ng, ...)
};

// The packages to install, dependencies before dependents where possible.
// Errors name the spec that cannot be met and who required it, or the limit
// the search ran into.
Result<std::vector<Candidate>> solve(const ChannelIndex& index, const SolveRequest& request);

bool is_virtual(const std::string& name);

}  // namespace sf::env
