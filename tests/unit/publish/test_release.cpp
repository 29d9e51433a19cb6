// `build --release TAG`: the tag's version as PyTorch's release scripts read
// it (no leading v, nothing from the first '-' on) and the channel labels.
#include <catch2/catch.hpp>

#include "publish/release.hpp"

using namespace sf;

TEST_CASE("release tags: v and -rcN are stripped, anything else is refused", "[publish][release]") {
    auto rc = publish::parse_release_tag("v2.6.0-rc3");
    REQUIRE(rc);
    CHECK(rc->version == "2.6.0");
    CHECK(rc->suffix == "rc3");
    auto final_tag = publish::parse_release_tag("2.6.0");
    REQUIRE(final_tag);
    CHECK(final_tag->version == "2.6.0");
    CHECK(final_tag->suffix.empty());
    CHECK(publish::parse_release_tag("v0.3")->version == "0.3");
    for (const char* bad : {"", "v", "main", "v2.6.0-", "v2..6", "v.2.6", "v2.6.", "2.6.0a1", "ciflow/trunk/1"}) {
        INFO(bad);
        auto r = publish::parse_release_tag(bad);
        REQUIRE_FALSE(r);
        CHECK(r.error().message.find("is not a release tag") != std::string::npos);
    }
}

TEST_CASE("channel labels: nightly builds go to nightly, tags to test, the rest to main", "[publish][release]") {
    CHECK(publish::channel_label(publish::BuildKind::nightly) == "nightly");
    CHECK(publish::channel_label(publish::BuildKind::release) == "test");
    CHECK(publish::channel_label(publish::BuildKind::plain) == "main");
}
