#include "env/solve.hpp"

#include <algorithm>
#include <map>
#include <optional>
#include <set>

#include "archive/read.hpp"
#include "util/fs.hpp"
#include "util/strings.hpp"

namespace sf::env {
namespace {

std::string file_url(const stdfs::path& p) { return "file://" + p.string(); }

void parse_specs(Candidate& c) {
    for (auto [list, out] : {std::pair{&c.record.depends, &c.depends}, std::pair{&c.record.constrains, &c.constrains}}) {
        for (const auto& s : *list) {
            auto m = types::MatchSpec::parse(s);
            if (!m) {
                c.broken = m.error().message;
                return;
            }
            out->push_back(std::move(*m));
        }
    }
}

// The order conda's solvers try candidates in (rattler/resolvo and libsolv
// agree): no track_features before track_features, higher version, higher
// build number; among builds that tie there, the one whose dependencies can
// reach the highest versions (the names every tied build depends on, taken
// alphabetically), then the newest timestamp. The build string is never a
// key: "py39" must not beat "py313" by its text. Candidates that tie on all
// of these share a `tier`; the solver orders each tier by how few packages a
// candidate adds to the solution (Solver::fewest_first), then .conda before
// .tar.bz2 and the earlier channel.
struct Ranker {
    const std::map<std::string, std::vector<const Candidate*>>& by_name;
    std::map<const Candidate*, int>& tier;
    struct Best {
        bool has = false, tracked = false;
        const types::Version* version = nullptr;
    };
    std::map<const types::MatchSpec*, Best> cache;

    static int simple(const Candidate* a, const Candidate* b) {  // <0: a first
        bool at = !a->record.track_features.empty(), bt = !b->record.track_features.empty();
        if (at != bt) return at ? 1 : -1;
        if (int c = a->record.version.compare(b->record.version); c != 0) return c > 0 ? -1 : 1;
        if (a->record.build_number != b->record.build_number) return a->record.build_number > b->record.build_number ? -1 : 1;
        return 0;
    }
    // <0: x is the better dependency version (untracked first, then higher).
    static int compare_best(const Best& x, const Best& y) {
        if (x.tracked != y.tracked) return x.tracked ? 1 : -1;
        int c = x.version->compare(*y.version);
        return c > 0 ? -1 : (c < 0 ? 1 : 0);
    }
    const Best& highest(const types::MatchSpec* spec) {
        auto [it, fresh] = cache.try_emplace(spec);
        if (!fresh) return it->second;
        Best b;
        if (auto f = by_name.find(spec->name()); f != by_name.end())
            for (const Candidate* c : f->second) {
                if (!spec->matches(c->record)) continue;
                if (!b.has || b.version->compare(c->record.version) < 0)
                    b = {true, !c->record.track_features.empty(), &c->record.version};
            }
        return it->second = b;
    }
    Best best_for(const Candidate* c, const std::string& name) {
        Best out;
        for (const auto& d : c->depends) {
            if (d.name() != name) continue;
            const Best& h = highest(&d);
            if (h.has && (!out.has || compare_best(h, out) < 0)) out = h;
        }
        return out;
    }
    // <0: a first, on the shared dependencies' best versions, then the timestamp.
    int compare_in_group(const std::vector<std::string>& shared, const Candidate* a, const Candidate* b) {
        for (const auto& n : shared) {
            Best x = best_for(a, n), y = best_for(b, n);
            if (x.has != y.has) return x.has ? -1 : 1;
            if (!x.has) continue;
            if (int c = compare_best(x, y); c != 0) return c;
        }
        auto ta = a->record.timestamp.value_or(0), tb = b->record.timestamp.value_or(0);
        if (ta != tb) return ta > tb ? -1 : 1;
        return 0;
    }
    void sort_group(std::vector<const Candidate*>::iterator first, std::vector<const Candidate*>::iterator last,
                    int& next_tier) {
        std::map<std::string, size_t> count;  // dependency name -> how many of the group name it
        for (auto it = first; it != last; ++it) {
            std::set<std::string> names;
            for (const auto& d : (*it)->depends) names.insert(d.name());
            for (const auto& n : names) ++count[n];
        }
        std::vector<std::string> shared;
        for (const auto& [n, k] : count)
            if (k == static_cast<size_t>(last - first)) shared.push_back(n);
        std::stable_sort(first, last, [&](const Candidate* a, const Candidate* b) {
            if (int c = compare_in_group(shared, a, b); c != 0) return c < 0;
            bool ac = str::ends_with(a->record.fn, ".conda"), bc = str::ends_with(b->record.fn, ".conda");
            if (ac != bc) return ac;
            return a->channel_index < b->channel_index;
        });
        for (auto it = first; it != last; ++it) {
            if (it != first && compare_in_group(shared, *(it - 1), *it) != 0) ++next_tier;
            tier[*it] = next_tier;
        }
        ++next_tier;
    }
    void sort(std::vector<const Candidate*>& list) {
        std::stable_sort(list.begin(), list.end(), [](const Candidate* a, const Candidate* b) { return simple(a, b) < 0; });
        int next_tier = 0;
        for (auto start = list.begin(); start != list.end();) {
            auto end = start + 1;
            while (end != list.end() && simple(*start, *end) == 0) ++end;
            if (end - start > 1)
                sort_group(start, end, next_tier);
            else
                tier[*start] = next_tier++;
            start = end;
        }
    }
};

struct Pending {
    const types::MatchSpec* spec;
    std::string required_by;  // dist name, or "" for a requested spec
};

struct Solver {
    explicit Solver(const ChannelIndex& i) : index(i) {}
    const ChannelIndex& index;
    std::map<std::string, std::vector<const Candidate*>> by_name;
    std::map<const Candidate*, int> tier;  // equal: tied on every ranking key (Ranker)
    std::map<std::string, const Candidate*> chosen;
    std::map<std::string, std::string> chosen_by;  // name -> who required it
    std::set<std::string> host_provided;           // SolveRequest::host_provided, less what the channels hold

