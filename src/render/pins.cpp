#include "render/pins.hpp"

#include <algorithm>
#include <cctype>
#include <vector>

#include "render/pin_text.hpp"
#include "types/version.hpp"
#include "util/pyregex.hpp"
#include "util/strings.hpp"

namespace sf::render {
namespace {

// One place of a conda version: a number or a string.
struct Place {
    bool is_num = false;
    long long num = 0;
    std::string text;
    std::string str() const { return is_num ? std::to_string(num) : text; }
};

// conda's VersionOrder component split, flattened: "2.13.0" -> [2, 13, 0],
// "1.0rc1" -> [1, 0, rc, 1]. `last_list` is the index of the last component
// that holds more than... (conda-build calls it the nesting position: the
// index of the last component, after which no dot is written).
std::vector<Place> flatten(const std::string& version, size_t& nesting_position) {
    std::string v = str::lower(version);
    if (auto bang = v.find('!'); bang != std::string::npos) v = v.substr(bang + 1);
    if (auto plus = v.find('+'); plus != std::string::npos) v = v.substr(0, plus);
    v = str::replace_all(v, "_", ".");
    std::vector<Place> flat;
    auto comps = str::split(v, '.');
    for (size_t ci = 0; ci < comps.size(); ++ci) {
        const std::string& c = comps[ci];
        std::vector<Place> parts;
        size_t i = 0;
        while (i < c.size()) {
            Place p;
            if (std::isdigit(static_cast<unsigned char>(c[i]))) {
                size_t j = i;
                while (j < c.size() && std::isdigit(static_cast<unsigned char>(c[j]))) ++j;
                p.is_num = true;
                p.num = std::stoll(c.substr(i, j - i));
                i = j;
            } else {
                size_t j = i;
                while (j < c.size() && !std::isdigit(static_cast<unsigned char>(c[j]))) ++j;
                p.text = c.substr(i, j - i);
                i = j;
            }
            parts.push_back(p);
        }
        if (parts.empty() || !parts.front().is_num) parts.insert(parts.begin(), Place{true, 0, ""});
        nesting_position = ci;
        flat.insert(flat.end(), parts.begin(), parts.end());
    }
    return flat;
}

std::string increment(const Place& p, bool alpha_ver) {
    if (p.is_num) return std::to_string(p.num + 1) + (alpha_ver ? "a" : ".0a0");
    std::string t = p.text;
    if (!t.empty()) t[0] = static_cast<char>(t[0] + 1);
    return t.substr(0, 1);
}

bool is_alpha(const std::string& s) {
    if (s.empty()) return false;
    for (char c : s)
        if (!std::isalpha(static_cast<unsigned char>(c))) return false;
    return true;
}

}  // namespace

std::string apply_pin_expressions(const std::string& version, const std::string& min_pin,
                                  const std::string& max_pin) {
    size_t nesting = 0;
    auto flat = flatten(version, nesting);
    auto count = [](const std::string& p) { return p.empty() ? 0 : str::split(p, '.').size(); };
    size_t pins[2] = {count(min_pin), count(max_pin)};
    if (!max_pin.empty() && count(max_pin) > flat.size()) pins[1] = flat.size();
    std::string versions[2];
    for (int idx = 0; idx < 2; ++idx) {
        size_t pin = pins[idx];
        if (!pin) continue;
        for (size_t v_idx = 0; v_idx < std::min(pin, flat.size()); ++v_idx) {
            std::string v = flat[v_idx].str();
            if (idx == 1 && v_idx == pin - 1) {
                bool alpha = is_alpha(flat[std::min(pin, flat.size() - 1)].str());
                v = increment(flat[v_idx], alpha);
            }
            versions[idx] += v;
            if (v_idx != nesting) versions[idx] += '.';
        }
        if (!versions[idx].empty() && versions[idx].back() == '.') versions[idx].pop_back();
    }
    std::vector<std::string> out;
    if (!versions[0].empty()) {
        // A pre-release (1.1.1q sorts before 1.1.1) is its own lower bound.
        std::string v = version;
        if (str::ends_with(v, ".*")) v.resize(v.size() - 2);
        else if (str::ends_with(v, "*")) v.resize(v.size() - 1);
        auto have = types::Version::parse(v);
        auto bound = types::Version::parse(versions[0]);
        if (have && bound && *have < *bound) versions[0] = version;
        out.push_back(">=" + versions[0]);
    }
    if (!versions[1].empty()) out.push_back("<" + versions[1]);
    return str::join(out, ",");
}

namespace {

const char* const kNeedsStar = R"(([\w\d\.\-\_]+)\s+((?<![><=])[\w\d\.\-\_]+?(?!\*))(\s+[\w\d\.\_]+)?$)";

std::string finish(const std::string& spec, const std::string& name, const std::string& version, size_t end) {
    if ((name == "python" || name == "numpy") && version == "x.x") return name + " " + version + spec.substr(end);
    if (spec.find('*') != std::string::npos) return spec;
    return name + " " + version + ".*" + spec.substr(end);
}

}  // namespace

std::string ensure_valid_spec_by_regex(const std::string& spec) {
    static const PyRegex needs_star(kNeedsStar);
    auto m = needs_star.match(spec);
    if (!m || m->group(3)) return spec;
    return finish(spec, m->str(1), m->str(2), m->length);
}

// re.match(kNeedsStar, spec) by hand on ASCII: NAME \s+ VERSION, then an
// optional \s+ BUILD, then the end (or a final newline); a VERSION followed
// by '*' never matches.
std::string ensure_valid_spec(const std::string& spec) {
    if (!str::is_ascii(spec)) return ensure_valid_spec_by_regex(spec);
    auto word = [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '.'; };
    auto name_char = [&](char c) { return word(c) || c == '-'; };
    const size_t n = spec.size();
    auto run = [&](size_t i, auto pred) {
        while (i < n && pred(spec[i])) ++i;
        return i;
    };
    auto at_end = [&](size_t i) { return i == n || (i + 1 == n && spec[i] == '\n'); };
    size_t a = run(0, name_char);
    size_t b = run(a, str::is_py_space);
    size_t c = run(b, name_char);
    if (a == 0 || b == a || c == b || (c < n && spec[c] == '*')) return spec;
    size_t d = run(c, str::is_py_space);
    if (d > c) {
        size_t e = run(d, word);
        if (e > d && at_end(e)) return spec;  // a build string: left as it is
    }
    if (!at_end(c)) return spec;
    return finish(spec, spec.substr(0, a), spec.substr(b, c - b), c);
}

}  // namespace sf::render

