#pragma once
// The solver's pieces (solve_search.cpp, solve_rank.cpp). Internal to src/env/.
#include <chrono>
#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "env/solve.hpp"

namespace sf::env::detail {

// Work, time and memory spent so far, against SolveLimits.
class Budget {
public:
    enum class Over { none, work, time, memory };
    explicit Budget(SolveLimits limits) : limits_(limits), start_(std::chrono::steady_clock::now()) {}
    // Charges `units` of work; false once any limit is passed (and stays so).
    bool spend(std::uint64_t units) {
        work_ += units;
        if (work_ >= next_check_) check();
        return over_ == Over::none;
    }
    void hold(std::int64_t bytes) { memory_ += bytes; }  // search state grew (or shrank, negative)
    Over over() const { return over_; }
    std::string describe() const;  // "the solver gave up: ..." for the error

private:
    void check();
    SolveLimits limits_;
    std::chrono::steady_clock::time_point start_;
    std::uint64_t work_ = 0, next_check_ = 0;
    std::int64_t memory_ = 0;
    Over over_ = Over::none;
};

// One name's candidates; ranked (sorted into conda's order) on first use.
struct NameEntry {
    std::vector<const Candidate*> list;
    bool ranked = false;
    bool ranking = false;  // being sorted now (a dependency cycle reads no tiers of it)
};
using NameLists = std::unordered_map<std::string_view, NameEntry>;
// Candidates that tie on every ranking key share a tier.
using Tiers = std::unordered_map<const Candidate*, int>;

// The order conda's solvers try candidates in (solve_rank.cpp).
class Ranker {
public:
    Ranker(NameLists& names, Tiers& tiers, Budget& budget) : names_(names), tiers_(tiers), budget_(budget) {}
    // Sorts the candidates of `name` (once) and gives each its tier.
    void rank(std::string_view name);

    struct Best {
        bool has = false, tracked = false;
        const types::Version* version = nullptr;
        // The best tier among the builds of that version: how their own
        // dependencies rank, one level down. kNoTier: not known (a cycle, or
        // deeper than kMaxDepth), which ties.
        int tier = kNoTier;
    };
    static constexpr int kNoTier = -1;
    static constexpr int kMaxDepth = 32;

private:
    const Best& highest(const types::MatchSpec* spec);
    int best_tier(const types::MatchSpec* spec, const Best& best);
    void sort(std::vector<const Candidate*>& list);
    void sort_group(std::vector<const Candidate*>::iterator first, std::vector<const Candidate*>::iterator last);
    NameLists& names_;
    Tiers& tiers_;
    Budget& budget_;
    // By the spec's text: the same text in a thousand builds' depends is one lookup.
    std::unordered_map<std::string_view, Best> highest_;
    std::unordered_map<std::string_view, int> tier_;
    int next_tier_ = 0;
    int depth_ = 0;  // names being ranked now, one inside another
};

}  // namespace sf::env::detail
