#include "feedstock/ci_cover.hpp"

#include <algorithm>
#include <cstdint>
#include <map>
#include <set>

namespace sf::feedstock {
namespace {

using Bits = std::vector<std::uint64_t>;

Bits make_bits(size_t n) { return Bits((n + 63) / 64, 0); }
void set_bit(Bits& b, int i) { b[static_cast<size_t>(i) / 64] |= std::uint64_t{1} << (i % 64); }
bool has_bit(const Bits& b, int i) { return (b[static_cast<size_t>(i) / 64] >> (i % 64)) & 1; }
int count(const Bits& b) {
    int n = 0;
    for (auto w : b) n += __builtin_popcountll(w);
    return n;
}
int count_and(const Bits& a, const Bits& b) {
    int n = 0;
    for (size_t i = 0; i < a.size(); ++i) n += __builtin_popcountll(a[i] & b[i]);
    return n;
}
bool subset_of(const Bits& a, const Bits& b) {
    for (size_t i = 0; i < a.size(); ++i)
        if (a[i] & ~b[i]) return false;
    return true;
}
bool empty(const Bits& b) {
    return std::all_of(b.begin(), b.end(), [](std::uint64_t w) { return w == 0; });
}

struct Search {
    std::vector<Bits> sets;                  // the candidate jobs (dominated ones dropped)
    std::vector<int> job_of;                 // candidate -> job index
    std::vector<std::vector<int>> covering;  // item -> candidates holding it
    std::vector<int> best, path;
    long nodes = 0, max_nodes = 0;
    bool aborted = false;

    // A bound no cover of `u` beats: items pairwise covered by no common
    // candidate each need their own job, and no job covers more than the
    // largest one does.
    int lower_bound(const Bits& u) const {
        int left = count(u);
        if (left == 0) return 0;
        int gain = 0;
        for (const auto& s : sets) gain = std::max(gain, count_and(s, u));
        int by_size = (left + gain - 1) / gain;
        std::vector<int> items;
        for (int i = 0; i < static_cast<int>(covering.size()); ++i)
            if (has_bit(u, i)) items.push_back(i);
        std::stable_sort(items.begin(), items.end(),
                         [&](int a, int b) { return covering[a].size() < covering[b].size(); });
        std::vector<char> used(sets.size(), 0);
        int disjoint = 0;
        for (int i : items) {
            if (std::any_of(covering[i].begin(), covering[i].end(), [&](int s) { return used[s]; })) continue;
            ++disjoint;
            for (int s : covering[i]) used[s] = 1;
        }
        return std::max(by_size, disjoint);
    }

