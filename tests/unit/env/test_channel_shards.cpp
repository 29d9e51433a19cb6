// env/channel_shards.hpp: where a shard index sends its shards and packages,
// and what it refuses (each one error line naming the index).
#include <catch2/catch.hpp>

#include "env/channel_shards.hpp"

using namespace sf;

namespace {

std::string str8(const std::string& s) { return std::string(1, static_cast<char>(0xa0 | s.size())) + s; }

// {"shards": {name: bin(hash)}} in msgpack, by hand.
std::string index_with(const std::string& name, const std::string& hash_bytes) {
    return std::string("\x81", 1) + str8("shards") + std::string("\x81", 1) + str8(name) + std::string("\xc4", 1) +
           std::string(1, static_cast<char>(hash_bytes.size())) + hash_bytes;
}

env::ChannelRef channel() {
    env::ChannelRef ch;
    ch.url = "https://u:pw@example.org/t/tok-123/ch";
    ch.display = "https://<USER>:<PASSWORD>@example.org/t/<TOKEN>/ch";
    return ch;
}

}  // namespace

TEST_CASE("resolve_dir_url") {
    const std::string idx = "https://h.org/t/tok/ch/linux-64/repodata_shards.msgpack.zst";
    CHECK(env::resolve_dir_url(idx, "") == "https://h.org/t/tok/ch/linux-64/");
    CHECK(env::resolve_dir_url(idx, "./shards/") == "https://h.org/t/tok/ch/linux-64/shards/");
    CHECK(env::resolve_dir_url(idx, "shards") == "https://h.org/t/tok/ch/linux-64/shards/");
    CHECK(env::resolve_dir_url(idx, "../../pkgs/") == "https://h.org/t/tok/pkgs/");
    CHECK(env::resolve_dir_url(idx, "/shards/") == "https://h.org/shards/");
    CHECK(env::resolve_dir_url(idx, "https://cdn.example/s") == "https://cdn.example/s/");
    // Never above the host.
    CHECK(env::resolve_dir_url("https://h.org/a/x.zst", "../../../../b/") == "https://h.org/b/");
}

TEST_CASE("read_shard_index") {
    const std::string url = channel().url + "/linux-64/repodata_shards.msgpack.zst";
    SECTION("a name and its shard's hash, shards and packages beside the index by default") {
        auto got = env::read_shard_index(channel(), "linux-64", url, index_with("zlib", std::string(32, '\xab')));
        REQUIRE(got);
        std::string hex;
        for (int i = 0; i < 32; ++i) hex += "ab";
        CHECK(got->shards.at("zlib") == hex);
        CHECK(got->shards_base == channel().url + "/linux-64/shards/");
        CHECK(got->package_base == channel().url + "/linux-64/");
    }
    SECTION("a hash that is no sha256 is one error naming the index, masked") {
        auto got = env::read_shard_index(channel(), "linux-64", url, index_with("zlib", "abc"));
        REQUIRE_FALSE(got);
        CHECK(got.error().message == "not a shard index: the shard of 'zlib' is no sha256");
        CHECK(got.error().loc.file.find("tok-123") == std::string::npos);
        CHECK(got.error().loc.file.find("pw") == std::string::npos);
    }
    SECTION("bytes that are not msgpack") {
        auto got = env::read_shard_index(channel(), "linux-64", url, std::string("\xc1", 1));
        REQUIRE_FALSE(got);
        CHECK(got.error().message.rfind("not valid msgpack", 0) == 0);
    }
    SECTION("msgpack that is not an index") {
        auto got = env::read_shard_index(channel(), "linux-64", url, std::string("\x90", 1));  // []
        REQUIRE_FALSE(got);
        CHECK(got.error().message == "not a shard index: no \"shards\" map");
    }
}
