#include "types/version.hpp"

#include <algorithm>
#include <cctype>

#include "util/strings.hpp"

namespace sf::types {
namespace {

using Atom = Version::Atom;
using Kind = Version::Atom::Kind;

Unexpected<Error> bad(std::string_view text, std::string_view why) {
    return fail("invalid version '" + std::string(text) + "': " + std::string(why));
}

bool valid_chars(std::string_view s) {
    return std::all_of(s.begin(), s.end(), [](char c) {
        return std::isdigit(static_cast<unsigned char>(c)) || (c >= 'a' && c <= 'z') || c == '*' ||
               c == '.' || c == '+' || c == '!' || c == '_';
    });
}

const Atom& zero() {
    static const Atom z{Kind::number, "0"};
    return z;
}

// Runs of digits, runs of '*', runs of anything else (conda's version_split_re).
std::vector<Atom> split_atoms(std::string_view comp) {
    std::vector<Atom> out;
    size_t i = 0;
    while (i < comp.size()) {
        auto cls = [](char c) { return std::isdigit(static_cast<unsigned char>(c)) ? 0 : c == '*' ? 1 : 2; };
        int k = cls(comp[i]);
        size_t j = i;
        while (j < comp.size() && cls(comp[j]) == k) ++j;
        std::string run(comp.substr(i, j - i));
        if (k == 0) {
            size_t nz = run.find_first_not_of('0');
            out.push_back({Kind::number, nz == std::string::npos ? "0" : run.substr(nz)});
        } else if (run == "post") {
            out.push_back({Kind::post, "post"});
        } else if (run == "dev") {
            out.push_back({Kind::string, "DEV"});  // upper case sorts below '_' and letters
        } else {
            out.push_back({Kind::string, run});
        }
        i = j;
    }
    return out;
}

Result<std::vector<Version::Component>> split_components(std::string_view whole,
                                                         std::vector<std::string> parts) {
    std::vector<Version::Component> out;
    for (const auto& p : parts) {
        if (p.empty()) return bad(whole, "empty version component");
        auto atoms = split_atoms(p);
        if (!std::isdigit(static_cast<unsigned char>(p[0]))) atoms.insert(atoms.begin(), zero());
        out.push_back(std::move(atoms));
    }
    return out;
}

std::vector<std::string> split_dots(std::string s) {
    std::replace(s.begin(), s.end(), '_', '.');
    return str::split(s, '.');
}

int compare_atoms(const Atom& a, const Atom& b) {
    if (a.kind == b.kind && a.text == b.text) return 0;
    bool as = a.kind == Kind::string, bs = b.kind == Kind::string;
    if (as && !bs) return -1;  // strings sort below numbers and post
    if (bs && !as) return 1;
    if (as && bs) return a.text < b.text ? -1 : 1;
    if (a.kind != b.kind) return a.kind == Kind::post ? 1 : -1;  // post is infinity
    if (a.text.size() != b.text.size()) return a.text.size() < b.text.size() ? -1 : 1;
    return a.text < b.text ? -1 : 1;
}

// Two components, the shorter padded with zeros (1.1 == 1.1.0 atom-wise too).
int compare_components(const Version::Component& v1, const Version::Component& v2) {
    size_t m = std::max(v1.size(), v2.size());
    for (size_t j = 0; j < m; ++j)
        if (int c = compare_atoms(j < v1.size() ? v1[j] : zero(), j < v2.size() ? v2[j] : zero()); c != 0) return c;
    return 0;
}

const Version::Component& component_at(const std::vector<Version::Component>& t, size_t i) {
    static const Version::Component empty;
    return i < t.size() ? t[i] : empty;
}

int compare_lists(const std::vector<Version::Component>& t1, const std::vector<Version::Component>& t2) {
    size_t n = std::max(t1.size(), t2.size());
    for (size_t i = 0; i < n; ++i)
        if (int c = compare_components(component_at(t1, i), component_at(t2, i)); c != 0) return c;
    return 0;
}

}  // namespace

Result<Version> Version::parse(std::string_view input) {
    std::string v = str::lower(std::string(str::trim(input)));
    if (v.empty()) return bad(input, "empty version string");
    if (!valid_chars(v) && v.find('-') != std::string::npos && v.find('_') == std::string::npos) {
        std::replace(v.begin(), v.end(), '-', '_');  // dashes allowed when there are no underscores
    }
    if (!valid_chars(v)) return bad(input, "invalid character(s)");

    Version out;
    out.text_ = v;

    auto bang = str::split(v, '!');
    if (bang.size() > 2) return bad(input, "duplicated epoch separator '!'");
    std::string epoch = bang.size() == 2 ? bang[0] : "0";
    if (epoch.empty() || !std::all_of(epoch.begin(), epoch.end(), ::isdigit))
        return bad(input, "epoch must be an integer");

    auto plus = str::split(bang.back(), '+');
    if (plus.size() > 2) return bad(input, "duplicated local version separator '+'");
    if (plus.size() == 2) {
        auto local = split_components(input, split_dots(plus[1]));
        if (!local) return Unexpected<Error>{local.error()};
        out.local_ = std::move(*local);
    }

    // A trailing '_' stays attached to the last component ("1.0.1_" sorts
    // after "1.0.1" as openssl-style letters would want), as modern conda does.
    std::string release = plus[0];
    std::vector<std::string> parts;
    if (!release.empty() && release.back() == '_') {
        parts = split_dots(release.substr(0, release.size() - 1));
        parts.back() += "_";
    } else {
        parts = split_dots(release);
    }
    parts.insert(parts.begin(), epoch);
    auto comps = split_components(input, parts);
    if (!comps) return Unexpected<Error>{comps.error()};
    out.version_ = std::move(*comps);
    return out;
}

int Version::compare(const Version& o) const {
    int c = compare_lists(version_, o.version_);
    return c != 0 ? c : compare_lists(local_, o.local_);
}

// In place, as it runs for every `x.y.*` match: the first nt components
// equal (zero-padded), then the first na atoms of the next, then its last
// atom as a string prefix.
bool Version::starts_with(const Version& o) const {
    const std::vector<Component>* t1 = &version_;
    const std::vector<Component>* t2 = &o.version_;
    if (!o.local_.empty()) {
        if (compare_lists(version_, o.version_) != 0) return false;
        t1 = &local_;
        t2 = &o.local_;
    }
    size_t nt = t2->size() - 1;
    for (size_t i = 0; i < nt; ++i)
        if (compare_components(component_at(*t1, i), (*t2)[i]) != 0) return false;
    const Component& v1 = component_at(*t1, nt);
    const Component& v2 = (*t2)[nt];
    size_t na = v2.size() - 1;
    for (size_t j = 0; j < na; ++j)
        if (compare_atoms(j < v1.size() ? v1[j] : zero(), v2[j]) != 0) return false;
    const Atom& c1 = v1.size() <= na ? zero() : v1[na];
    const Atom& c2 = v2[na];
    if (c2.kind == Kind::string) return c1.kind == Kind::string && str::starts_with(c1.text, c2.text);
    return compare_atoms(c1, c2) == 0;
}

Version Version::truncated(size_t n) const {
    Version out = *this;
    out.local_.clear();
    if (out.version_.size() > n + 1) out.version_.resize(n + 1);
    // Rebuild the text from the original pieces: epoch, then n release parts.
    std::string body = text_;
    if (auto p = body.find('+'); p != std::string::npos) body.resize(p);
    std::string epoch;
    if (auto b = body.find('!'); b != std::string::npos) {
        epoch = body.substr(0, b + 1);
        body = body.substr(b + 1);
    }
    auto parts = split_dots(body);
    if (parts.size() > n) parts.resize(n);
    out.text_ = epoch + str::join(parts, ".");
    return out;
}

std::string minor_version(std::string_view value) {
    std::string v(str::trim(value));
    v = v.substr(0, v.find(' '));
    while (!v.empty() && (v.back() == '*' || v.back() == '.')) v.pop_back();
    auto parts = str::split(v, '.');
    if (parts.size() < 2) return "";
    for (int i = 0; i < 2; ++i) {
        if (parts[i].empty()) return "";
        for (char c : parts[i])
            if (!std::isdigit(static_cast<unsigned char>(c))) return "";
    }
    return parts[0] + "." + parts[1];
}

}  // namespace sf::types