    void run(const Bits& u) {
        if (aborted) return;
        if (++nodes > max_nodes) {
            aborted = true;
            return;
        }
        if (empty(u)) {
            if (path.size() < best.size()) best = path;
            return;
        }
        if (static_cast<int>(path.size()) + lower_bound(u) >= static_cast<int>(best.size())) return;
        // Branch on the uncovered item with the fewest ways to cover it.
        int pick = -1;
        for (int i = 0; i < static_cast<int>(covering.size()); ++i)
            if (has_bit(u, i) && (pick < 0 || covering[i].size() < covering[pick].size())) pick = i;
        std::vector<int> order = covering[pick];
        std::stable_sort(order.begin(), order.end(),
                         [&](int a, int b) { return count_and(sets[a], u) > count_and(sets[b], u); });
        for (int s : order) {
            Bits next = u;
            for (size_t w = 0; w < next.size(); ++w) next[w] &= ~sets[s][w];
            path.push_back(s);
            run(next);
            path.pop_back();
            if (aborted) return;
        }
    }
};

// Greedy: the candidate that covers the most uncovered items, until none is
// left; then candidates the others make redundant are dropped.
std::vector<int> greedy(const Search& s, Bits u) {
    std::vector<int> chosen;
    while (!empty(u)) {
        int pick = 0, gain = -1;
        for (int i = 0; i < static_cast<int>(s.sets.size()); ++i)
            if (int g = count_and(s.sets[i], u); g > gain) pick = i, gain = g;
        chosen.push_back(pick);
        for (size_t w = 0; w < u.size(); ++w) u[w] &= ~s.sets[pick][w];
    }
    for (size_t i = chosen.size(); i-- > 0;) {
        Bits rest = make_bits(s.covering.size());
        for (size_t j = 0; j < chosen.size(); ++j)
            if (j != i)
                for (size_t w = 0; w < rest.size(); ++w) rest[w] |= s.sets[chosen[j]][w];
        if (subset_of(s.sets[chosen[i]], rest)) chosen.erase(chosen.begin() + static_cast<long>(i));
    }
    return chosen;
}

// Each chosen job's items that no other chosen job covers.
std::vector<std::vector<int>> reasons(const CoverProblem& p, const std::vector<int>& chosen) {
    std::vector<int> holders(p.items.size(), 0);
    for (int j : chosen)
        for (int i : p.sets[j]) ++holders[i];
    std::vector<std::vector<int>> why;
    for (int j : chosen) {
        std::set<int> own;
        for (int i : p.sets[j])
            if (holders[i] == 1) own.insert(i);
        why.emplace_back(own.begin(), own.end());
    }
    return why;
}

}  // namespace

Cover min_cover(const CoverProblem& p, const CoverLimits& limits) {
    const size_t n = p.items.size();
    std::vector<Bits> all;
    for (const auto& s : p.sets) {
        Bits b = make_bits(n);
        for (int i : s) set_bit(b, i);
        all.push_back(std::move(b));
    }
    Search s;
    s.max_nodes = limits.max_nodes;
    // A job whose items another job also holds (a lower index wins a tie) is
    // never needed: swapping it for the other keeps any cover a cover.
    for (size_t j = 0; j < all.size(); ++j) {
        bool dominated = empty(all[j]);
        for (size_t k = 0; k < all.size() && !dominated; ++k)
            if (k != j && subset_of(all[j], all[k]) && (all[j] != all[k] || k < j)) dominated = true;
        if (dominated) continue;
        s.job_of.push_back(static_cast<int>(j));
        s.sets.push_back(all[j]);
    }
    s.covering.assign(n, {});
    Bits u = make_bits(n);
    for (int c = 0; c < static_cast<int>(s.sets.size()); ++c)
        for (size_t i = 0; i < n; ++i)
            if (has_bit(s.sets[c], static_cast<int>(i))) s.covering[i].push_back(c), set_bit(u, static_cast<int>(i));

    Cover cover;
    s.best = greedy(s, u);
    cover.lower_bound = s.lower_bound(u);
    bool small = static_cast<int>(p.sets.size()) <= limits.max_jobs && static_cast<int>(n) <= limits.max_items;
    if (small && cover.lower_bound < static_cast<int>(s.best.size())) s.run(u);
    if (small && !s.aborted) cover.lower_bound = static_cast<int>(s.best.size());
    cover.method = cover.lower_bound == static_cast<int>(s.best.size()) ? Cover::Method::exact : Cover::Method::greedy;
    for (int c : s.best) cover.chosen.push_back(s.job_of[c]);
    std::sort(cover.chosen.begin(), cover.chosen.end());
    cover.why = reasons(p, cover.chosen);
    return cover;
}

namespace {

bool ci_key(const std::string& k) { return k == kRunnerKey || k == kTimeoutKey; }

}  // namespace

CoverProblem cover_problem(const std::vector<CiJob>& jobs) {
    CoverProblem p;
    std::map<std::string, int> index;
    auto item = [&](const std::string& label) {
        auto [it, fresh] = index.emplace(label, static_cast<int>(p.items.size()));
        if (fresh) p.items.push_back(label);
        return it->second;
    };
    for (const auto& job : jobs) {
        std::set<int> mine;
        std::set<std::string> zipped;
        for (const auto& group : job.zip_keys) {
            std::vector<const std::vector<std::string>*> lists;
            for (const auto& k : group)
                if (const auto* v = job.values(k)) lists.push_back(v);
            bool aligned = lists.size() == group.size() && !lists.empty() &&
                           std::all_of(lists.begin(), lists.end(),
                                       [&](const auto* l) { return l->size() == lists.front()->size(); });
            if (!aligned) continue;  // not a zip this file can hold: its keys count one by one
            for (size_t t = 0; t < lists.front()->size(); ++t) {
                std::string label;
                for (size_t g = 0; g < group.size(); ++g)
                    label += (g ? "," : "") + group[g] + "=" + (*lists[g])[t];
                mine.insert(item(label));
            }
            zipped.insert(group.begin(), group.end());
        }
        for (const auto& [k, vals] : job.keys) {
            if (ci_key(k) || zipped.count(k)) continue;
            for (const auto& v : vals) mine.insert(item(k + "=" + v));
        }
        p.sets.emplace_back(mine.begin(), mine.end());
    }
    return p;
}

}  // namespace sf::feedstock
