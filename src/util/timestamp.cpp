#include "util/timestamp.hpp"

#include <sys/stat.h>

#include <cerrno>
#include <cstdlib>
#include <system_error>

#include "util/fs.hpp"

namespace sf::timestamp {

std::optional<std::int64_t> source_date_epoch() {
    const char* v = std::getenv("SOURCE_DATE_EPOCH");
    if (!v || !*v) return std::nullopt;
    char* end = nullptr;
    errno = 0;
    long long t = std::strtoll(v, &end, 10);
    if (errno != 0 || *end != '\0' || t < 0) return std::nullopt;
    return t;
}

std::int64_t reproducible(const std::vector<std::filesystem::path>& inputs) {
    if (auto sde = source_date_epoch()) return *sde;
    std::optional<std::int64_t> newest;
    for (const auto& p : inputs) {
        std::error_code ec;
        std::optional<std::int64_t> t;
        if (std::filesystem::is_directory(p, ec)) {
            t = fs::newest_mtime(p);
        } else if (struct stat st {}; ::lstat(p.c_str(), &st) == 0) {
            t = st.st_mtime;
        }
        if (t && (!newest || *t > *newest)) newest = t;
    }
    return newest.value_or(0);
}

}  // namespace sf::timestamp
