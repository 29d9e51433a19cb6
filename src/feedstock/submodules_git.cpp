// git side of `splitforge submodules`: submodule status and describe, run
// through process::git.
#include <boost/regex.hpp>

#include "feedstock/submodules.hpp"
#include "process/git.hpp"
#include "util/strings.hpp"

namespace sf::feedstock {
namespace {

namespace stdfs = std::filesystem;

// As in ECMAScript and Python's re, ^ and $ match only at the ends of the text and . matches no
// line break (Boost's Perl default would match ^ and $ at every line and . at any character).
constexpr boost::regex::flag_type kEcma = boost::regex::no_mod_s | boost::regex::no_mod_m;

// A checkout's .git/config is the checkout owner's: process::git keeps it
// from running anything.
Result<process::Outcome> git(const stdfs::path& dir, std::vector<std::string> args) {
    process::GitCall c;
    c.repo = dir;
    c.args = std::move(args);
    c.env = process::minimal_env();
    return process::git(c);
}

}  // namespace

std::string Submodule::describe() const {
    if (!tag.empty()) return past_tag ? tag + "+" + std::to_string(past_tag) : tag;
    return commit.substr(0, 7);
}

void apply_describe(Submodule& s, const std::string& out) {
    std::string d(str::trim(out));
    static const boost::regex past(R"((.+)-([0-9]+)-g([0-9a-f]+))", kEcma);
    boost::smatch m;
    if (d.empty() || str::starts_with(s.commit, d)) return;  // no tag: `--always` printed the hash
    if (boost::regex_match(d, m, past)) {
        s.tag = m[1];
        s.past_tag = std::stoi(m[2]);
    } else {
        s.tag = d;
    }
}

Result<std::vector<Submodule>> read_submodules(const stdfs::path& source) {
    std::error_code ec;
    if (!stdfs::is_directory(source, ec))
        return fail(SourceLoc{source.string()}, "source directory does not exist", "pass --source PYTORCH_CHECKOUT");
    auto top = git(source, {"rev-parse", "--show-toplevel"});
    if (!top) return unexpected(top.error());
    if (top->exit_code != 0)
        return fail(SourceLoc{source.string()}, "not a git repository",
                    "point --source at a git checkout, e.g. from `git clone --recursive`");
    auto st = git(source, {"submodule", "status", "--recursive"});
    if (!st) return unexpected(st.error());
    if (st->exit_code != 0)
        return fail(SourceLoc{source.string()}, "git submodule status failed: " + std::string(str::trim(st->err)),
                    "run `git submodule update --init --recursive`");
    std::vector<Submodule> subs;
    static const boost::regex line(R"(([ +U-])([0-9a-f]{40}) (\S+)(?: \((.*)\))?)", kEcma);
    for (const auto& l : str::split_lines(st->out)) {
        boost::smatch m;
        if (!boost::regex_match(l, m, line)) continue;
        Submodule s;
        s.commit = m[2];
        s.path = m[3];
        s.checked_out = m[1] != "-";
        if (s.checked_out) {
            auto d = git(source / s.path, {"describe", "--tags", "--always", "--abbrev=7"});
            if (d && d->exit_code == 0) apply_describe(s, d->out);
        }
        subs.push_back(std::move(s));
    }
    return subs;
}

}  // namespace sf::feedstock
