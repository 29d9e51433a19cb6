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
    if (scheme == "anaconda" || scheme == "prefix")
        return fail(at, scheme + ":// uploads are not supported yet [upload-targets]",
                    "upload to a file://, s3:// or https:// target (an artifactory conda repository takes https PUT)");
    return fail(at, "'" + t.shown + "' is no upload target", "give file://DIR, s3://BUCKET/PREFIX or https://HOST/PATH");
}

}  // namespace sf::publish
