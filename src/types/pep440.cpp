#include "types/pep440.hpp"

#include <algorithm>
#include <cctype>

#include <boost/regex.hpp>

namespace sf::types {

namespace {

// PEP 440's appendix pattern, matched case-insensitively on the trimmed text.
const boost::regex& version_pattern() {
    static const boost::regex re(
        R"(v?(?:([0-9]+)!)?([0-9]+(?:\.[0-9]+)*))"
        R"((?:[-_.]?(a|b|c|rc|alpha|beta|pre|preview)[-_.]?([0-9]+)?)?)"
        R"((?:-([0-9]+)|[-_.]?(post|rev|r)[-_.]?([0-9]+)?)?)"
        R"((?:[-_.]?(dev)[-_.]?([0-9]+)?)?)"
        R"((?:\+([a-z0-9]+(?:[-_.][a-z0-9]+)*))?)",
        boost::regex::icase);
    return re;
}

bool all_digits(const std::string& s) {
    return !s.empty() && std::all_of(s.begin(), s.end(), [](unsigned char c) { return std::isdigit(c); });
}

// A number from the pattern's digits; nullopt beyond 64 bits.
std::optional<unsigned long long> number(const std::string& digits) {
    if (digits.empty()) return 0ull;
    std::size_t i = digits.find_first_not_of('0');
    if (i == std::string::npos) return 0ull;
    if (digits.size() - i > 19) return std::nullopt;
    return std::stoull(digits.substr(i));
}

std::string lower(std::string s) {
    for (auto& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return s;
}

std::string pre_tag(std::string t) {
    t = lower(std::move(t));
    if (t == "alpha") return "a";
    if (t == "beta") return "b";
    if (t == "c" || t == "pre" || t == "preview") return "rc";
    return t;
}

int cmp(unsigned long long a, unsigned long long b) { return a < b ? -1 : a > b ? 1 : 0; }

// Local segments as packaging orders them: a number sorts above any text,
// numbers by value, text lexically; a shorter list that is a prefix sorts first.
int compare_local(const std::vector<std::string>& a, const std::vector<std::string>& b) {
    for (std::size_t i = 0; i < a.size() && i < b.size(); ++i) {
        const bool na = all_digits(a[i]), nb = all_digits(b[i]);
        if (na != nb) return na ? 1 : -1;
        if (na) {
            auto x = a[i].substr(std::min(a[i].find_first_not_of('0'), a[i].size()));
            auto y = b[i].substr(std::min(b[i].find_first_not_of('0'), b[i].size()));
            if (x.size() != y.size()) return x.size() < y.size() ? -1 : 1;
            if (int c = x.compare(y)) return c < 0 ? -1 : 1;
        } else if (int c = a[i].compare(b[i])) {
            return c < 0 ? -1 : 1;
        }
    }
    return cmp(a.size(), b.size());
}

}  // namespace

Result<Pep440Version> Pep440Version::parse(std::string_view text) {
    std::string t(text);
    t.erase(0, t.find_first_not_of(" \t\r\n"));
    t.erase(t.find_last_not_of(" \t\r\n") + 1);
    boost::smatch m;
    if (t.size() > 256 || !boost::regex_match(t, m, version_pattern()))
        return fail("'" + std::string(text) + "' is not a PEP 440 version", "write versions as PEP 440 says, e.g. 1.2.0.dev20261202+cpu");
    Pep440Version v;
    auto num = [&](int g) { return number(m[g].matched ? m[g].str() : std::string()); };
    auto too_big = [&] { return fail("'" + std::string(text) + "': a number in it has more than 19 digits"); };
    auto e = num(1);
    if (!e) return too_big();
    v.epoch_ = *e;
    std::string rel = m[2].str();
    for (std::size_t at = 0;;) {
        std::size_t dot = rel.find('.', at);
        auto n = number(rel.substr(at, dot - at));
        if (!n) return too_big();
        v.release_.push_back(*n);
        if (dot == std::string::npos) break;
        at = dot + 1;
    }
    if (m[3].matched) {
        auto n = num(4);
        if (!n) return too_big();
        v.pre_ = Pre{pre_tag(m[3].str()), *n};
    }
    if (m[5].matched || m[6].matched) {
        auto n = m[5].matched ? num(5) : num(7);
        if (!n) return too_big();
        v.post_ = *n;
    }
    if (m[8].matched) {
        auto n = num(9);
        if (!n) return too_big();
        v.dev_ = *n;
    }
    if (m[10].matched) {
        std::string local = lower(m[10].str());
        std::size_t at = 0;
        for (std::size_t i = 0; i <= local.size(); ++i)
            if (i == local.size() || local[i] == '.' || local[i] == '-' || local[i] == '_') {
                v.local_.push_back(local.substr(at, i - at));
                at = i + 1;
            }
    }
    return v;
}

std::string Pep440Version::public_str() const {
    std::string s = epoch_ ? std::to_string(epoch_) + "!" : "";
    for (std::size_t i = 0; i < release_.size(); ++i) s += (i ? "." : "") + std::to_string(release_[i]);
    if (pre_) s += pre_->tag + std::to_string(pre_->n);
    if (post_) s += ".post" + std::to_string(*post_);
    if (dev_) s += ".dev" + std::to_string(*dev_);
    return s;
}

std::string Pep440Version::str() const {
    std::string s = public_str();
    for (std::size_t i = 0; i < local_.size(); ++i) s += (i ? "." : "+") + local_[i];
    return s;
}

int Pep440Version::compare(const Pep440Version& o) const {
    if (int c = cmp(epoch_, o.epoch_)) return c;
    const std::size_t n = std::max(release_.size(), o.release_.size());
    for (std::size_t i = 0; i < n; ++i) {
        const auto a = i < release_.size() ? release_[i] : 0, b = i < o.release_.size() ? o.release_[i] : 0;
        if (int c = cmp(a, b)) return c;
    }
    // Pre-release rank: a dev release of the final version (1.0.dev0) sorts
    // below its alphas; a final version above every pre-release.
    auto pre_rank = [](const Pep440Version& v) {
        if (!v.pre_ && !v.post_ && v.dev_) return 0;
        if (!v.pre_) return 4;
        return v.pre_->tag == "a" ? 1 : v.pre_->tag == "b" ? 2 : 3;
    };
    if (int c = cmp(pre_rank(*this), pre_rank(o))) return c;
    if (pre_ && o.pre_)
        if (int c = cmp(pre_->n, o.pre_->n)) return c;
    // No post release sorts below any; no dev release above any.
    if (post_.has_value() != o.post_.has_value()) return post_ ? 1 : -1;
    if (post_)
        if (int c = cmp(*post_, *o.post_)) return c;
    if (dev_.has_value() != o.dev_.has_value()) return dev_ ? -1 : 1;
    if (dev_)
        if (int c = cmp(*dev_, *o.dev_)) return c;
    return compare_local(local_, o.local_);
}

std::string pep503_name(std::string_view name) {
    auto is_sep = [](char c) { return c == '-' || c == '_' || c == '.'; };
    std::string out;
    for (std::size_t i = 0; i < name.size(); ++i) {
        if (!is_sep(name[i])) out += static_cast<char>(std::tolower(static_cast<unsigned char>(name[i])));
        else if (i == 0 || !is_sep(name[i - 1])) out += '-';  // a run of separators is one '-'
    }
    return out;
}

}  // namespace sf::types
