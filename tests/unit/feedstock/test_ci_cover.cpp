// The PR subset: min_cover is a cover, and no smaller one exists (brute force
// over every subset of small random problems); the fallback keeps a cover and
// a true lower bound; cover_problem reads zip groups as one key.
#include <catch2/catch.hpp>

#include <random>

#include "feedstock/ci_cover.hpp"
#include "feedstock/ci_matrix.hpp"
#include "testutil.hpp"

using namespace sf;
using namespace sf::feedstock;

namespace {

bool covers(const CoverProblem& p, const std::vector<int>& chosen) {
    std::vector<char> hit(p.items.size(), 0);
    for (int j : chosen)
        for (int i : p.sets[static_cast<size_t>(j)]) hit[static_cast<size_t>(i)] = 1;
    return std::all_of(hit.begin(), hit.end(), [](char c) { return c != 0; });
}

// The size of the smallest cover, by trying every subset.
int brute_force(const CoverProblem& p) {
    const int n = static_cast<int>(p.sets.size());
    int best = n + 1;
    for (unsigned mask = 0; mask < (1u << n); ++mask) {
        std::vector<int> chosen;
        for (int j = 0; j < n; ++j)
            if (mask & (1u << j)) chosen.push_back(j);
        if (static_cast<int>(chosen.size()) < best && covers(p, chosen)) best = static_cast<int>(chosen.size());
    }
    return best;
}

// Random jobs over `items` items; every item is held by some job.
CoverProblem random_problem(std::mt19937& rng, int jobs, int items) {
    CoverProblem p;
    for (int i = 0; i < items; ++i) p.items.push_back("k" + std::to_string(i) + "=v");
    std::bernoulli_distribution take(0.3);
    p.sets.assign(static_cast<size_t>(jobs), {});
    for (int i = 0; i < items; ++i) {
        bool any = false;
        for (int j = 0; j < jobs; ++j)
            if (take(rng)) p.sets[static_cast<size_t>(j)].push_back(i), any = true;
        if (!any) p.sets[rng() % static_cast<unsigned>(jobs)].push_back(i);
    }
    for (auto& s : p.sets) std::sort(s.begin(), s.end());
    return p;
}

}  // namespace

TEST_CASE("min_cover is minimal: brute force over all subsets of 400 random small problems") {
    std::mt19937 rng(20261202);
    int worse_greedy = 0;
    for (int round = 0; round < 400; ++round) {
        int jobs = 1 + static_cast<int>(rng() % 12), items = 1 + static_cast<int>(rng() % 14);
        auto p = random_problem(rng, jobs, items);
        auto c = min_cover(p);
        INFO("round " << round << ": " << jobs << " jobs, " << items << " items");
        REQUIRE(covers(p, c.chosen));
        int best = brute_force(p);
        CHECK(static_cast<int>(c.chosen.size()) == best);
        CHECK(c.method == Cover::Method::exact);
        CHECK(c.lower_bound == best);
        REQUIRE(c.why.size() == c.chosen.size());
        for (const auto& w : c.why) CHECK(!w.empty());  // minimal: each job is the only one for something
        CHECK(std::is_sorted(c.chosen.begin(), c.chosen.end()));
        // The fallback with no search: still a cover, and its bound is true.
        CoverLimits none;
        none.max_nodes = 0;
        auto g = min_cover(p, none);
        REQUIRE(covers(p, g.chosen));
        CHECK(g.lower_bound <= best);
        CHECK(static_cast<int>(g.chosen.size()) >= best);
        CHECK((g.method == Cover::Method::exact) == (g.lower_bound == static_cast<int>(g.chosen.size())));
        if (g.chosen.size() > c.chosen.size()) ++worse_greedy;
    }
    // The random cases are hard enough that greedy alone misses the minimum
    // in some: the exact search is doing work.
    CHECK(worse_greedy > 0);
}

TEST_CASE("min_cover: past the size limit it is greedy with a proven bound") {
    CoverProblem p;
    // Two jobs of seven items each do it; greedy takes the job of eight
    // first, then needs two more (the classic trap).
    for (int i = 0; i < 14; ++i) p.items.push_back("k=" + std::to_string(i));
    p.sets = {{0, 1, 2, 3, 4, 5, 6}, {7, 8, 9, 10, 11, 12, 13}, {0, 1, 2, 3, 7, 8, 9, 10}, {4, 5, 11, 12}, {6, 13}};
    auto exact = min_cover(p);
    CHECK(exact.chosen == std::vector<int>{0, 1});
    CHECK(exact.method == Cover::Method::exact);
    CoverLimits small;
    small.max_jobs = 2;
    auto g = min_cover(p, small);
    CHECK(g.method == Cover::Method::greedy);
    CHECK(g.chosen == std::vector<int>{2, 3, 4});
    CHECK(g.lower_bound == 2);
}

TEST_CASE("cover_problem: a zip group is one key, CI keys are left out, every looped value counts") {
    CiJob a, b;
    a.name = "a";
    a.keys = {{"github_actions_labels", {"big"}}, {"numpy", {"1.26", "2.0"}}, {"python", {"3.11", "3.12"}},
              {"target_platform", {"linux-64"}}};
    a.zip_keys = {{"python", "numpy"}};
    b.name = "b";
    b.keys = {{"numpy", {"2.0"}}, {"python", {"3.12"}}, {"target_platform", {"osx-64"}}};
    b.zip_keys = {{"python", "numpy"}};
    auto p = cover_problem({a, b});
    CHECK(p.items == std::vector<std::string>{"python=3.11,numpy=1.26", "python=3.12,numpy=2.0",
                                              "target_platform=linux-64", "target_platform=osx-64"});
    CHECK(p.sets[0] == std::vector<int>{0, 1, 2});
    CHECK(p.sets[1] == std::vector<int>{1, 3});
    auto pr = pr_subset({a, b});
    REQUIRE(pr.jobs.size() == 2);
    CHECK(pr.why[1] == std::vector<std::string>{"target_platform=osx-64"});
}

TEST_CASE("ci-matrix --subset pr on the repository's variants/: every value, fewest jobs, each explained") {
    auto out = ci_matrix(test::source_dir() / "variants", MatrixFormat::json, MatrixSubset::pr);
    REQUIRE(out);
    auto j = nlohmann::json::parse(*out);
    auto all = nlohmann::json::parse(*ci_matrix(test::source_dir() / "variants", MatrixFormat::json));
    // Five platforms, and on osx-64 two BLAS x five Pythons of one per job:
    // the Pythons need five jobs off Linux, the platforms one each.
    REQUIRE(j.is_array());
    CHECK(j.size() < all.size());
    for (const auto& e : j) CHECK(!e["covers"].empty());
    std::vector<CiJob> jobs, chosen;
    for (const auto& e : all) {
        auto job = read_job_file(test::source_dir() / "variants" / e["file"].get<std::string>());
        REQUIRE(job);
        jobs.push_back(*job);
    }
    auto pr = pr_subset(jobs);
    CHECK(pr.cover.method == Cover::Method::exact);
    CHECK(pr.jobs.size() == j.size());
    auto p = cover_problem(jobs);
    CHECK(covers(p, pr.cover.chosen));
    auto text = ci_matrix(test::source_dir() / "variants", MatrixFormat::text, MatrixSubset::pr);
    REQUIRE(text);
    CHECK(text->find("no fewer jobs do (exact search)") != std::string::npos);
    CHECK(text->find("the only job for: ") != std::string::npos);
}
