#include "env/solve.hpp"

#include <unordered_map>

#include "archive/read.hpp"
#include "env/channel.hpp"
#include "env/channel_shards.hpp"
#include "env/install.hpp"
#include "types/repodata_sparse.hpp"
#include "util/fs.hpp"
#include "util/strings.hpp"

namespace sf::env {
namespace {

// A sharded subdir and the position of its channel.
struct ShardedAt {
    ShardedSubdir sub;
    int channel_index;
};

std::string file_url(const stdfs::path& p) { return "file://" + p.string(); }

// Specs parsed once per text: a channel's builds repeat the same few
// hundred depends ("python >=3.12,<3.13.0a0") thousands of times.
using SpecCache = std::unordered_map<std::string, types::MatchSpec>;

void parse_specs(Candidate& c, SpecCache& cache) {
    for (auto [list, out] : {std::pair{&c.record.depends, &c.depends}, std::pair{&c.record.constrains, &c.constrains}}) {
        out->reserve(list->size());
        for (const auto& s : *list) {
            if (auto hit = cache.find(s); hit != cache.end()) {
                out->push_back(hit->second);
                continue;
            }
            auto m = types::MatchSpec::parse(s);
            if (!m) {
                c.broken = m.error().message;
                return;
            }
            out->push_back(cache.emplace(s, std::move(*m)).first->second);
        }
    }
}

// A record left out of the index: warned about, and remembered by name.
void skip(ChannelIndex& index, const std::string& name, const Error& why) {
    index.warnings.push_back(why.str() + " (record left out; the rest of the channel is used)");
    if (!name.empty()) index.skipped.try_emplace(name, why.str());
}

// One repodata.json's text into `index`. An invalid record is left out with
// a warning, as conda and rattler (which read records lazily) never fail a
// channel for a record no solve asks for; the file itself must parse.
// `where` names it in messages; a local channel's packages lie in
// `local_dir`, a remote one's are downloaded from `url`/<subdir>/<fn>.
struct SubdirSource {
    std::string where, url, display, subdir;
    stdfs::path local_dir;  // empty: remote
    std::string package_base;  // remote: where the packages are, ending in '/'; empty: <url>/<subdir>/
};

void read_repodata(ChannelIndex& index, types::RepoData rd, const SubdirSource& src, int channel_index,
                   SpecCache& specs) {
    for (const auto& s : rd.skipped) skip(index, s.name, s.why);
    const std::string& subdir = src.subdir;
    // A remote repodata.json's CEP-15 base_url; the shard index gives its own.
    std::string package_base = src.package_base;
    if (package_base.empty() && src.local_dir.empty() && !rd.base_url.empty())
        package_base = resolve_dir_url(src.url + "/" + subdir + "/repodata.json", rd.base_url);
    for (auto& rec : rd.packages) {
        Candidate c;
        if (!src.local_dir.empty()) c.file = src.local_dir / rec.fn;
        else c.download_url = (package_base.empty() ? src.url + "/" + subdir + "/" : package_base) + rec.fn;
        // What records and messages show: never a token or a password.
        rec.channel = src.display + "/" + subdir;
        rec.url = rec.channel + "/" + rec.fn;
        if (rec.subdir.empty()) rec.subdir = subdir;
        // A record is for the subdir it is listed in: an osx-64 record in
        // linux-64/ would put a foreign binary in the prefix.
        if (rec.subdir != subdir) {
            skip(index, rec.name,
                 Error{SourceLoc{src.where},
                       "'" + rec.fn + "' says subdir '" + rec.subdir + "' but is listed in '" + subdir + "'",
                       "the channel index is damaged; re-run `splitforge index` on the channel"});
            continue;
        }
        c.record = std::move(rec);
        c.channel_index = channel_index;
        parse_specs(c, specs);
        index.packages.push_back(std::move(c));
    }
}

// A subdir read from repodata.json, sparsely (types/repodata_sparse.hpp).
struct SparseAt {
    types::SparseRepoData data;
    SubdirSource src;
    int channel_index;
};

Result<SparseAt> sparse(std::string text, SubdirSource src, int channel_index) {
    auto rd = types::SparseRepoData::parse(std::move(text), src.where);
    if (!rd) return Unexpected<Error>{rd.error()};
    return SparseAt{std::move(*rd), std::move(src), channel_index};
}

stdfs::path cache_of(const stdfs::path& pkgs_dir) { return (pkgs_dir.empty() ? default_pkgs_dir() : pkgs_dir) / "cache"; }

// One subdir of a channel: true when it has repodata. A remote one with a
// shard index is only noted in `sharded`; its records come later.
Result<bool> load_subdir(const ChannelRef& ch, const std::string& sub, int i, const stdfs::path& pkgs_dir,
                         Network network, std::vector<SparseAt>& whole, std::vector<ShardedAt>& sharded) {
    if (ch.is_local()) {
        stdfs::path rd = ch.local / sub / "repodata.json";
        std::error_code ec;
        if (!stdfs::exists(rd, ec)) return false;
        auto text = fs::read_file(rd);
        if (!text) return Unexpected<Error>{text.error()};
        SubdirSource src{rd.string(), ch.url, "file://" + ch.local.string(), sub, ch.local / sub, {}};
        auto at = sparse(std::move(*text), std::move(src), i);
        if (!at) return Unexpected<Error>{at.error()};
        whole.push_back(std::move(*at));
        return true;
    }
    auto shard_index = remote_shard_index(ch, sub, cache_of(pkgs_dir), network);
    if (!shard_index) return Unexpected<Error>{shard_index.error()};
    if (*shard_index) {
        auto s = read_shard_index(ch, sub, ch.url + "/" + sub + "/" + kShardIndex, **shard_index);
        if (!s) return Unexpected<Error>{s.error()};
        sharded.push_back({std::move(*s), i});
        return true;
    }
    auto text = remote_repodata(ch, sub, cache_of(pkgs_dir), network);
    if (!text) return Unexpected<Error>{text.error()};
    if (!*text) return false;
    SubdirSource src{ch.display + "/" + sub + "/repodata.json", ch.url, ch.display, sub, {}, {}};
    auto at = sparse(std::move(**text), std::move(src), i);
    if (!at) return Unexpected<Error>{at.error()};
    whole.push_back(std::move(*at));
    return true;
}

// The names the records of `rd` depend on or constrain.
void reached_from(const types::RepoData& rd, std::set<std::string>& out) {
    for (const auto& r : rd.packages)
        for (const auto* list : {&r.depends, &r.constrains})
            for (const auto& s : *list)
                if (auto n = str::lower(types::MatchSpec::name_of(s)); !n.empty() && !is_virtual(n)) out.insert(n);
}

// The records of `wanted` (all when empty) and of every name they reach,
// until none is new: from repodata.json read whole (`whole`, in load order),
// then from shards fetched as the names turn up.
Result<void> read_reached(ChannelIndex& index, std::vector<SparseAt>& whole, std::vector<ShardedAt>& sharded,
                          std::set<std::string> wanted, const stdfs::path& pkgs_dir, Network network) {
    std::vector<ShardedSubdir> subs;
    for (auto& s : sharded) subs.push_back(std::move(s.sub));
    index.all_names = all_shard_names(subs);
    for (const auto& w : whole) index.all_names.merge(w.data.names());
    const bool everything = wanted.empty();
    if (everything) wanted = index.all_names;
    std::set<std::string> seen = wanted, frontier = wanted;
    while (!frontier.empty()) {
        std::set<std::string> reached;
        if (!subs.empty()) {
            auto got = fetch_shards(subs, frontier, cache_of(pkgs_dir), network);
            if (!got) return Unexpected<Error>{got.error()};
            reached = std::move(*got);
        }
        if (!everything)
            for (const auto& w : whole) reached_from(w.data.records(frontier), reached);
        frontier.clear();
        for (const auto& n : reached)
            if (seen.insert(n).second) frontier.insert(n);
    }
    struct Read {
        types::RepoData rd;
        SubdirSource src;
        int channel_index;
    };
    std::vector<Read> read;
    for (auto& w : whole) read.push_back({everything ? w.data.all() : w.data.records(seen), w.src, w.channel_index});
    for (std::size_t k = 0; k < subs.size(); ++k) {
        const auto& s = subs[k];
        SubdirSource src{s.where, s.channel.url, s.channel.display, s.subdir, {}, s.package_base};
        auto rd = types::RepoData::from_json(as_repodata(std::move(subs[k])), src.where, types::BadRecord::skip);
        if (!rd) return Unexpected<Error>{rd.error()};
        read.push_back({std::move(*rd), std::move(src), sharded[k].channel_index});
    }
    std::size_t total = 0;
    for (const auto& r : read) total += r.rd.packages.size();
    index.packages.reserve(total);
    SpecCache specs;
    for (auto& r : read) read_repodata(index, std::move(r.rd), r.src, r.channel_index, specs);
    return {};
}

}  // namespace

bool is_virtual(const std::string& name) { return str::starts_with(name, "__"); }

Result<ChannelIndex> load_channels(const std::vector<std::string>& channels, const types::Platform& platform,
                                   const stdfs::path& pkgs_dir, Network network, const std::set<std::string>& names) {
    ChannelIndex index;
    std::vector<SparseAt> whole;
    std::vector<ShardedAt> sharded;
    int i = 0;
    for (const auto& given : channels) {
        auto ch = resolve_channel(given);
        if (!ch) return Unexpected<Error>{ch.error()};
        index.channels.push_back(ch->display);
        bool any = false;
        for (const std::string& sub : {platform.name(), std::string("noarch")}) {
            auto got = load_subdir(*ch, sub, i, pkgs_dir, network, whole, sharded);
            if (!got) return Unexpected<Error>{got.error()};
            any = any || *got;
            if (platform.is_noarch()) break;
        }
        if (!any && ch->is_local())
            return fail("channel " + ch->display + ": no " + platform.name() + "/repodata.json or noarch/repodata.json",
                        "run `splitforge index " + ch->display + "` first");
        if (!any && network == Network::offline)
            return fail(SourceLoc{ch->display}, "offline, and the cache has no repodata for " + platform.name() + "/ or noarch/",
                        "run the same command once without --offline to fill the cache");
        if (!any)
            return fail(SourceLoc{ch->display}, "no channel here: " + platform.name() + "/ and noarch/ have no repodata.json(.zst) (HTTP 404)",
                        "check the channel URL or name");
        ++i;
    }
    if (auto ok = read_reached(index, whole, sharded, names, pkgs_dir, network); !ok) return Unexpected<Error>{ok.error()};
    return index;
}

Result<Candidate> candidate_from_file(const stdfs::path& pkg) {
    std::error_code ec;
    stdfs::path abs = stdfs::absolute(pkg, ec).lexically_normal();
    auto md = archive::read_package_metadata(abs);
    if (!md) return Unexpected<Error>{md.error()};
    Candidate c;
    c.record = std::move(md->index);
    c.record.fn = abs.filename().string();
    c.record.url = file_url(abs);
    c.record.channel = file_url(abs.parent_path());
    c.file = abs;
    c.origin = Origin::file;
    c.channel_index = -1;
    SpecCache specs;
    parse_specs(c, specs);
    if (!c.broken.empty()) return fail(abs.string() + ": invalid dependency in info/index.json: " + c.broken);
    return c;
}

}  // namespace sf::env
