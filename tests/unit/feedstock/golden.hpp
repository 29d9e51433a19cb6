#pragma once
// Golden-file comparison for the feedstock tests (SF_UPDATE_SNAPSHOTS=1 rewrites).
#include <catch2/catch.hpp>

#include "testutil.hpp"
#include "util/fs.hpp"
#include "util/strings.hpp"

namespace sf::test {

inline void check_golden(const std::filesystem::path& golden, const std::string& actual) {
    if (update_snapshots()) {
        std::filesystem::create_directories(golden.parent_path());
        REQUIRE(fs::write_file_atomic(golden, actual));
        return;
    }
    INFO("golden file: " << golden.string() << " (SF_UPDATE_SNAPSHOTS=1 to rewrite)");
    REQUIRE(std::filesystem::exists(golden));
    CHECK(slurp(golden) == actual);
}

// Paths under tests/data print relative to it, so goldens do not depend on
// where the checkout lives.
inline std::string relative_to_data(std::string text) {
    return str::replace_all(std::move(text), data_dir().string() + "/", "");
}

}  // namespace sf::test
