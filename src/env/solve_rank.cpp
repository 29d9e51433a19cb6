// The order conda's solvers try candidates in (rattler/resolvo and libsolv
// agree): no track_features before track_features, higher version, higher
// build number; among builds that tie there, the one whose dependencies can
// reach the highest versions (the names every tied build depends on, taken
// alphabetically), then, where those versions tie too, the one whose
// dependencies' best builds rank higher among their own name's builds (so
// the same rule one level down: a metapackage pinning `pytorch` exactly
// prefers the pytorch build of the newest python, as conda does), then the
// newest timestamp. The build string is never a key: "py39" must not beat
// "py313" by its text. Candidates that tie on all of these share a tier; the
// search orders each tier by how few packages a candidate adds to the
// solution, then .conda before .tar.bz2 and the earlier channel.
//
// A name is ranked when the search first needs it (or when a tied build of
// another name depends on it), and each tied build's keys are computed once
// before sorting: ranking is linear in what the search looks at, not in the
// whole index times the comparisons. A dependency cycle, or a chain deeper
// than kMaxDepth, leaves the deeper key a tie.
#include <algorithm>
#include <map>

#include "env/solve_detail.hpp"
#include "util/strings.hpp"

namespace sf::env::detail {
namespace {

using Best = Ranker::Best;

int simple(const Candidate* a, const Candidate* b) {  // <0: a first
    bool at = !a->record.track_features.empty(), bt = !b->record.track_features.empty();
    if (at != bt) return at ? 1 : -1;
    if (int c = a->record.version.compare(b->record.version); c != 0) return c > 0 ? -1 : 1;
    if (a->record.build_number != b->record.build_number) return a->record.build_number > b->record.build_number ? -1 : 1;
    return 0;
}

// <0: x is the better dependency version (untracked first, then higher).
int compare_best(const Best& x, const Best& y) {
    if (x.tracked != y.tracked) return x.tracked ? 1 : -1;
    int c = x.version->compare(*y.version);
    return c > 0 ? -1 : (c < 0 ? 1 : 0);
}

// A tied build and its keys: the best version each shared dependency name
// can reach, then its timestamp.
struct Keyed {
    const Candidate* c;
    std::vector<Best> best;
};

// <0: a first, on the shared dependencies' best versions, then on how
// their best builds rank (a lower tier first), then the timestamp.
int compare_keys(const Keyed& a, const Keyed& b) {
    for (size_t i = 0; i < a.best.size(); ++i) {
        const Best &x = a.best[i], &y = b.best[i];
        if (x.has != y.has) return x.has ? -1 : 1;
        if (!x.has) continue;
        if (int c = compare_best(x, y); c != 0) return c;
    }
    for (size_t i = 0; i < a.best.size(); ++i) {
        int x = a.best[i].tier, y = b.best[i].tier;
        if (x == y) continue;  // kNoTier for all of the group, or the same
        return x < y ? -1 : 1;
    }
    auto ta = a.c->record.timestamp.value_or(0), tb = b.c->record.timestamp.value_or(0);
    if (ta != tb) return ta > tb ? -1 : 1;
    return 0;
}

// The dependency names every build of the group names, alphabetically.
std::vector<std::string> shared_names(std::vector<const Candidate*>::iterator first,
                                      std::vector<const Candidate*>::iterator last, Budget& budget) {
    std::map<std::string, size_t> count;  // dependency name -> how many of the group name it
    for (auto it = first; it != last; ++it) {
        std::vector<std::string_view> names;
        for (const auto& d : (*it)->depends) names.push_back(d.name());
        budget.spend(names.size() + 1);
        std::sort(names.begin(), names.end());
        names.erase(std::unique(names.begin(), names.end()), names.end());
        for (auto n : names) ++count[std::string(n)];
    }
    std::vector<std::string> shared;
    for (const auto& [n, k] : count)
        if (k == static_cast<size_t>(last - first)) shared.push_back(n);
    return shared;
}

}  // namespace

// The highest version `spec` reaches among its name's candidates (untracked
// preferred on a tie), whatever order that list is in yet.
const Best& Ranker::highest(const types::MatchSpec* spec) {
    auto [it, fresh] = highest_.try_emplace(spec->str());
    if (!fresh) return it->second;
    Best b;
    if (auto f = names_.find(spec->name()); f != names_.end()) {
        budget_.spend(f->second.list.size());
        for (const Candidate* c : f->second.list) {
            if (!spec->matches(c->record)) continue;
            bool tracked = !c->record.track_features.empty();
            int cmp = b.has ? b.version->compare(c->record.version) : -1;
            if (cmp < 0 || (cmp == 0 && b.tracked && !tracked)) b = {true, tracked, &c->record.version};
        }
    }
    return it->second = b;
}

// The lowest tier among the builds `spec` matches at `best`'s version: the
// best build it can reach, as its own name ranks them. Ranks that name first.
int Ranker::best_tier(const types::MatchSpec* spec, const Best& best) {
    if (!best.has) return kNoTier;
    if (auto it = tier_.find(spec->str()); it != tier_.end()) return it->second;
    auto f = names_.find(spec->name());
    if (f == names_.end() || f->second.ranking || depth_ >= kMaxDepth) return kNoTier;  // not memoized: may be known later
    rank(spec->name());
    int t = kNoTier;
    budget_.spend(f->second.list.size());
    for (const Candidate* c : f->second.list) {
        bool tracked = !c->record.track_features.empty();
        if (tracked != best.tracked || c->record.version.compare(*best.version) != 0 || !spec->matches(c->record))
            continue;
        if (auto ti = tiers_.find(c); ti != tiers_.end() && (t == kNoTier || ti->second < t)) t = ti->second;
    }
    return tier_[spec->str()] = t;
}

void Ranker::rank(std::string_view name) {
    auto f = names_.find(name);
    if (f == names_.end() || f->second.ranked || f->second.ranking) return;
    f->second.ranking = true;
    ++depth_;
    sort(f->second.list);
    --depth_;
    f->second.ranking = false;
    f->second.ranked = true;
}

void Ranker::sort_group(std::vector<const Candidate*>::iterator first, std::vector<const Candidate*>::iterator last) {
    std::vector<std::string> shared = shared_names(first, last, budget_);
    std::unordered_map<std::string_view, size_t> slot;
    for (size_t i = 0; i < shared.size(); ++i) slot.emplace(shared[i], i);
    std::vector<Keyed> group;
    group.reserve(static_cast<size_t>(last - first));
    for (auto it = first; it != last; ++it) {
        Keyed k{*it, std::vector<Best>(shared.size())};
        for (const auto& d : (*it)->depends) {
            auto s = slot.find(d.name());
            if (s == slot.end()) continue;
            Best h = highest(&d);
            h.tier = best_tier(&d, h);
            Best& out = k.best[s->second];
            int c = out.has ? compare_best(h, out) : -1;
            if (h.has && (c < 0 || (c == 0 && h.tier != kNoTier && (out.tier == kNoTier || h.tier < out.tier)))) out = h;
        }
        group.push_back(std::move(k));
    }
    // A slot whose tier is unknown for one build is no key for any, so the
    // order stays a strict weak one.
    for (size_t i = 0; i < shared.size(); ++i)
        if (std::any_of(group.begin(), group.end(), [&](const Keyed& k) { return k.best[i].has && k.best[i].tier == kNoTier; }))
            for (auto& k : group) k.best[i].tier = kNoTier;
    budget_.spend(group.size() * (shared.size() + 1));
    std::stable_sort(group.begin(), group.end(), [](const Keyed& a, const Keyed& b) {
        if (int c = compare_keys(a, b); c != 0) return c < 0;
        bool ac = str::ends_with(a.c->record.fn, ".conda"), bc = str::ends_with(b.c->record.fn, ".conda");
        if (ac != bc) return ac;
        return a.c->channel_index < b.c->channel_index;
    });
    for (size_t i = 0; i < group.size(); ++i) {
        if (i > 0 && compare_keys(group[i - 1], group[i]) != 0) ++next_tier_;
        tiers_[group[i].c] = next_tier_;
        first[static_cast<std::ptrdiff_t>(i)] = group[i].c;
    }
    ++next_tier_;
}

void Ranker::sort(std::vector<const Candidate*>& list) {
    budget_.spend(list.size());
    std::stable_sort(list.begin(), list.end(), [](const Candidate* a, const Candidate* b) { return simple(a, b) < 0; });
    for (auto start = list.begin(); start != list.end();) {
        auto end = start + 1;
        while (end != list.end() && simple(*start, *end) == 0) ++end;
        if (end - start > 1)
            sort_group(start, end);
        else
            tiers_[*start] = next_tier_++;
        start = end;
    }
}

}  // namespace sf::env::detail
