#pragma once
// Key-value lists as the variant stage keeps them (a config's keys, a
// variant's values: vector<pair<key, value>>, in file order), and an index
// over one. Internal to src/variant/ (config.cpp reads and merges configs,
// matrix.cpp explodes them).
#include <algorithm>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

namespace sf::variant::detail {

template <class V>
V* find_key(std::vector<std::pair<std::string, V>>& kv, const std::string& key) {
    for (auto& [k, v] : kv)
        if (k == key) return &v;
    return nullptr;
}
template <class V>
const V* find_key(const std::vector<std::pair<std::string, V>>& kv, const std::string& key) {
    for (const auto& [k, v] : kv)
        if (k == key) return &v;
    return nullptr;
}
template <class V>
void put(std::vector<std::pair<std::string, V>>& kv, const std::string& key, V value) {
    if (V* v = find_key(kv, key))
        *v = std::move(value);
    else
        kv.emplace_back(key, std::move(value));
}

// The positions of a key-value list's keys (the first of a repeated one, as
// find_key), so a loop over a config's keys finds each in O(1): a config of
// 100k keys costs 100k lookups, not 100k scans of 100k keys.
template <class V>
class KeyIndex {
public:
    KeyIndex() = default;
    explicit KeyIndex(const std::vector<std::pair<std::string, V>>& kv) {
        for (size_t i = 0; i < kv.size(); ++i) pos_.try_emplace(kv[i].first, i);
    }
    template <class List>
    auto* find(List& kv, const std::string& key) const {
        auto it = pos_.find(key);
        return it == pos_.end() ? nullptr : &kv[it->second].second;
    }
    void put(std::vector<std::pair<std::string, V>>& kv, const std::string& key, V value) {
        auto [it, fresh] = pos_.try_emplace(key, kv.size());
        if (fresh) kv.emplace_back(key, std::move(value));
        else kv[it->second].second = std::move(value);
    }

private:
    std::unordered_map<std::string, size_t> pos_;
};

inline void append_unique(std::vector<std::string>& to, const std::vector<std::string>& from) {
    for (const auto& v : from)
        if (std::find(to.begin(), to.end(), v) == to.end()) to.push_back(v);
}

}  // namespace sf::variant::detail
