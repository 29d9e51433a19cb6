#include "util/duration.hpp"

#include <cctype>

namespace sf::util {

std::optional<std::chrono::seconds> parse_duration(std::string_view text) {
    static constexpr char kUnits[] = {'h', 'm', 's'};
    static constexpr long kScale[] = {3600, 60, 1};
    long total = 0;
    size_t unit = 0, i = 0;
    while (i < text.size()) {
        size_t start = i;
        long n = 0;
        while (i < text.size() && std::isdigit(static_cast<unsigned char>(text[i])) && i - start < 6)
            n = n * 10 + (text[i++] - '0');
        if (i == start || i == text.size()) return std::nullopt;  // no digits, or no unit after them
        while (unit < 3 && kUnits[unit] != text[i]) ++unit;       // units only in h, m, s order
        if (unit == 3) return std::nullopt;
        total += n * kScale[unit++];
        ++i;
    }
    if (text.empty()) return std::nullopt;
    return std::chrono::seconds(total);
}

}  // namespace sf::util
