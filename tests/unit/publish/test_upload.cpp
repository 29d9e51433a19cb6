// Uploads to file:// targets (a conda channel, a wheel folder), the rules
// every target shares (other content refused without --force, the same
// content a no-op, --dry-run writes nothing), target parsing and the AWS setup.
#include <catch2/catch.hpp>

#include <fstream>

#include "publish/aws.hpp"
#include "publish/target.hpp"
#include "publish/upload.hpp"
#include "security/craft.hpp"
#include "testutil.hpp"
#include "unit/publish/wheel_fixture.hpp"

using namespace sf;
namespace stdfs = std::filesystem;
namespace craft = sf::test::craft;

namespace {

craft::Pkg pkg(const std::string& data) {
    return craft::pkg_with("foo", {{"share/foo.txt", 'f', data}});
}

publish::UploadOptions opts(publish::Replace r = publish::Replace::no, publish::DryRun d = publish::DryRun::no) {
    publish::UploadOptions o;
    o.replace = r;
    o.dry_run = d;
    return o;
}

}  // namespace

TEST_CASE("upload: conda packages into a file:// channel, indexed there", "[upload]") {
    fs::TempDir tmp("sf-upload");
    const auto a = craft::write_pkg(tmp.path() / "a", pkg("one"));
    const auto ch = tmp.path() / "channel";
    auto r = publish::upload("file://" + ch.string(), {a}, opts());
    REQUIRE(r);
    REQUIRE(r->files.size() == 1);
    CHECK(r->files[0].action == "uploaded");
    CHECK(r->files[0].dest == (ch / "linux-64" / a.filename()).string());
    auto rd = nlohmann::json::parse(test::slurp(ch / "linux-64/repodata.json"));
    CHECK(rd["packages"].contains(a.filename().string()));
    CHECK(stdfs::exists(ch / "noarch/repodata.json"));
    // The same bytes again: nothing to do.
    auto again = publish::upload("file://" + ch.string(), {a}, opts());
    REQUIRE(again);
    CHECK(again->files[0].action == "unchanged");
    CHECK(again->indexed.empty());
}

TEST_CASE("upload: other content under an existing name is refused, naming it, unless --force", "[upload]") {
    fs::TempDir tmp("sf-upload");
    const auto ch = tmp.path() / "channel";
    REQUIRE(publish::upload("file://" + ch.string(), {craft::write_pkg(tmp.path() / "a", pkg("one"))}, opts()));
    const auto before = test::slurp(ch / "linux-64/repodata.json");
    const auto other = craft::write_pkg(tmp.path() / "b", pkg("two"));
    auto r = publish::upload("file://" + ch.string(), {other}, opts());
    REQUIRE(!r);
    CHECK(r.error().str() == (ch / "linux-64" / other.filename()).string() +
                                 ": exists with other content; not replacing it (use --force to replace it)");
    CHECK(test::slurp(ch / "linux-64/repodata.json") == before);
    auto forced = publish::upload("file://" + ch.string(), {other}, opts(publish::Replace::yes));
    REQUIRE(forced);
    CHECK(forced->files[0].action == "replaced");
    CHECK(test::slurp(ch / "linux-64/repodata.json") != before);
}

TEST_CASE("upload: --dry-run lists what would go where and writes nothing", "[upload]") {
    fs::TempDir tmp("sf-upload");
    const auto a = craft::write_pkg(tmp.path() / "a", pkg("one"));
    const auto ch = tmp.path() / "channel";
    auto r = publish::upload("file://" + ch.string(), {a}, opts(publish::Replace::no, publish::DryRun::yes));
    REQUIRE(r);
    CHECK(r->files[0].action == "would upload");
    CHECK(r->indexed == std::vector<std::string>{(ch / "linux-64/repodata.json").string()});
    CHECK(!stdfs::exists(ch));
    // S3 too, without credentials or a server.
    auto s3 = publish::upload("s3://forge/demo", {a}, opts(publish::Replace::no, publish::DryRun::yes));
    REQUIRE(s3);
    CHECK(s3->files[0].dest == "s3://forge/demo/linux-64/" + a.filename().string());
    CHECK(s3->indexed == std::vector<std::string>{"s3://forge/demo/linux-64/repodata.json"});
    auto web = publish::upload("https://user:hunter2@example.invalid/conda/", {a}, opts(publish::Replace::no, publish::DryRun::yes));
    REQUIRE(web);
    CHECK(web->files[0].dest.find("hunter2") == std::string::npos);
    CHECK(web->files[0].dest == "https://<USER>:<PASSWORD>@example.invalid/conda/linux-64/" + a.filename().string());
}

TEST_CASE("upload: wheels into a file:// folder get the pip index", "[upload]") {
    fs::TempDir tmp("sf-upload");
    const auto w = test::write_wheel(tmp.path() / "in", "torch", "0.3.0+cpu");
    const auto dir = tmp.path() / "whl/cpu";
    auto r = publish::upload("file://" + dir.string(), {w}, opts());
    REQUIRE(r);
    CHECK(r->files[0].action == "uploaded");
    CHECK(stdfs::exists(dir / w.filename()));
    CHECK(stdfs::exists(dir / "simple/torch/index.html"));
    CHECK(stdfs::exists(dir / (w.filename().string() + ".metadata")));
    const auto other = test::write_wheel(tmp.path() / "in2", "torch", "0.3.0+cpu", "", "", "x = 2\n");
    auto refused = publish::upload("file://" + dir.string(), {other}, opts());
    REQUIRE(!refused);
    CHECK(refused.error().message == "exists with other content; not replacing it");
}

