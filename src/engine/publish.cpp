#include "engine/publish.hpp"

#include <fcntl.h>
#include <stdio.h>
#include <sys/stat.h>

#include <map>
#include <set>
#include <vector>
#include <system_error>

#include "channel/index.hpp"
#include "engine/interrupt.hpp"
#include "env/solve.hpp"
#include "types/match_spec.hpp"
#include "util/dir_handle.hpp"

namespace sf::engine::detail {

namespace {

// What says a channel's repodata.json files are the ones read before: for
// each (the platform's, noarch's) whether it is there, and its device,
// inode, size, mtime and ctime. The index writes them by rename (a new
// inode), so a rewrite never keeps a stamp.
std::vector<long long> repodata_stamp(const stdfs::path& channel, const types::Platform& platform) {
    std::vector<long long> stamp;
    for (const std::string& sub : {platform.name(), std::string("noarch")}) {
        struct stat st{};
        if (::stat((channel / sub / "repodata.json").c_str(), &st) != 0) {
            stamp.push_back(-1);
            continue;
        }
        stamp.insert(stamp.end(), {static_cast<long long>(st.st_dev), static_cast<long long>(st.st_ino),
                                   static_cast<long long>(st.st_size), st.st_mtim.tv_sec, st.st_mtim.tv_nsec,
                                   st.st_ctim.tv_sec, st.st_ctim.tv_nsec});
    }
    return stamp;
}

}  // namespace

std::optional<std::map<std::string, std::set<std::string>>> Publisher::channel_deps() {
    const types::Platform& platform = ctx_.opts.selection.platform;
    std::map<std::string, std::set<std::string>> deps;
    for (const auto& ch : ctx_.local_channels) {
        std::vector<long long> stamp = repodata_stamp(ch, platform);
        auto cached = channel_deps_.find(ch.string());
        if (cached == channel_deps_.end() || cached->second.stamp != stamp) {
            auto idx = env::load_channels({ch}, platform);
            if (!idx) return std::nullopt;  // not kept: the next call tries again
            ChannelDeps read{std::move(stamp), {}};
            for (const auto& c : idx->packages)
                for (const auto& d : c.record.depends) read.deps[c.record.name].insert(types::MatchSpec::name_of(d));
            cached = channel_deps_.insert_or_assign(ch.string(), std::move(read)).first;
        }
        for (const auto& [name, names] : cached->second.deps) deps[name].insert(names.begin(), names.end());
    }
    return deps;
}

// Whether building `step` may read what publishing `pending` adds to the
// channel: its build and host requirements reach that name through the
// depends of the local channels' packages or the run requirements of this
// build's outputs (all a solve can pull in). Unsure (a channel that does not
// read) counts as yes.
bool Publisher::needs(const plan::StagingBuild& b, const plan::Step& step, const std::string& pending) {
    auto channels = channel_deps();
    if (!channels) return true;
    std::map<std::string, std::set<std::string>> deps = std::move(*channels);
    for (const auto& s : b.steps)
        for (const auto& d : s.output.requirements.run) deps[s.output.name].insert(d.name());
    std::vector<std::string> todo;
    for (const auto* reqs : {&step.output.requirements.build, &step.output.requirements.host})
        for (const auto& d : *reqs) todo.push_back(d.name());
    std::set<std::string> seen;
    while (!todo.empty()) {
        std::string n = std::move(todo.back());
        todo.pop_back();
        if (n == pending) return true;
        if (!seen.insert(n).second) continue;
        if (auto it = deps.find(n); it != deps.end()) todo.insert(todo.end(), it->second.begin(), it->second.end());
    }
    return false;
}

Result<OutputResult> publish_output(Ctx& ctx, const plan::Step& step, BuiltOutput built, const std::string& recipe_dir) {
    const std::string dist = step.output.dist();
    const stdfs::path& pkg = built.package;
    OutputResult res = std::move(built.result);
    std::error_code ec;
    res.test = "skipped";
    auto mark = std::chrono::steady_clock::now();
    if (ctx.opts.test == TestMode::run) {
        auto t = test_package(ctx, step, pkg, recipe_dir);
        res.steps.test = seconds_since(mark);
        mark = std::chrono::steady_clock::now();
        if (!t && interrupted()) {  // a test killed by Ctrl-C did not fail: the package is not broken
            stdfs::remove(pkg, ec);
            return fail_runtime({}, "interrupted (Ctrl-C) while testing " + dist);
        }
        if (!t) {
            // broken/ below the output folder, never through a symlink; the
            // package is renamed into the handle (a symlink at its name is
            // replaced, never followed).
            auto root = fs::Dir::open(ctx.output, fs::Create::yes);
            auto broken = root ? root->sub("broken", fs::Create::yes) : Result<fs::Dir>(unexpected(root.error()));
            bool moved = broken && ::renameat(AT_FDCWD, pkg.c_str(), broken->fd(), pkg.filename().c_str()) == 0;
            if (!moved) stdfs::remove(pkg, ec);
            if (!broken) return Unexpected<Error>{broken.error()};
            Error e = t.error();
            e.message = dist + ": test: " + e.message + " (package moved to " +
                        (broken->path() / pkg.filename()).string() + ")";
            return Unexpected<Error>{e};
        }
        res.test = *t;
    }
    if (interrupted()) return fail_runtime({}, "interrupted (Ctrl-C) before publishing " + dist);
    auto added = channel::add_package(ctx.output, pkg);
    stdfs::remove(pkg, ec);
    if (!added) {
        Error e = added.error();
        e.message = dist + ": channel: " + e.message;
        return Unexpected<Error>{e};
    }
    res.package = *added;
    res.steps.channel = seconds_since(mark);
    res.seconds = seconds_since(built.started);
    return res;
}

Publisher::~Publisher() {
    if (pending_ && pending_->result.valid()) pending_->result.wait();
}

Result<void> Publisher::report(const plan::StagingBuild& b, const plan::Step& step, Result<OutputResult> r) {
    if (!r) {
        if (interrupted()) return fail_runtime({}, "interrupted (Ctrl-C); the channel holds only complete packages");
        if (ctx_.opts.keep_going == KeepGoing::no) return unexpected(r.error());
        auto f = output_result(b, step, Status::failed, r.error().str());
        ctx_.notice(tally_.next() + f.dist + "  " + f.variant + "  FAILED, going on (--keep-going): " + f.detail);
        ctx_.report.outputs.push_back(std::move(f));
        return {};
    }
    ctx_.progress(tally_.next() + r->dist + "  " + r->variant + "  built, test " + r->test + ", " +
                  fmt_seconds(r->seconds) +
                  (r->rebuilt.empty() ? "" : ", " + std::to_string(r->rebuilt.size()) + " build edges"));
    ctx_.report.outputs.push_back(std::move(*r));
    return {};
}

Result<void> Publisher::drain() {
    if (!pending_) return {};
    Pending p = std::move(*pending_);
    pending_.reset();
    return report(*p.build, *p.step, p.result.get());
}

Result<void> Publisher::before(const plan::Step& step) {
    if (!pending_) return {};
    if (needs(*pending_->build, step, pending_->step->output.name)) return drain();
    return {};
}

Result<void> Publisher::failed(const plan::StagingBuild& b, const plan::Step& step, const Error& e) {
    if (auto ok = drain(); !ok) return ok;
    return report(b, step, unexpected(e));
}

Result<void> Publisher::submit(const plan::StagingBuild& b, const plan::Step& step, BuiltOutput built,
                               const std::string& recipe_dir) {
    if (auto ok = drain(); !ok) {
        std::error_code ec;
        stdfs::remove(built.package, ec);  // never published: the build stops here
        return ok;
    }
    // An external tool's runs stay one at a time (two conda processes on one
    // package cache are not safe): its tests run here, in turn.
    if (ctx_.opts.test == TestMode::skip || !ctx_.test_provider)
        return report(b, step, publish_output(ctx_, step, std::move(built), recipe_dir));
    pending_.emplace(Pending{&b, &step, std::async(std::launch::async, [this, &step, recipe_dir, bo = std::move(built)]() mutable {
                                 return publish_output(ctx_, step, std::move(bo), recipe_dir);
                             })});
    return {};
}

}  // namespace sf::engine::detail
