#pragma once
// The pull-request subset of the CI matrix (`ci-matrix --subset pr`): the
// fewest jobs that, together, hold every value of every key at least once.
// This is minimum set cover over the real jobs (each job covers the values it
// carries); it is NP-hard in general, so `min_cover` runs an exact branch and
// bound (essential jobs first, dominated jobs dropped, the uncovered item with
// the fewest covering jobs branched on, a disjoint-items lower bound) and, past
// `CoverLimits`, falls back to greedy with the bound it proved.
#include <string>
#include <vector>

#include "feedstock/ci_job.hpp"

namespace sf::feedstock {

struct CoverProblem {
    std::vector<std::string> items;           // "key=value" (zipped keys: "a=1,b=2")
    std::vector<std::vector<int>> sets;       // per job: the items it covers
};

struct CoverLimits {
    int max_jobs = 4096;        // past these sizes the search is not tried
    int max_items = 4096;
    long max_nodes = 2000000;   // search nodes before it gives up on proving
};

struct Cover {
    enum class Method { exact, greedy };
    Method method = Method::exact;
    std::vector<int> chosen;                 // job indices, ascending
    std::vector<std::vector<int>> why;       // per chosen job: items no other chosen job covers
    int lower_bound = 0;                     // == chosen.size() when exact
};

Cover min_cover(const CoverProblem& p, const CoverLimits& limits = {});

// The items of `jobs`: every key but the CI keys, a zip group (as written in
// the files' zip_keys) as one key whose values are its tuples. A job covers
// each value it loops over (e.g. every Python of a megabuild).
CoverProblem cover_problem(const std::vector<CiJob>& jobs);

}  // namespace sf::feedstock