TEST_CASE("upload: what cannot be uploaded is an error naming it", "[upload]") {
    fs::TempDir tmp("sf-upload");
    const auto a = craft::write_pkg(tmp.path() / "a", pkg("one"));
    const auto w = test::write_wheel(tmp.path(), "torch", "1.0");
    std::ofstream(tmp.path() / "notes.txt") << "x";
    auto mixed = publish::upload("file://" + (tmp.path() / "o").string(), {a, w}, opts());
    REQUIRE(!mixed);
    CHECK(mixed.error().message == "conda packages and wheels in one upload");
    auto txt = publish::upload("file://" + (tmp.path() / "o").string(), {tmp.path() / "notes.txt"}, opts());
    REQUIRE(!txt);
    CHECK(txt.error().message == "is neither a conda package (.conda, .tar.bz2) nor a wheel (.whl)");
    // A service with no token: named before anything is contacted.
    auto anon = publish::upload("anaconda://me/main", {a}, opts());
    REQUIRE(!anon);
    CHECK(anon.error().message == "needs a token: set ANACONDA_API_TOKEN or give --token");
    auto pfx = publish::upload("prefix://forge", {a}, opts());
    REQUIRE(!pfx);
    CHECK(pfx.error().message == "needs a token: set PREFIX_API_KEY or give --token");
    auto wheel = publish::upload("anaconda://me", {w}, opts());
    REQUIRE(!wheel);
    CHECK(wheel.error().message == "anaconda.org takes conda packages here, not wheels");
    CHECK(!publish::upload("ftp://x/y", {a}, opts()));
    CHECK(!publish::upload("s3://Bad_Bucket/x", {a}, opts()));
}

TEST_CASE("upload: targets parse and print masked", "[upload]") {
    auto s3 = publish::parse_target("s3://forge/demo/nightly/");
    REQUIRE(s3);
    CHECK(s3->bucket == "forge");
    CHECK(s3->prefix == "demo/nightly");
    auto bare = publish::parse_target("s3://forge");
    REQUIRE(bare);
    CHECK(bare->prefix.empty());
    auto h = publish::parse_target("https://u:secret@host/a/");
    REQUIRE(h);
    CHECK(h->url == "https://u:secret@host/a");
    CHECK(h->shown.find("secret") == std::string::npos);
    auto f = publish::parse_target("file:///tmp/ch");
    REQUIRE(f);
    CHECK(f->path == "/tmp/ch");
    auto ana = publish::parse_target("anaconda://pytorch-nightly/");
    REQUIRE(ana);
    CHECK(ana->kind == publish::Target::Kind::anaconda);
    CHECK(ana->owner == "pytorch-nightly");
    CHECK(ana->label.empty());
    auto lab = publish::parse_target("anaconda://pytorch/test");
    REQUIRE(lab);
    CHECK(lab->label == "test");
    auto pd = publish::parse_target("prefix://my-forge");
    REQUIRE(pd);
    CHECK(pd->kind == publish::Target::Kind::prefix);
    CHECK(pd->channel == "my-forge");
    for (const char* bad : {"anaconda://", "anaconda:///main", "anaconda://o/a/b", "anaconda://../x", "prefix://", "prefix://a/b",
                            "prefix://a?b"})
        CHECK(!publish::parse_target(bad));
}

TEST_CASE("upload: AWS credentials from the environment, else the profile, and the region", "[upload]") {
    fs::TempDir tmp("sf-upload");
    std::ofstream(tmp.path() / "credentials") << "[default]\naws_access_key_id = AKDEF\naws_secret_access_key = sdef\n"
                                              << "[ci]\naws_access_key_id=AKCI\naws_secret_access_key=sci\naws_session_token = tok\n";
    std::ofstream(tmp.path() / "config") << "[profile ci]\nregion = eu-west-1\n";
    publish::EnvVars env{{"AWS_SHARED_CREDENTIALS_FILE", (tmp.path() / "credentials").string()},
                         {"AWS_CONFIG_FILE", (tmp.path() / "config").string()}};
    auto def = publish::aws_setup(env);
    REQUIRE(def);
    CHECK(def->credentials.access_key_id == "AKDEF");
    CHECK(def->region == "us-east-1");
    CHECK(def->endpoint.empty());
    env["AWS_PROFILE"] = "ci";
    auto ci = publish::aws_setup(env);
    REQUIRE(ci);
    CHECK(ci->credentials.secret_access_key == "sci");
    CHECK(ci->credentials.session_token == "tok");
    CHECK(ci->region == "eu-west-1");
    env["AWS_ACCESS_KEY_ID"] = "AKENV";
    env["AWS_SECRET_ACCESS_KEY"] = "senv";
    env["AWS_REGION"] = "ap-south-1";
    env["AWS_ENDPOINT_URL"] = "http://127.0.0.1:9000/";
    auto e = publish::aws_setup(env);
    REQUIRE(e);
    CHECK(e->credentials.access_key_id == "AKENV");
    CHECK(e->credentials.session_token.empty());
    CHECK(e->region == "ap-south-1");
    CHECK(e->endpoint == "http://127.0.0.1:9000");
    publish::EnvVars missing{{"AWS_PROFILE", "nope"}, {"AWS_SHARED_CREDENTIALS_FILE", (tmp.path() / "credentials").string()}};
    auto m = publish::aws_setup(missing);
    REQUIRE(!m);
    CHECK(m.error().message == "has no profile [nope] (AWS_PROFILE)");
    auto none = publish::aws_setup({{"HOME", tmp.path().string()}});
    REQUIRE(!none);
    CHECK(none.error().message == "no AWS credentials");
}