    // Needs no package: virtual (__glibc), or met by the host.
    bool met_outside(const std::string& name) const { return is_virtual(name) || host_provided.count(name); }
    std::vector<Pending> queue;
    std::vector<const Candidate*> order;
    long steps = 0;
    static constexpr long kMaxSteps = 200000;

    // The most specific failure seen (deepest in the search).
    size_t fail_depth = 0;
    std::optional<std::string> failure;
    bool gave_up = false;

    void note_failure(size_t depth, const Pending& p, const std::string& why) {
        if (failure && depth < fail_depth) return;
        fail_depth = depth;
        std::string by = p.required_by.empty() ? "requested" : "required by " + p.required_by;
        failure = "cannot satisfy '" + p.spec->str() + "' (" + by + "): " + why;
    }

    std::string channel_list() const {
        return index.channels.empty() ? "(none given; add -c CHANNEL)" : str::join(index.channels, ", ");
    }

    // Does `c` agree with the constrains of everything chosen, and they with it?
    std::optional<std::string> constraint_clash(const Candidate& c) const {
        for (const auto& [name, p] : chosen) {
            for (const auto& con : p->constrains)
                if (con.name() == c.record.name && !con.matches(c.record))
                    return "excluded by constraint '" + con.str() + "' of " + p->record.dist_name();
            for (const auto& con : c.constrains)
                if (con.name() == name && !con.matches(p->record))
                    return c.record.dist_name() + " has constraint '" + con.str() + "' against chosen " +
                           p->record.dist_name();
        }
        return std::nullopt;
    }

    void choose(const Candidate* c, const std::string& by) {
        chosen[c->record.name] = c;
        chosen_by[c->record.name] = by;
        order.push_back(c);
        for (const auto& d : c->depends) queue.push_back({&d, c->record.dist_name()});
    }
    void unchoose(const Candidate* c, size_t queue_size) {
        chosen.erase(c->record.name);
        chosen_by.erase(c->record.name);
        order.pop_back();
        queue.resize(queue_size);
    }

    // How many packages choosing `c` adds: its dependencies' names that are
    // neither chosen nor already required by what is still queued after `pos`.
    size_t new_packages(const Candidate* c, size_t pos) const {
        std::set<std::string> pending;
        for (size_t i = pos + 1; i < queue.size(); ++i) pending.insert(queue[i].spec->name());
        std::set<std::string> fresh;
        for (const auto& d : c->depends) {
            const std::string& n = d.name();
            if (met_outside(n) || n == c->record.name || chosen.count(n) || pending.count(n)) continue;
            fresh.insert(n);
        }
        return fresh.size();
    }
    // conda's "fewest packages": among options of one tier (tied on version,
    // build number, dependency versions and timestamp), the ones that pull in
    // fewer new packages first; otherwise the ranked order stays.
    void fewest_first(std::vector<const Candidate*>& options, size_t pos) const {
        for (auto start = options.begin(); start != options.end();) {
            auto end = start + 1;
            while (end != options.end() && tier.at(*end) == tier.at(*start)) ++end;
            if (end - start > 1) {
                std::map<const Candidate*, size_t> adds;
                for (auto it = start; it != end; ++it) adds[*it] = new_packages(*it, pos);
                std::stable_sort(start, end, [&](const Candidate* a, const Candidate* b) { return adds[a] < adds[b]; });
            }
            start = end;
        }
    }

