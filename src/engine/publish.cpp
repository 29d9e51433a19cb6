#include "engine/publish.hpp"

#include <fcntl.h>
#include <stdio.h>

#include <set>
#include <system_error>

#include "channel/index.hpp"
#include "engine/interrupt.hpp"
#include "types/match_spec.hpp"
#include "util/dir_handle.hpp"

namespace sf::engine::detail {

Result<OutputResult> publish_output(Ctx& ctx, const plan::Step& step, BuiltOutput built, const std::string& recipe_dir) {
    const std::string dist = step.output.dist();
    const stdfs::path& pkg = built.package;
    OutputResult res = std::move(built.result);
    std::error_code ec;
    res.test = "skipped";
    if (ctx.opts.test == TestMode::run) {
        auto t = test_package(ctx, step, pkg, recipe_dir);
        if (!t) {
            // broken/ below the output folder, never through a symlink; the
            // package is renamed into the handle (a symlink at its name is
            // replaced, never followed).
            auto root = fs::Dir::open(ctx.output, fs::Create::yes);
            auto broken = root ? root->sub("broken", fs::Create::yes) : Result<fs::Dir>(unexpected(root.error()));
            bool moved = broken && ::renameat(AT_FDCWD, pkg.c_str(), broken->fd(), pkg.filename().c_str()) == 0;
            if (!moved) stdfs::remove(pkg, ec);
            if (interrupted()) return fail("interrupted (Ctrl-C) while testing " + dist);
            if (!broken) return Unexpected<Error>{broken.error()};
            Error e = t.error();
            e.message = dist + ": test: " + e.message + " (package moved to " +
                        (broken->path() / pkg.filename()).string() + ")";
            return Unexpected<Error>{e};
        }
        res.test = *t;
    }
    if (interrupted()) return fail("interrupted (Ctrl-C) before publishing " + dist);
    auto added = channel::add_package(ctx.output, pkg);
    stdfs::remove(pkg, ec);
    if (!added) {
        Error e = added.error();
        e.message = dist + ": channel: " + e.message;
        return Unexpected<Error>{e};
    }
    res.package = *added;
    res.seconds = seconds_since(built.started);
    return res;
}

Publisher::~Publisher() {
    if (pending_ && pending_->result.valid()) pending_->result.wait();
}

Result<void> Publisher::report(const plan::StagingBuild& b, const plan::Step& step, Result<OutputResult> r) {
    if (!r) {
        if (interrupted()) return fail("interrupted (Ctrl-C); the channel holds only complete packages");
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
    const std::string& name = pending_->step->output.name;
    const auto& req = step.output.requirements;
    for (const auto* deps : {&req.build, &req.host})
        for (const auto& d : *deps)
            if (d.name() == name) return drain();
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
    if (ctx_.opts.test == TestMode::skip) return report(b, step, publish_output(ctx_, step, std::move(built), recipe_dir));
    pending_.emplace(Pending{&b, &step, std::async(std::launch::async, [this, &step, recipe_dir, bo = std::move(built)]() mutable {
                                 return publish_output(ctx_, step, std::move(bo), recipe_dir);
                             })});
    return {};
}

}  // namespace sf::engine::detail
