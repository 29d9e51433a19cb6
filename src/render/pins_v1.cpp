// rattler-build's pin arithmetic (render/pin.rs Pin::apply over rattler's
// Version: with_segments, bump, with_alpha, remove_local), on version text.
#include <cctype>
#include <vector>

#include "core/try.hpp"
#include "render/pins.hpp"
#include "util/strings.hpp"

namespace sf::render {
namespace {

// One component of a segment: a number or an identifier ("1", "rc").
struct Comp {
    bool num = false;
    unsigned long long n = 0;
    std::string iden;
};

// A segment ("2", "1rc3", "9d") and the separator before it ('\0' for the
// first). A segment starting with letters has an implied leading 0.
struct Seg {
    char sep = '\0';
    std::vector<Comp> comps;
    bool implied_zero = false;
};

struct V {
    std::string epoch;  // "5" of "5!1.2", or ""
    std::vector<Seg> segs;
    std::string local;  // "3.4" of "1.2+3.4", or ""
};

Result<V> parse(const std::string& text) {
    V v;
    std::string s = str::lower(std::string(str::trim(text)));
    if (auto bang = s.find('!'); bang != std::string::npos) v.epoch = s.substr(0, bang), s = s.substr(bang + 1);
    if (auto plus = s.find('+'); plus != std::string::npos) v.local = s.substr(plus + 1), s = s.substr(0, plus);
    char sep = '\0';
    size_t i = 0;
    while (i <= s.size()) {
        size_t j = s.find_first_of("._-", i);
        std::string part = s.substr(i, j == std::string::npos ? std::string::npos : j - i);
        if (part.empty()) return fail("cannot pin version '" + text + "': an empty segment");
        Seg seg{sep, {}, false};
        for (size_t k = 0; k < part.size();) {
            size_t e = k;
            bool digit = std::isdigit(static_cast<unsigned char>(part[k]));
            while (e < part.size() && static_cast<bool>(std::isdigit(static_cast<unsigned char>(part[e]))) == digit) ++e;
            Comp c;
            if (digit) {
                if (e - k > 18) return fail("cannot pin version '" + text + "': a number too large");
                c.num = true, c.n = std::stoull(part.substr(k, e - k));
            } else {
                c.iden = part.substr(k, e - k);
            }
            seg.comps.push_back(std::move(c));
            k = e;
        }
        if (!seg.comps.front().num) seg.comps.insert(seg.comps.begin(), Comp{true, 0, {}}), seg.implied_zero = true;
        v.segs.push_back(std::move(seg));
        if (j == std::string::npos) break;
        sep = s[j];
        i = j + 1;
    }
    return v;
}

std::string str_of(const V& v, bool with_local = true) {
    std::string out = v.epoch.empty() ? "" : v.epoch + "!";
    for (const auto& seg : v.segs) {
        if (seg.sep) out += seg.sep;
        for (size_t i = 0; i < seg.comps.size(); ++i) {
            const Comp& c = seg.comps[i];
            if (i == 0 && seg.implied_zero && c.num && c.n == 0) continue;
            out += c.num ? std::to_string(c.n) : c.iden;
        }
    }
    if (with_local && !v.local.empty()) out += "+" + v.local;
    return out;
}

size_t x_count(const std::string& expr) {
    size_t n = 0;
    for (char c : expr) n += c == 'x';
    return n;
}

// Version::bump(Segment(idx)) then with_alpha() then remove_local().
std::string upper_of(V v, size_t segments) {
    v.segs.resize(std::min(v.segs.size(), segments));
    while (v.segs.size() < segments) v.segs.push_back(Seg{'.', {Comp{true, 0, {}}}, false});
    Seg& last = v.segs.back();
    for (auto it = last.comps.rbegin(); it != last.comps.rend(); ++it)
        if (it->num) {
            ++it->n;
            break;
        }
    for (auto it = last.comps.rbegin(); it != last.comps.rend(); ++it)
        if (!it->num) {
            it->iden = "a";
            break;
        }
    last.implied_zero = last.implied_zero && last.comps.front().n == 0;
    bool has_iden = false;
    for (const auto& c : last.comps) has_iden = has_iden || !c.num;
    if (!has_iden) v.segs.push_back(Seg{'.', {Comp{true, 0, {}}, Comp{false, 0, "a"}, Comp{true, 0, {}}}, false});
    return str_of(v, false);
}

}  // namespace

Result<std::string> apply_v1_pin(const types::Pin& p, const std::string& version, const std::string& build) {
    if (p.exact && !p.build.empty()) return fail("pin of '" + p.name + "': `exact` and `build` cannot be used together");
    if (p.exact) return p.name + " ==" + version + " " + build;
    SF_TRY(v, parse(version));
    std::vector<std::string> bounds;
    if (!p.lower_bound.empty()) {
        bounds.push_back(">=" + p.lower_bound);
    } else if (!p.min_pin.empty()) {
        size_t n = x_count(p.min_pin);
        if (n == 0) return fail("pin of '" + p.name + "': lower_bound expression is empty; it needs at least `x`");
        V lower = v;
        lower.segs.resize(std::min(n, lower.segs.size()));
        bounds.push_back(">=" + str_of(lower));
    }
    if (!p.upper_bound.empty()) {
        bounds.push_back("<" + p.upper_bound);
    } else if (!p.max_pin.empty()) {
        size_t n = x_count(p.max_pin);
        if (n == 0) return fail("pin of '" + p.name + "': upper_bound expression is empty; it needs at least `x`");
        bounds.push_back("<" + upper_of(v, n));
    }
    std::string out = p.name;
    if (!bounds.empty()) out += " " + str::join(bounds, ",");
    if (!p.build.empty()) out += " " + p.build;
    return out;
}

}  // namespace sf::render
