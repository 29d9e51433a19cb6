#pragma once
// typing_of (config.hpp) for every value of a spec: the source that set each
// key found once, not by a scan of every source per value (a recipe config
// of 100k keys would make that 100k scans of 100k keys).
#include <string>
#include <unordered_map>

#include "variant/config.hpp"

namespace sf::variant {

class TypingIndex {
public:
    explicit TypingIndex(const CombinedSpec& spec);  // `spec` outlives it
    ScalarTyping of(const std::string& key, const std::string& value) const;
    bool plain(const std::string& key, const std::string& value) const {
        return of(key, value) == ScalarTyping::marked_yaml;
    }

private:
    std::unordered_map<std::string, const SpecSource*> last_;  // the latest source with the key
};

}  // namespace sf::variant