namespace sf::render {
namespace {

// "name ver ..." of a host entry: the version word, or "" when the entry is
// not a plain spec named `name` (checked word by word, as conda-build does).
enum class HostVersion { no_match, stop, found };
HostVersion host_version(const types::Dependency& h, const std::string& name, std::string& ver) {
    if (h.is_pin()) return h.name() == name ? HostVersion::stop : HostVersion::no_match;
    auto parts = str::split(std::string(str::trim(h.str())), ' ');
    if (parts.size() < 2 || parts[0] != name) return HostVersion::no_match;
    ver = parts[1];
    return HostVersion::found;
}

const RenderedOutput* pinned_output(const std::vector<RenderedOutput>& outs, const RenderedOutput& self,
                                    const std::string& name) {
    std::vector<const RenderedOutput*> cands;
    for (const auto& o : outs)
        if (o.name == name) cands.push_back(&o);
    if (cands.size() == 1) return cands[0];
    for (const auto* c : cands) {
        bool agree = true;
        for (const auto& [k, val] : c->used)
            if (const std::string* mine = self.variant.get(k); mine && *mine != val) agree = false;
        if (agree) return c;
    }
    return nullptr;
}

std::string with_bounds(const std::string& name, const std::string& bounds) {
    return bounds.empty() ? name : name + " " + bounds;
}

// The spec text a pin resolves to.
std::string resolve_pin(const std::vector<RenderedOutput>& outs, const RenderedOutput& self, const types::Pin& p) {
    if (p.kind == types::Pin::Kind::subpackage) {
        const RenderedOutput* hit = pinned_output(outs, self, p.name);
        if (!hit) return p.name;
        if (p.exact) return hit->name + " " + hit->version + " " + hit->build_string;
        return with_bounds(hit->name, apply_pin_expressions(hit->version, p.min_pin, p.max_pin));
    }
    // pin_compatible: against the version this output builds with (host).
    if (!p.lower_bound.empty() || !p.upper_bound.empty()) {
        std::vector<std::string> b;
        if (!p.lower_bound.empty()) b.push_back(">=" + p.lower_bound);
        if (!p.upper_bound.empty()) b.push_back("<" + p.upper_bound);
        return p.name + " " + str::join(b, ",");
    }
    for (const auto& h : self.requirements.host) {
        std::string ver;
        auto found = host_version(h, p.name, ver);
        if (found == HostVersion::no_match) continue;
        if (found == HostVersion::stop) break;
        if (str::ends_with(ver, ".*")) ver = ver.substr(0, ver.size() - 2);
        if (ver.empty() || !std::isdigit(static_cast<unsigned char>(ver[0]))) break;
        if (p.exact) return p.name + " " + ver;
        return with_bounds(p.name, apply_pin_expressions(ver, p.min_pin, p.max_pin));
    }
    return p.name;
}

// A resolved pin is a spec, unless the pinned version makes it none (then it
// stays text, as conda-build's string would).
void replace(types::Dependency& d, const std::string& text, SpecMemo& memo) {
    const auto& parsed = memo.parse(text);
    d = parsed ? *parsed : types::Dependency(types::UnparsedSpec{text});
}

void apply_run_as_build(RenderedOutput& o, const std::map<std::string, variant::PinRunAsBuild>& run_as_build,
                        SpecMemo& memo) {
    for (auto& r : o.requirements.run) {
        if (r.is_pin()) continue;
        auto it = run_as_build.find(r.str());
        if (it == run_as_build.end()) continue;
        for (const auto& h : o.requirements.host) {
            std::string ver;
            auto found = host_version(h, r.str(), ver);
            if (found == HostVersion::no_match) continue;
            if (found == HostVersion::stop) break;
            while (str::ends_with(ver, ".*")) ver = ver.substr(0, ver.size() - 2);
            if (ver.empty() || !std::isdigit(static_cast<unsigned char>(ver[0]))) break;
            std::string bounds = apply_pin_expressions(ver, it->second.min_pin, it->second.max_pin);
            if (!bounds.empty()) replace(r, r.str() + " " + bounds, memo);
            break;
        }
    }
}

}  // namespace

const Result<types::Dependency>& SpecMemo::parse(const std::string& text) {
    auto it = parsed_.find(text);
    if (it == parsed_.end()) it = parsed_.emplace(text, types::Dependency::parse(text)).first;
    return it->second;
}

Result<std::vector<types::Dependency>> dependencies_of(const std::vector<std::string>& specs, const std::string& what,
                                                       Diagnostics& diag, SpecMemo& memo) {
    std::vector<types::Dependency> out;
    out.reserve(specs.size());
    for (const auto& s : specs) {
        if (auto pin = read_pin_placeholder(s)) {
            out.emplace_back(std::move(*pin));
            continue;
        }
        const auto& d = memo.parse(s);
        if (d) {
            out.push_back(*d);
            continue;
        }
        Error e{{}, what + ": " + d.error().message, "write a conda match spec: name, then version and build"};
        if (diag.strict()) return unexpected(std::move(e));
        diag.warn(std::move(e), "spec:" + s);  // once per text, not per list
        out.emplace_back(types::UnparsedSpec{s});
    }
    return out;
}

void nightly_specs(const std::vector<RenderedOutput*>& outs, const variant::Selection& sel, SpecMemo& memo) {
    if (sel.nightly.empty()) return;
    const std::string suffix = ".dev" + sel.nightly;
    std::map<std::string, std::string> nightly;  // written version -> its nightly form, by output name
    for (const auto* o : outs)
        if (str::ends_with(o->version, suffix)) nightly[o->name] = o->version;
    for (auto* o : outs)
        for (auto* l : {&o->requirements.build, &o->requirements.host, &o->requirements.run,
                        &o->requirements.run_constrained, &o->test.requires_})
            for (auto& d : *l) {
                if (d.is_pin()) continue;
                auto it = nightly.find(d.name());
                if (it == nightly.end()) continue;
                auto parts = str::split(std::string(str::trim(d.str())), ' ');
                if (parts.size() < 2 || parts[1] != it->second.substr(0, it->second.size() - suffix.size())) continue;
                parts[1] = it->second;
                replace(d, str::join(parts, " "), memo);
            }
}

void resolve_pins(std::vector<RenderedOutput>& outs, const std::map<std::string, variant::PinRunAsBuild>& run_as_build,
                  SpecMemo& memo) {
    for (auto& o : outs) apply_run_as_build(o, run_as_build, memo);
    for (auto& o : outs) {
        for (auto* l : {&o.requirements.build, &o.requirements.host, &o.requirements.run,
                        &o.requirements.run_constrained, &o.run_exports.weak, &o.run_exports.strong,
                        &o.run_exports.noarch, &o.run_exports.weak_constrains, &o.run_exports.strong_constrains,
                        &o.test.requires_})
            for (auto& d : *l)
                if (const types::Pin* p = d.pin()) replace(d, resolve_pin(outs, o, *p), memo);
    }
}

}  // namespace sf::render
