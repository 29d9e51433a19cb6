// The variant matrix: the product of a combined spec's lists (zipped keys
// advancing together), and the filters over it (filter_by, loop_vars,
// reduce), as conda-build's variants.py explodes and reduces it.
#include <algorithm>
#include <set>
#include <unordered_map>
#include <unordered_set>

#include "variant/config.hpp"
#include "variant/key_list.hpp"
#include "variant/limits.hpp"
#include "util/strings.hpp"

namespace sf::variant {
namespace {

using detail::append_unique;
using detail::find_key;
using detail::KeyIndex;

// A key's value in one variant of a matrix, whose variants share one key
// order (product()): `at` holds the positions in the first.
const std::string* value_at(const Variant& v, const std::unordered_map<std::string, size_t>& at, const std::string& key) {
    auto it = at.find(key);
    if (it == at.end()) return nullptr;
    if (it->second < v.values.size() && v.values[it->second].first == key) return &v.values[it->second].second;
    return v.get(key);
}

std::unordered_map<std::string, size_t> positions(const std::vector<Variant>& variants) {
    std::unordered_map<std::string, size_t> at;
    if (!variants.empty())
        for (size_t i = 0; i < variants.front().values.size(); ++i) at.try_emplace(variants.front().values[i].first, i);
    return at;
}

}  // namespace

namespace {

// Product over the explode keys; zipped keys advance together.
std::vector<Variant> product(const std::vector<std::pair<std::string, std::vector<std::string>>>& lists,
                             const Specials& sp) {
    struct Axis {
        std::vector<std::string> keys;
        std::vector<std::vector<std::string>> rows;  // each row: one value per key
    };
    std::vector<Axis> axes;
    std::set<std::string> done;
    for (const auto& [k, v] : lists) {
        if (done.count(k) || sp.is_special(k)) continue;
        Axis a;
        if (const auto* g = sp.zip_group_of(k)) {
            a.keys = *g;
            size_t n = SIZE_MAX;
            for (const auto& gk : *g) n = std::min(n, find_key(lists, gk) ? find_key(lists, gk)->size() : 0);
            for (size_t i = 0; i < n; ++i) {
                std::vector<std::string> row;
                for (const auto& gk : *g) row.push_back(find_key(lists, gk)->at(i));
                a.rows.push_back(std::move(row));
            }
            done.insert(g->begin(), g->end());
        } else {
            a.keys = {k};
            for (const auto& x : v) a.rows.push_back({x});
            done.insert(k);
        }
        if (a.rows.empty()) continue;  // empty lists are dropped
        axes.push_back(std::move(a));
    }
    // Each variant is built once, its axes read as the digits of its index
    // (the last axis varies fastest); matrix sizes are capped before this.
    size_t total = 1, width = 0;
    for (const auto& a : axes) total *= a.rows.size(), width += a.keys.size();
    std::vector<Variant> out(total);
    for (size_t n = 0; n < total; ++n) {
        Variant& v = out[n];
        v.values.reserve(width);
        size_t stride = total;
        for (const auto& a : axes) {
            stride /= a.rows.size();
            const auto& row = a.rows[(n / stride) % a.rows.size()];
            for (size_t i = 0; i < a.keys.size(); ++i) v.values.emplace_back(a.keys[i], row[i]);
        }
    }
    return out;
}

}  // namespace

std::vector<Variant> filter_by(std::vector<Variant> variants, const std::string& key,
                               const std::vector<std::string>& values) {
    auto keep = [&](const Variant& v) {
        const std::string* x = v.get(key);
        return x && std::find(values.begin(), values.end(), *x) != values.end();
    };
    if (std::none_of(variants.begin(), variants.end(), keep)) return variants;
    variants.erase(std::remove_if(variants.begin(), variants.end(), [&](const Variant& v) { return !keep(v); }),
                   variants.end());
    return variants;
}

std::vector<Variant> explode(const CombinedSpec& spec) {
    auto variants = product(spec.lists, spec.specials);
    const auto at = positions(variants);  // filter_by keeps the order
    // conda-build's filter_combined_spec_to_used_keys: each key narrows the
    // matrix to its values in the latest source that sets it (defaults
    // excluded), unless that would remove everything. Only the latest: an
    // earlier file's list was replaced, not intersected (`-m` with
    // [openblas, mkl, blis] over a recipe's [generic, mkl] gives all three).
    // The narrowing matters where combine kept an earlier list: a file that
    // sets one key of a zip group to a subset of its values.
    std::set<std::string> seen;
    for (auto it = spec.sources.rbegin(); it != spec.sources.rend(); ++it) {
        if (it->name == "<defaults>") continue;
        for (const auto& entry : it->lists) {
            // Named, not structured bindings: clang < 16 cannot capture those.
            const auto& k = entry.first;
            const auto& vs = entry.second;
            if (spec.specials.is_special(k) || !seen.insert(k).second) continue;
            // Most keys narrow nothing: look before copying the matrix.
            bool narrows = std::any_of(variants.begin(), variants.end(), [&](const Variant& v) {
                const std::string* x = value_at(v, at, k);
                return !x || std::find(vs.begin(), vs.end(), *x) == vs.end();
            });
            if (narrows) variants = filter_by(std::move(variants), k, vs);
        }
    }
    return variants;
}

std::vector<std::string> loop_vars(const std::vector<Variant>& variants, const Specials& sp,
                                   const std::vector<std::string>& used) {
    std::vector<std::string> out;
    if (variants.empty()) return out;
    for (const auto& [k, v] : variants.front().values)
        if (!sp.is_special(k) && std::find(used.begin(), used.end(), k) != used.end()) out.push_back(k);
    return out;
}

std::vector<Variant> reduce(const std::vector<Variant>& variants, const Specials& sp,
                            const std::vector<std::string>& used) {
    if (variants.empty()) return variants;
    const std::unordered_set<std::string> used_set(used.begin(), used.end());
    auto is_used = [&](const std::string& k) { return used_set.count(k) > 0; };
    const auto at = positions(variants);
    auto value_or = [&](const Variant& v, const std::string& k) {
        const std::string* x = value_at(v, at, k);
        return x ? *x : std::string();
    };
    // Squish to key -> unique values (first-seen order); zip groups as unique rows.
    std::vector<std::pair<std::string, std::vector<std::string>>> lists;
    for (const auto& [k, x] : variants.front().values) lists.emplace_back(k, std::vector<std::string>{});
    const KeyIndex<std::vector<std::string>> index(lists);
    for (auto& [k, vals] : lists) {
        const auto* g = sp.zip_group_of(k);
        if (g) continue;
        // Only a used key keeps more than its first value.
        for (const auto& v : variants) {
            append_unique(vals, {value_or(v, k)});
            if (!is_used(k)) break;
        }
    }
    for (const auto& g : sp.zip_keys) {
        bool present = std::all_of(g.begin(), g.end(), [&](const std::string& k) { return index.find(lists, k) != nullptr; });
        if (!present) continue;
        bool group_used = std::any_of(g.begin(), g.end(), is_used);
        std::vector<std::vector<std::string>> rows;
        for (const auto& v : variants) {
            std::vector<std::string> row;
            for (const auto& k : g) row.push_back(value_or(v, k));
            if (std::find(rows.begin(), rows.end(), row) == rows.end()) rows.push_back(row);
            if (!group_used) break;
        }
        for (size_t i = 0; i < g.size(); ++i) {
            auto* vals = index.find(lists, g[i]);
            for (const auto& row : rows) vals->push_back(row[i]);
        }
    }
    return product(lists, sp);
}

}  // namespace sf::variant
