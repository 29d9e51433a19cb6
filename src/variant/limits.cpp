#include "variant/limits.hpp"

#include <set>

#include "util/strings.hpp"

namespace sf::variant {

Result<void> check_matrix_size(const CombinedSpec& spec) {
    auto size_of = [&](const std::string& k) -> std::size_t {
        const auto* v = spec.get(k);
        return v ? v->size() : 0;
    };
    std::set<std::string> done;
    std::vector<std::string> factors;
    SourceLoc where;  // where the longest list was set
    double total = 1;
    std::size_t longest = 0;  // may overflow an integer; only compared with the bound
    for (const auto& [k, v] : spec.lists) {
        if (done.count(k) || spec.specials.is_special(k)) continue;
        std::size_t n = 0;
        std::string label = k;
        if (const auto* g = spec.specials.zip_group_of(k)) {
            n = SIZE_MAX;
            for (const auto& gk : *g) n = std::min(n, size_of(gk));
            label = "(" + str::join(*g, ", ") + ")";
            done.insert(g->begin(), g->end());
        } else {
            n = v.size();
            done.insert(k);
        }
        if (n <= 1) continue;
        if (auto it = spec.origin.find(k); it != spec.origin.end() && (factors.empty() || n > longest)) {
            where = it->second;
            longest = n;
        }
        total *= static_cast<double>(n);
        factors.push_back(label + ": " + std::to_string(n));
    }
    if (total <= static_cast<double>(kMaxVariants)) return {};
    std::string n = total < 1e18 ? std::to_string(static_cast<unsigned long long>(total)) : "more than 10^18";
    return fail(where, "the variant matrix has " + n + " combinations (" + str::join(factors, " x ") +
                                 "), more than the limit of " + std::to_string(kMaxVariants),
                "use fewer values, or zip_keys to tie keys together");
}

}  // namespace sf::variant
