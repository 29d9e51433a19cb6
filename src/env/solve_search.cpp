// The search: depth-first with backtracking, as an explicit stack of choice
// points (a 20,000-long dependency chain once overflowed the call stack).
// What a step needs is indexed so that it costs what it looks at: the
// candidates a spec matches are computed once per spec text, the constrains
// of chosen packages are kept by name, and which names are still queued is
// known per name; a dead end records its reason as pointers and the message
// is written once, at the end.
#include <algorithm>
#include <set>
#include <optional>

#include "env/solve_detail.hpp"
#include "util/strings.hpp"

namespace sf::env {
namespace detail {

void Budget::check() {
    next_check_ = work_ + 65536;  // the clock is read every 64k units of work
    if (work_ > limits_.max_work) over_ = Over::work;
    else if (memory_ > 0 && static_cast<std::uint64_t>(memory_) > limits_.max_memory) over_ = Over::memory;
    else if (std::chrono::steady_clock::now() - start_ > limits_.max_time) over_ = Over::time;
}

std::string Budget::describe() const {
    switch (over_) {
        case Over::work:
            return "the solver gave up after " + std::to_string(limits_.max_work) +
                   " units of work (requirements taken and candidates compared)";
        case Over::time:
            return "the solver gave up after " + std::to_string(limits_.max_time.count()) + " ms";
        case Over::memory:
            return "the solver gave up: its search state passed " + std::to_string(limits_.max_memory >> 20) + " MiB";
        case Over::none: break;
    }
    return "the solver gave up";
}

}  // namespace detail

namespace {

using detail::Budget;

constexpr size_t kShownAvailable = 10;

struct Pending {
    const types::MatchSpec* spec;
    const Candidate* by;  // who required it; nullptr for a requested spec
};

std::string who(const Candidate* by) { return by ? "required by " + by->record.dist_name() : "requested"; }

// A constraint that rules a candidate out: `con` of chosen `owner` excludes
// `c` (owner_constrains), or `con` of `c` excludes chosen `owner`.
struct Clash {
    const types::MatchSpec* con;
    const Candidate* owner;
    const Candidate* c;
    bool owner_constrains;
    std::string str() const {
        if (owner_constrains) return "excluded by constraint '" + con->str() + "' of " + owner->record.dist_name();
        return c->record.dist_name() + " has constraint '" + con->str() + "' against chosen " +
               owner->record.dist_name();
    }
};

// The candidates a spec matches, in ranked order, without broken or dead
// ones. A dead candidate has a dependency nothing in the index can meet (no
// such name, or no build matches): choosing it always fails, so it is never
// tried, and a requirement left with dead candidates alone fails as the
// search would have one step deeper.
struct Matches {
    std::vector<const Candidate*> ok;
    const Candidate* broken = nullptr;  // the last matching one whose depends do not parse
    const Candidate* dead = nullptr;    // the last dead one
    const types::MatchSpec* dead_dep = nullptr;  // and the dependency nothing meets
};

// Why the deepest dead end failed, kept as pointers; str() writes it.
struct Failure {
    enum class Kind { conflict, missing, clash, broken, no_match };
    size_t depth = 0;
    Pending p{};
    Kind kind = Kind::missing;
    const Candidate* other = nullptr;  // conflict: the chosen one; broken: the broken one
    const Candidate* other_by = nullptr;
    std::optional<Clash> clash;
};

struct Choice {
    const Candidate* c;
    const Candidate* by;
};

// A choice point: the options for queue[pos], and the next one to try.
struct Frame {
    size_t pos, queue_size;
    std::vector<const Candidate*> options;
    size_t next = 0;
};

class Solver {
public:
    Solver(const ChannelIndex& index, const SolveLimits& limits, const std::set<std::string>& host_provided)
        : index_(index), budget_(limits), ranker_(names_, tiers_, budget_) {
        for (const auto& c : index.packages)
            if (!is_virtual(c.record.name)) names_[c.record.name].list.push_back(&c);
        for (const auto& n : host_provided)
            if (!names_.count(n)) host_provided_.insert(n);
    }
    Result<void> pin(const Candidate& p);
    void request(const types::MatchSpec& spec) { push({&spec, nullptr}); }
    Result<std::vector<Candidate>> run();

private:
    enum class Step { done, dead_end, decision, gave_up };
    Step walk(size_t& pos, std::vector<const Candidate*>& options);
    Step take(size_t pos, std::vector<const Candidate*>& options);
    bool next_option(size_t& pos);
    const Matches* matching(const types::MatchSpec* spec);
    bool matches_any(const types::MatchSpec* spec);
    const types::MatchSpec* unmet_dependency(const Candidate* c);
    std::optional<Clash> clash_of(const Candidate& c) const;
    bool doomed(const Candidate* c, size_t pos);
    void choose(const Candidate* c, const Candidate* by);
    void unchoose(size_t queue_size);
    void push(Pending p);
    size_t new_packages(const Candidate* c, size_t pos) const;
    void fewest_first(std::vector<const Candidate*>& options, size_t pos) const;
    bool deeper(size_t depth) const { return !failure_ || depth >= failure_->depth; }
    void note(size_t depth, Pending p, Failure::Kind kind, const Candidate* other = nullptr,
              const Candidate* other_by = nullptr, std::optional<Clash> clash = std::nullopt) {
        failure_ = Failure{depth, p, kind, other, other_by, clash};
    }
    std::string failure_text() const;
    // "; did you mean 'spdlog'?" for a name the channels do not hold (sorted: ties pick the same one each time).
    std::string did_you_mean(std::string_view name) const {
        std::set<std::string> all = index_.all_names;
        for (const auto& [n, entry] : names_) all.emplace(n);
        all.erase(std::string(name));  // held, but its every record left out as invalid
        std::vector<std::string> known(all.begin(), all.end());
        std::string near = str::closest(name, known);
        return near.empty() ? std::string() : "; did you mean '" + near + "'?";
    }
    std::string channel_list() const {
        return index_.channels.empty() ? "(none given; add -c CHANNEL)" : str::join(index_.channels, ", ");
    }