    bool run(size_t pos) {
        if (++steps > kMaxSteps) {
            gave_up = true;
            return false;
        }
        while (pos < queue.size()) {
            const Pending p = queue[pos];
            const std::string& name = p.spec->name();
            if (met_outside(name)) {
                ++pos;
                continue;
            }
            if (auto it = chosen.find(name); it != chosen.end()) {
                if (p.spec->matches(it->second->record)) {
                    ++pos;
                    continue;
                }
                std::string who = chosen_by[name].empty() ? "requested" : "required by " + chosen_by[name];
                note_failure(pos, p, "conflicts with " + it->second->record.dist_name() + " (" + who + ")");
                return false;
            }
            auto found = by_name.find(name);
            if (found == by_name.end()) {
                note_failure(pos, p, "no such package in channels " + channel_list());
                return false;
            }
            std::vector<const Candidate*> options;
            std::string last_clash, broken;
            for (const Candidate* c : found->second) {
                if (!p.spec->matches(c->record)) continue;
                if (!c->broken.empty()) {
                    broken = c->record.dist_name() + " has an invalid dependency: " + c->broken;
                    continue;
                }
                if (auto clash = constraint_clash(*c)) {
                    last_clash = *clash;
                    continue;
                }
                options.push_back(c);
            }
            if (options.empty()) {
                std::string why;
                if (!last_clash.empty()) why = last_clash;
                else if (!broken.empty()) why = broken;
                else {
                    std::vector<std::string> avail;
                    for (const Candidate* c : found->second)
                        avail.push_back(c->record.version.str() + " " + c->record.build);
                    why = "no matching version in channels " + channel_list() + " (available: " +
                          str::join(avail, ", ") + ")";
                }
                note_failure(pos, p, why);
                return false;
            }
            fewest_first(options, pos);
            for (const Candidate* c : options) {
                size_t qs = queue.size();
                choose(c, p.required_by);
                if (run(pos + 1)) return true;
                unchoose(c, qs);
                if (gave_up) return false;
            }
            return false;
        }
        return true;
    }
};

Result<std::vector<Candidate>> read_repodata(const stdfs::path& file, const std::string& channel_url,
                                              int channel_index, const stdfs::path& subdir_dir) {
    auto text = fs::read_file(file);
    if (!text) return Unexpected<Error>{text.error()};
    auto rd = types::RepoData::parse(*text, file.string());
    if (!rd) return Unexpected<Error>{rd.error()};
    std::vector<Candidate> out;
    std::string subdir = subdir_dir.filename().string();
    for (auto& rec : rd->packages) {
        Candidate c;
        c.file = subdir_dir / rec.fn;
        rec.channel = channel_url + "/" + subdir;
        rec.url = rec.channel + "/" + rec.fn;
        if (rec.subdir.empty()) rec.subdir = subdir;
        c.record = std::move(rec);
        c.channel_index = channel_index;
        parse_specs(c);
        out.push_back(std::move(c));
    }
    return out;
}

}  // namespace

bool is_virtual(const std::string& name) { return str::starts_with(name, "__"); }

Result<ChannelIndex> load_channels(const std::vector<stdfs::path>& channels, const types::Platform& platform) {
    ChannelIndex index;
    int i = 0;
    for (const auto& ch : channels) {
        std::error_code ec;
        stdfs::path dir = stdfs::absolute(ch, ec).lexically_normal();
        if (!stdfs::is_directory(dir, ec)) return fail("channel " + ch.string() + ": no such directory");
        index.channels.push_back(ch.string());
        bool any = false;
        for (const std::string& sub : {platform.name(), std::string("noarch")}) {
            stdfs::path rd = dir / sub / "repodata.json";
            if (!stdfs::exists(rd, ec)) continue;
            any = true;
            auto recs = read_repodata(rd, file_url(dir), i, dir / sub);
            if (!recs) return Unexpected<Error>{recs.error()};
            for (auto& c : *recs) index.packages.push_back(std::move(c));
            if (platform.is_noarch()) break;
        }
        if (!any)
            return fail("channel " + ch.string() + ": no " + platform.name() + "/repodata.json or noarch/repodata.json",
                        "run `splitforge index " + ch.string() + "` first");
        ++i;
    }
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
    parse_specs(c);
    if (!c.broken.empty()) return fail(abs.string() + ": invalid dependency in info/index.json: " + c.broken);
    return c;
}

Result<std::vector<Candidate>> solve(const ChannelIndex& index, const SolveRequest& request) {
    Solver s(index);
    for (const auto& c : index.packages) {
        if (is_virtual(c.record.name)) continue;
        s.by_name[c.record.name].push_back(&c);
    }
    for (const auto& n : request.host_provided)
        if (!s.by_name.count(n)) s.host_provided.insert(n);
    Ranker ranker{s.by_name, s.tier, {}};
    for (auto& [name, list] : s.by_name) ranker.sort(list);

    for (const auto& p : request.pinned) {
        if (auto clash = s.constraint_clash(p))
            return fail("cannot install " + p.file.filename().string() + ": " + *clash);
        if (s.chosen.count(p.record.name))
            return fail("cannot install " + p.file.filename().string() + ": another " + p.record.name +
                        " package was given too");
        s.choose(&p, "");
    }
    for (const auto& spec : request.specs) s.queue.push_back({&spec, ""});

    if (!s.run(0)) {
        if (s.gave_up) return fail("the solver gave up after " + std::to_string(Solver::kMaxSteps) + " steps",
                                   "pin some versions to narrow the search");
        return fail(s.failure.value_or("cannot satisfy the request"));
    }
    // Dependencies first: reverse the choice order (a package is chosen before its deps).
    std::vector<Candidate> out;
    for (auto it = s.order.rbegin(); it != s.order.rend(); ++it) out.push_back(**it);
    return out;
}

}  // namespace sf::env
