#include "publish/target.hpp"

#include "net/url.hpp"
#include "util/strings.hpp"

namespace sf::publish {

namespace {

std::string strip_slashes(std::string s) {
    while (!s.empty() && s.front() == '/') s.erase(0, 1);
    while (!s.empty() && s.back() == '/') s.pop_back();
    return s;
}

// An anaconda.org owner, label or prefix.dev channel: one path segment, so
// that it cannot reach another part of the server's API.
bool is_name(const std::string& s) {
    return !s.empty() && s != "." && s != ".." &&
           s.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-") == std::string::npos;
}

Result<Target> anaconda_target(const std::string& rest, const SourceLoc& at, Target t) {
    t.kind = Target::Kind::anaconda;
    std::string path = rest;  // a leading slash is no owner: anaconda:///main names none
    while (!path.empty() && path.back() == '/') path.pop_back();
    const auto slash = path.find('/');
    t.owner = path.substr(0, slash);
    t.label = slash == std::string::npos ? "" : path.substr(slash + 1);
    if (!is_name(t.owner)) return fail(at, "names no anaconda.org owner", "write anaconda://OWNER or anaconda://OWNER/LABEL");
    if (slash != std::string::npos && !is_name(t.label))
        return fail(at, "'" + t.label + "' is no label", "write anaconda://OWNER/LABEL, one label such as main, nightly or test");
    return t;
}

Result<Target> prefix_target(const std::string& rest, const SourceLoc& at, Target t) {
    t.kind = Target::Kind::prefix;
    t.channel = rest;
    while (!t.channel.empty() && t.channel.back() == '/') t.channel.pop_back();
    if (!is_name(t.channel)) return fail(at, "names no prefix.dev channel", "write prefix://CHANNEL");
    return t;
}

}  // namespace

Result<Target> parse_target(const std::string& text) {
    const SourceLoc at{"--to " + net::mask(text)};
    const std::string scheme = net::scheme_of(text);
    Target t;
    t.shown = net::mask(text);
    if (scheme == "file") {
        t.kind = Target::Kind::file;
        t.path = text.substr(7);
        if (t.path.empty()) return fail(at, "names no directory", "write file:///abs/dir or file://rel/dir");
        return t;
    }
    if (scheme == "s3") {
        t.kind = Target::Kind::s3;
        std::string rest = text.substr(5);
        const auto slash = rest.find('/');
        t.bucket = rest.substr(0, slash);
        t.prefix = slash == std::string::npos ? "" : strip_slashes(rest.substr(slash));
        if (t.bucket.empty() || t.bucket.find_first_not_of("abcdefghijklmnopqrstuvwxyz0123456789.-") != std::string::npos)
            return fail(at, "'" + t.bucket + "' is not an S3 bucket name", "write s3://BUCKET/PREFIX (a bucket name is lower case, digits, '.' and '-')");
        return t;
    }
    if (scheme == "http" || scheme == "https") {
        t.kind = Target::Kind::http;
        t.url = text;
        while (str::ends_with(t.url, "/")) t.url.pop_back();
        return t;
    }
    if (scheme == "anaconda") return anaconda_target(text.substr(11), at, std::move(t));
    if (scheme == "prefix") return prefix_target(text.substr(9), at, std::move(t));
    return fail(at, "'" + t.shown + "' is no upload target",
                "give file://DIR, s3://BUCKET/PREFIX, https://HOST/PATH, anaconda://OWNER[/LABEL] or prefix://CHANNEL");
}

}  // namespace sf::publish
