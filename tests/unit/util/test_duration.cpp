// util/duration: the durations CI configs and `build --time-limit` take.
#include <catch2/catch.hpp>

#include "util/duration.hpp"

using sf::util::parse_duration;
using std::chrono::seconds;

TEST_CASE("parse_duration reads hours, minutes and seconds in that order", "[util][duration]") {
    CHECK(parse_duration("5h30m") == seconds(5 * 3600 + 30 * 60));
    CHECK(parse_duration("90m") == seconds(90 * 60));
    CHECK(parse_duration("45s") == seconds(45));
    CHECK(parse_duration("1h0m30s") == seconds(3630));
    CHECK(parse_duration("6h") == seconds(6 * 3600));
    CHECK(parse_duration("0s") == seconds(0));
}

TEST_CASE("parse_duration refuses what is not that form", "[util][duration]") {
    for (const char* bad : {"", "330", "5h 30m", "1d", "30m5h", "1h1h", "h", "5h30", "-5m", "1234567s", "5H"}) {
        INFO(bad);
        CHECK_FALSE(parse_duration(bad));
    }
}
