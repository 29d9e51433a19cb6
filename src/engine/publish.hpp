#pragma once
// The last phase of an output: its test in a fresh prefix, then broken/ or
// the channel. A test touches neither the work dir's build tree nor the host
// prefix, so it runs on a worker thread while the next output builds; an
// output whose build or host env could pull in the one being tested (its
// requirements reach it through the channels' or this build's depends)
// waits for it. Results are reported
// in plan order whatever finishes first.
#include <future>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "engine/engine_detail.hpp"

namespace sf::engine::detail {

// "[done/total] " in front of each output's line.
struct Tally {
    int total = 0;
    int done = 0;
    std::string next() { return "[" + std::to_string(++done) + "/" + std::to_string(total) + "] "; }
};

// Tests a packaged output and moves it to broken/ (failed) or the channel.
Result<OutputResult> publish_output(Ctx& ctx, const plan::Step& step, BuiltOutput built, const std::string& recipe_dir);

// At most one output being published at a time, on a worker thread.
class Publisher {
public:
    Publisher(Ctx& ctx, Tally& tally) : ctx_(ctx), tally_(tally) {}
    ~Publisher();  // waits for the worker (its result is dropped: the build already failed)
    Publisher(const Publisher&) = delete;
    Publisher& operator=(const Publisher&) = delete;

    // Before building `step`: waits for the output being published when
    // `step`'s envs could need it.
    Result<void> before(const plan::Step& step);
    // A built output: reports the one before it, then publishes this one.
    Result<void> submit(const plan::StagingBuild& b, const plan::Step& step, BuiltOutput built,
                        const std::string& recipe_dir);
    // A step that failed to build, or was skipped: reported after the one before it.
    Result<void> failed(const plan::StagingBuild& b, const plan::Step& step, const Error& e);
    Result<void> skipped(const plan::StagingBuild& b, const plan::Step& step);
    // Waits for and reports the output being published.
    Result<void> drain();

private:
    struct Pending {
        const plan::StagingBuild* build;
        const plan::Step* step;
        std::future<Result<OutputResult>> result;
    };
    // One finished (or failed) output: its row and line, or the build's error.
    Result<void> report(const plan::StagingBuild& b, const plan::Step& step, Result<OutputResult> r);
    // Whether building `step` may read what publishing `pending` adds (publish.cpp).
    bool needs(const plan::StagingBuild& b, const plan::Step& step, const std::string& pending);
    // Each local channel's packages' names and the names they depend on,
    // loaded or kept (channel_deps in publish.cpp); nullopt when a channel
    // does not load.
    std::optional<std::map<std::string, std::set<std::string>>> channel_deps();

    // What channel_deps() read of one channel, and the stat of its
    // repodata.json files then: kept while they are unchanged, so a -c
    // channel is parsed once, not once per output.
    struct ChannelDeps {
        std::vector<long long> stamp;
        std::map<std::string, std::set<std::string>> deps;
    };

    Ctx& ctx_;
    Tally& tally_;
    std::optional<Pending> pending_;
    std::map<std::string, ChannelDeps> channel_deps_;  // by channel path; used on the building thread only
};

}  // namespace sf::engine::detail