    // Needs no package: virtual (__glibc), or met by the host (SolveRequest::
    // host_provided, less what the channels hold).
    bool met_outside(std::string_view name) const {
        return is_virtual(std::string(name)) || host_provided_.count(std::string(name));
    }

    const ChannelIndex& index_;
    std::set<std::string> host_provided_;
    Budget budget_;
    detail::NameLists names_;
    detail::Tiers tiers_;
    detail::Ranker ranker_;
    std::unordered_map<const types::MatchSpec*, const Matches*> by_spec_;
    std::unordered_map<std::string_view, Matches> by_text_;
    std::unordered_map<std::string_view, bool> any_by_text_;
    std::unordered_map<std::string_view, Choice> chosen_;
    // name -> the constrains on it of chosen packages, in choice order
    std::unordered_map<std::string_view, std::vector<std::pair<const types::MatchSpec*, const Candidate*>>> constrained_;
    std::vector<Pending> queue_;
    std::unordered_map<std::string_view, std::vector<size_t>> queued_at_;  // name -> its queue positions
    std::vector<const Candidate*> order_;
    std::vector<Frame> frames_;
    std::optional<Failure> failure_;
};

const Matches* Solver::matching(const types::MatchSpec* spec) {
    if (auto it = by_spec_.find(spec); it != by_spec_.end()) return it->second;
    auto [it, fresh] = by_text_.try_emplace(spec->str());
    Matches& m = it->second;
    if (fresh) {
        ranker_.rank(spec->name());
        detail::NameEntry& e = names_.at(spec->name());
        budget_.spend(e.list.size());
        for (const Candidate* c : e.list) {
            if (!spec->matches(c->record)) continue;
            if (!c->broken.empty()) m.broken = c;
            else if (auto dep = unmet_dependency(c)) m.dead = c, m.dead_dep = dep;
            else m.ok.push_back(c);
        }
        budget_.hold(static_cast<std::int64_t>(m.ok.size() * sizeof(void*) + 128));
    }
    by_spec_.emplace(spec, &m);
    return &m;
}

// Does any candidate that parses match `spec`? (No ranking needed.)
bool Solver::matches_any(const types::MatchSpec* spec) {
    auto [it, fresh] = any_by_text_.try_emplace(spec->str(), false);
    if (!fresh) return it->second;
    auto e = names_.find(spec->name());
    if (e == names_.end()) return false;
    budget_.spend(e->second.list.size());
    for (const Candidate* c : e->second.list)
        if (c->broken.empty() && spec->matches(c->record)) return it->second = true;
    return false;
}

// The first dependency of `c` that nothing in the index meets, if any.
const types::MatchSpec* Solver::unmet_dependency(const Candidate* c) {
    budget_.spend(c->depends.size());
    for (const auto& d : c->depends)
        if (!met_outside(d.name()) && !matches_any(&d)) return &d;
    return nullptr;
}

std::optional<Clash> Solver::clash_of(const Candidate& c) const {
    if (auto it = constrained_.find(c.record.name); it != constrained_.end())
        for (const auto& [con, owner] : it->second)
            if (!con->matches(c.record)) return Clash{con, owner, &c, true};
    for (const auto& con : c.constrains)
        if (auto it = chosen_.find(con.name()); it != chosen_.end() && !con.matches(it->second.c->record))
            return Clash{&con, it->second.c, &c, false};
    return std::nullopt;
}

// Whether choosing `c` for queue[pos] must fail whatever comes after (a
// dead end found now, not after every choice in between was retried): it
// misses a spec on its name still queued after `pos`, or a dependency of it
// misses what is chosen for that name. Both outlive every choice below this
// one, so skipping `c` changes only how soon the search gets on, never its
// answer. Notes the failure the search would have met.
bool Solver::doomed(const Candidate* c, size_t pos) {
    budget_.spend(c->depends.size() + 1);
    if (auto q = queued_at_.find(c->record.name); q != queued_at_.end())
        for (size_t at : q->second)
            if (at > pos && !queue_[at].spec->matches(c->record)) {
                if (deeper(at)) note(at, queue_[at], Failure::Kind::conflict, c, queue_[pos].by);
                return true;
            }
    for (const auto& d : c->depends) {
        auto it = chosen_.find(d.name());
        if (it == chosen_.end() || d.matches(it->second.c->record)) continue;
        if (deeper(queue_.size())) note(queue_.size(), {&d, c}, Failure::Kind::conflict, it->second.c, it->second.by);
        return true;
    }
    return false;
}

void Solver::push(Pending p) {
    queued_at_[p.spec->name()].push_back(queue_.size());
    queue_.push_back(p);
}

void Solver::choose(const Candidate* c, const Candidate* by) {
    chosen_[c->record.name] = {c, by};
    for (const auto& con : c->constrains) constrained_[con.name()].push_back({&con, c});
    order_.push_back(c);
    for (const auto& d : c->depends) push({&d, c});
    budget_.hold(static_cast<std::int64_t>((c->depends.size() + 1) * (sizeof(Pending) + 16)));
}

// Undoes the last choose(): choices are undone in the reverse order.
void Solver::unchoose(size_t queue_size) {
    const Candidate* c = order_.back();
    order_.pop_back();
    chosen_.erase(c->record.name);
    for (const auto& con : c->constrains) constrained_[con.name()].pop_back();
    while (queue_.size() > queue_size) {
        queued_at_[queue_.back().spec->name()].pop_back();
        queue_.pop_back();
    }
    budget_.hold(-static_cast<std::int64_t>((c->depends.size() + 1) * (sizeof(Pending) + 16)));
}

// How many packages choosing `c` adds: its dependencies' names that are
// neither chosen nor already required by what is still queued after `pos`.
size_t Solver::new_packages(const Candidate* c, size_t pos) const {
    std::vector<std::string_view> fresh;
    for (const auto& d : c->depends) {
        std::string_view n = d.name();
        if (met_outside(d.name()) || n == c->record.name || chosen_.count(n)) continue;
        if (auto q = queued_at_.find(n); q != queued_at_.end() && !q->second.empty() && q->second.back() > pos) continue;
        if (std::find(fresh.begin(), fresh.end(), n) == fresh.end()) fresh.push_back(n);
    }
    return fresh.size();
}

// conda's "fewest packages": among options of one tier (tied on version,
// build number, dependency versions and timestamp), the ones that pull in
// fewer new packages first; otherwise the ranked order stays.
void Solver::fewest_first(std::vector<const Candidate*>& options, size_t pos) const {
    for (auto start = options.begin(); start != options.end();) {
        auto end = start + 1;
        while (end != options.end() && tiers_.at(*end) == tiers_.at(*start)) ++end;
        if (end - start > 1) {
            std::unordered_map<const Candidate*, size_t> adds;
            for (auto it = start; it != end; ++it) adds[*it] = new_packages(*it, pos);
            std::stable_sort(start, end, [&](const Candidate* a, const Candidate* b) { return adds[a] < adds[b]; });
        }
        start = end;
    }
}

// Takes queue[pos]: done with it (satisfied), a dead end, or a decision
// with `options` to try in order.
Solver::Step Solver::take(size_t pos, std::vector<const Candidate*>& options) {
    const Pending p = queue_[pos];
    const std::string& name = p.spec->name();
    if (met_outside(name)) return Step::done;
    if (auto it = chosen_.find(name); it != chosen_.end()) {
        if (p.spec->matches(it->second.c->record)) return Step::done;
        if (deeper(pos)) note(pos, p, Failure::Kind::conflict, it->second.c, it->second.by);
        return Step::dead_end;
    }
    if (!names_.count(name)) {
        if (deeper(pos)) note(pos, p, Failure::Kind::missing);
        return Step::dead_end;
    }
    const Matches* m = matching(p.spec);
    options.clear();
    std::optional<Clash> last_clash;
    budget_.spend(m->ok.size());
    for (const Candidate* c : m->ok) {
        if (auto clash = clash_of(*c)) last_clash = clash;
        else if (!doomed(c, pos)) options.push_back(c);
    }
    if (!options.empty()) {
        fewest_first(options, pos);
        return Step::decision;
    }
    if (m->dead && deeper(pos + 1)) {
        Pending unmet{m->dead_dep, m->dead};
        note(pos + 1, unmet, names_.count(m->dead_dep->name()) ? Failure::Kind::no_match : Failure::Kind::missing);
    } else if (deeper(pos)) {
        if (last_clash) note(pos, p, Failure::Kind::clash, nullptr, nullptr, last_clash);
        else if (m->broken) note(pos, p, Failure::Kind::broken, m->broken);
        else note(pos, p, Failure::Kind::no_match);
    }
    return Step::dead_end;
}

// Takes requirements from `pos` on until the queue is done, a dead end, or a
// choice to make.
Solver::Step Solver::walk(size_t& pos, std::vector<const Candidate*>& options) {
    for (; pos < queue_.size(); ++pos) {
        if (!budget_.spend(1)) return Step::gave_up;
        Step s = take(pos, options);
        if (s != Step::done) return budget_.over() != Budget::Over::none ? Step::gave_up : s;
    }
    return Step::done;
}

// Backtracks to the innermost choice point with an option left and takes
// it; false when none is left.
bool Solver::next_option(size_t& pos) {
    while (!frames_.empty()) {
        Frame& f = frames_.back();
        if (f.next > 0) unchoose(f.queue_size);
        if (f.next == f.options.size()) {
            budget_.hold(-static_cast<std::int64_t>(f.options.size() * sizeof(void*) + sizeof(Frame)));
            frames_.pop_back();
            continue;
        }
        choose(f.options[f.next++], queue_[f.pos].by);
        pos = f.pos + 1;
        return true;
    }
    return false;
}

Result<void> Solver::pin(const Candidate& p) {
    if (auto clash = clash_of(p)) return fail("cannot install " + p.file.filename().string() + ": " + clash->str());
    if (chosen_.count(p.record.name))
        return fail("cannot install " + p.file.filename().string() + ": another " + p.record.name +
                    " package was given too");
    choose(&p, nullptr);
    return {};
}

std::string Solver::failure_text() const {
    if (!failure_) return "cannot satisfy the request";
    const Failure& f = *failure_;
    std::string why;
    switch (f.kind) {
        case Failure::Kind::conflict:
            why = "conflicts with " + f.other->record.dist_name() + " (" + who(f.other_by) + ")";
            break;
        case Failure::Kind::missing:
            why = "no such package in channels " + channel_list() + did_you_mean(f.p.spec->name());
            break;
        case Failure::Kind::clash: why = f.clash->str(); break;
        case Failure::Kind::broken:
            why = f.other->record.dist_name() + " has an invalid dependency: " + f.other->broken;
            break;
        case Failure::Kind::no_match: {
            // The highest few: one line, even for 100k builds (the list may
            // be unranked when only a dead candidate's dependency named it).
            auto list = names_.at(f.p.spec->name()).list;
            size_t shown = std::min(list.size(), kShownAvailable);
            std::partial_sort(list.begin(), list.begin() + static_cast<std::ptrdiff_t>(shown), list.end(),
                              [](const Candidate* a, const Candidate* b) {
                                  return a->record.version.compare(b->record.version) > 0;
                              });
            std::vector<std::string> avail;
            for (size_t i = 0; i < shown; ++i) avail.push_back(list[i]->record.version.str() + " " + list[i]->record.build);
            if (list.size() > kShownAvailable) avail.push_back("and " + std::to_string(list.size() - kShownAvailable) + " more");
            why = "no matching version in channels " + channel_list() + " (available: " + str::join(avail, ", ") + ")";
            break;
        }
    }
    // A record of that name the index left out as invalid is why, more likely.
    auto skipped = index_.skipped.find(f.p.spec->name());
    if ((f.kind == Failure::Kind::missing || f.kind == Failure::Kind::no_match) && skipped != index_.skipped.end())
        why += "; a record of it was left out as invalid: " + skipped->second;
    return "cannot satisfy '" + f.p.spec->str() + "' (" + who(f.p.by) + "): " + why;
}

Result<std::vector<Candidate>> Solver::run() {
    size_t pos = 0;
    std::vector<const Candidate*> options;
    for (;;) {
        Step s = walk(pos, options);
        if (s == Step::done) break;
        if (s == Step::gave_up) return fail(budget_.describe(), "pin some versions to narrow the search");
        if (s == Step::decision) {
            budget_.hold(static_cast<std::int64_t>(options.size() * sizeof(void*) + sizeof(Frame)));
            frames_.push_back({pos, queue_.size(), std::move(options)});
            options = {};
        }
        if (!next_option(pos)) return fail(failure_text());
    }
    // Dependencies first: reverse the choice order (a package is chosen before its deps).
    std::vector<Candidate> out;
    out.reserve(order_.size());
    for (auto it = order_.rbegin(); it != order_.rend(); ++it) out.push_back(**it);
    return out;
}

}  // namespace

Result<std::vector<Candidate>> solve(const ChannelIndex& index, const SolveRequest& request) {
    Solver s(index, request.limits, request.host_provided);
    for (const auto& p : request.pinned)
        if (auto ok = s.pin(p); !ok) return Unexpected<Error>{ok.error()};
    for (const auto& spec : request.specs) s.request(spec);
    return s.run();
}

}  // namespace sf::env
