#include "types/match_spec.hpp"

#include <algorithm>
#include <cctype>
#include <map>

#include <boost/regex.hpp>

#include "types/platform.hpp"
#include "util/strings.hpp"

namespace sf::types {
namespace {

// As in ECMAScript and Python's re, ^ and $ match only at the ends of the text and . matches no
// line break (Boost's Perl default would match ^ and $ at every line and . at any character).
constexpr boost::regex::flag_type kEcma = boost::regex::no_mod_s | boost::regex::no_mod_m;

Unexpected<Error> bad(std::string_view whole, std::string_view why) {
    return fail("invalid match spec '" + std::string(whole) + "': " + std::string(why));
}

bool has_any(std::string_view s, std::string_view chars) { return s.find_first_of(chars) != std::string_view::npos; }

// key=value pairs inside [...]; values may be quoted with ' or ".
Result<std::map<std::string, std::string>> parse_brackets(std::string_view whole, std::string_view s) {
    std::map<std::string, std::string> out;
    size_t i = 0;
    while (true) {
        while (i < s.size() && (s[i] == ',' || s[i] == ' ')) ++i;
        if (i >= s.size()) break;
        size_t k = i;
        while (i < s.size() && (std::isalnum(static_cast<unsigned char>(s[i])) || s[i] == '_' || s[i] == '-')) ++i;
        std::string key(s.substr(k, i - k));
        if (key.empty() || i >= s.size() || s[i] != '=') return bad(whole, "key-value mismatch in brackets");
        ++i;
        std::string value;
        if (i < s.size() && (s[i] == '\'' || s[i] == '"')) {
            char q = s[i++];
            size_t e = s.find(q, i);
            if (e == std::string_view::npos) return bad(whole, "unterminated quote in brackets");
            value = std::string(s.substr(i, e - i));
            i = e + 1;
        } else {
            size_t e = s.find_first_of(", ", i);
            if (e == std::string_view::npos) e = s.size();
            value = std::string(s.substr(i, e - i));
            i = e;
        }
        if (value.empty()) return bad(whole, "key-value mismatch in brackets");
        out[key] = value;
    }
    return out;
}

// Splits "1.2 build*", ">=1.0 , < 2.0 py34_0", "1.2.3=0", "=1.2=h0_0" into
// a version expression and an optional build string (conda's
// _parse_version_plus_build).
void split_version_build(const std::string& s, std::string& version, std::optional<std::string>& build) {
    constexpr std::string_view after_op = "=!|,<>~";
    std::vector<std::string> toks;
    for (auto& t : str::split(s, ' '))
        if (!t.empty()) toks.push_back(t);
    if (toks.size() >= 2) {
        const std::string& last = toks.back();
        const std::string& prev = toks[toks.size() - 2];
        std::string b = last[0] == '=' && last.size() > 1 && last[1] != '=' ? last.substr(1) : last;
        bool is_build = after_op.find(prev.back()) == std::string_view::npos &&
                        !has_any(b, "=!|,<>~") && !b.empty();
        if (is_build) {
            build = b;
            toks.pop_back();
        }
        version.clear();
        for (auto& t : toks) version += t;
        return;
    }
    version = toks.empty() ? std::string{} : toks[0];
    for (size_t i = version.size(); i-- > 1;) {
        if (version[i] != '=') continue;
        if (after_op.find(version[i - 1]) != std::string_view::npos) break;
        std::string b = version.substr(i + 1);
        if (b.empty() || has_any(b, "=!|,<>~")) break;
        build = b;
        version.resize(i);
        break;
    }
}

bool valid_name(std::string_view n) {
    return std::all_of(n.begin(), n.end(), [](char c) {
        return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-' || c == '.' || c == '*';
    });
}

}  // namespace

SpecParts split_spec(std::string_view spec) {
    SpecParts p;
    p.trimmed = str::trim(spec);
    std::string_view s = p.trimmed;
    if (auto lb = s.find('['); lb != std::string_view::npos) {
        p.has_brackets = true;
        std::string_view inner = s.substr(lb + 1);
        if (!inner.empty() && inner.back() == ']') inner.remove_suffix(1);
        p.brackets = inner;
        s = str::trim(s.substr(0, lb));
    }
    if (auto cc = s.rfind("::"); cc != std::string_view::npos) {
        p.channel = s.substr(0, cc);
        s = s.substr(cc + 2);
    }
    size_t end = s.find_first_of(kNameEnd);
    p.name = s.substr(0, end);
    if (end != std::string_view::npos) p.rest = s.substr(end);
    return p;
}

bool glob_match(std::string_view pattern, std::string_view text) {
    if (pattern.empty() || pattern == "*") return true;
    if (pattern.size() >= 2 && pattern.front() == '^' && pattern.back() == '$') {
        try {
            return boost::regex_match(std::string(text), boost::regex(std::string(pattern), kEcma));
        } catch (const boost::regex_error&) {
            return false;
        }
    }
    // Iterative wildcard match with backtracking to the last '*'.
    size_t p = 0, t = 0, star = std::string_view::npos, mark = 0;
    while (t < text.size()) {
        if (p < pattern.size() && pattern[p] == '*') {
            star = p++;
            mark = t;
        } else if (p < pattern.size() && pattern[p] == text[t]) {
            ++p;
            ++t;
        } else if (star != std::string_view::npos) {
            p = star + 1;
            t = ++mark;
        } else {
            return false;
        }
    }
    while (p < pattern.size() && pattern[p] == '*') ++p;
    return p == pattern.size();
}

std::string MatchSpec::name_of(std::string_view spec) { return std::string(split_spec(spec).name); }

Result<MatchSpec> MatchSpec::parse(std::string_view input) {
    SpecParts parts = split_spec(input);
    if (parts.trimmed.empty()) return bad(input, "empty match spec");
    MatchSpec m;
    m.text_ = std::string(parts.trimmed);

    std::map<std::string, std::string> brackets;
    if (parts.has_brackets) {
        if (parts.trimmed.back() != ']') return bad(input, "'[' without a closing ']' at the end");
        auto kv = parse_brackets(input, parts.brackets);
        if (!kv) return Unexpected<Error>{kv.error()};
        brackets = std::move(*kv);
    }
    if (!parts.channel.empty()) {
        m.channel_ = std::string(parts.channel);
        if (auto sl = m.channel_.rfind('/'); sl != std::string::npos && Platform::parse(m.channel_.substr(sl + 1))) {
            m.subdir_ = m.channel_.substr(sl + 1);
            m.channel_.resize(sl);
        }
    }
    std::string name(parts.name);
    if (name.empty()) return bad(input, "no package name found");
    if (!valid_name(name)) return bad(input, "invalid package name '" + name + "'");
    m.name_ = str::lower(name);
    std::string rest(str::trim(parts.rest));

    std::string version;
    std::optional<std::string> build;
    if (!rest.empty()) {
        split_version_build(rest, version, build);
        if (!version.empty() && version[0] == '=') {
            std::string test = version.substr(1);
            if (str::starts_with(version, "==") && !build) {
                version = version.substr(2);
            } else if (!has_any(test, "=,|")) {
                version = (!build && !test.empty() && test.back() != '*') ? test + "*" : test;
            }
        }
    }
    for (const auto& [key, value] : brackets) {
        if (key == "version") version = value;
        else if (key == "build" || key == "build_string") build = value;
        else if (key == "build_number") {
            auto bn = VersionSpec::parse(value);
            if (!bn) return bad(input, "build_number: " + bn.error().message);
            m.build_number_ = *bn;
        } else if (key == "subdir") m.subdir_ = value;
        else if (key == "channel") m.channel_ = value;
        else if (key == "md5") m.md5_ = value;
        else if (key == "sha256") m.sha256_ = value;
        else return bad(input, "cannot match on field '" + key + "'");
    }
    if (!version.empty()) {
        auto vs = VersionSpec::parse(version);
        if (!vs) return bad(input, vs.error().message);
        m.version_ = *vs;
    }
    if (build) m.build_ = *build;
    return m;
}

bool MatchSpec::matches(const PackageRecord& rec) const {
    if (name_ != "*" && !glob_match(name_, str::lower(rec.name))) return false;
    if (!version_.is_any() && !version_.matches(rec.version)) return false;
    if (!build_.empty() && !glob_match(build_, rec.build)) return false;
    if (build_number_) {
        auto v = Version::parse(std::to_string(rec.build_number));
        if (!v || !build_number_->matches(*v)) return false;
    }
    if (!subdir_.empty() && rec.subdir != subdir_) return false;
    if (!md5_.empty() && rec.md5 != md5_) return false;
    if (!sha256_.empty() && rec.sha256 != sha256_) return false;
    return true;
}

}  // namespace sf::types
