// `splitforge upload` against real servers on 127.0.0.1: s3rver (npm's S3
// server, installed by scripts/s3rver.sh into the build dir) and Debian's
// nginx with its WebDAV module (dav_methods PUT). What is uploaded is then
// installed from there by `splitforge install -c URL`.
//
// s3rver checks the access key id but not the SigV4 signature itself (its
// authentication.js leaves v4 unimplemented): the signature is checked
// against AWS's published examples in tests/unit/publish/test_sigv4.cpp.
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>
#include <signal.h>
#include <sys/wait.h>

#include <chrono>
#include <thread>

#include "nginx.hpp"
#include "s3rver.hpp"
#include "security/craft.hpp"
#include "testproc.hpp"

using namespace sf;
namespace stdfs = std::filesystem;
namespace craft = sf::test::craft;

namespace {

craft::Pkg pkg(const std::string& name, const std::string& data) {
    return craft::pkg_with(name, {{"share/" + name + ".txt", 'f', data}});
}

test::Ran sf_env(const std::vector<std::string>& env, std::vector<std::string> args) {
    std::vector<std::string> argv = {"env"};
    argv.insert(argv.end(), env.begin(), env.end());
    argv.push_back(test::binary().string());
    argv.insert(argv.end(), args.begin(), args.end());
    return test::run(argv);
}

std::vector<std::string> aws(const test::S3rver& s3, const std::string& secret = "S3RVER") {
    return {"AWS_ACCESS_KEY_ID=S3RVER", "AWS_SECRET_ACCESS_KEY=" + secret, "AWS_ENDPOINT_URL=" + s3.endpoint(),
            "AWS_REGION=us-east-1"};
}

}  // namespace

TEST_CASE("upload: s3rver takes the packages and their index, and install reads the channel from it") {
    fs::TempDir tmp("sf-it-upload");
    test::S3rver s3(tmp.path() / "s3");
    const auto foo = craft::write_pkg(tmp.path() / "a", pkg("foo", "one"));
    const auto bar = craft::write_pkg(tmp.path() / "a", pkg("bar", "two"));
    auto up = sf_env(aws(s3), {"upload", "--to", "s3://forge/demo", foo.string()});
    INFO(up.out << up.err);
    REQUIRE(up.rc == 0);
    CHECK(up.out == "uploaded " + foo.filename().string() + " -> s3://forge/demo/linux-64/" + foo.filename().string() +
                        "\nindexed s3://forge/demo/noarch/repodata.json\nindexed s3://forge/demo/linux-64/repodata.json\n");
    // A second upload merges its record into the bucket's repodata.json.
    auto up2 = sf_env(aws(s3), {"upload", "--to", "s3://forge/demo", bar.string()});
    REQUIRE(up2.rc == 0);
    auto rd = test::run({"curl", "-sf", s3.endpoint() + "/forge/demo/linux-64/repodata.json"});
    REQUIRE(rd.rc == 0);
    auto j = nlohmann::json::parse(rd.out);
    CHECK(j["packages"].contains(foo.filename().string()));
    CHECK(j["packages"].contains(bar.filename().string()));
    // Beside it what clients read first, rewritten with it (a stale pair would hide it):
    // repodata.json.zst of the same bytes, and the CEP-16 shard index, through which install reads below.
    auto zst = test::run({"sh", "-c", "curl -sf \"$0\" | zstd -dc", s3.endpoint() + "/forge/demo/linux-64/repodata.json.zst"});
    REQUIRE(zst.rc == 0);
    CHECK(zst.out == rd.out);
    CHECK(test::run({"curl", "-sf", "-o", "/dev/null", s3.endpoint() + "/forge/demo/linux-64/repodata_shards.msgpack.zst"}).rc == 0);
    CHECK(test::run({"curl", "-sf", "-o", "/dev/null", s3.endpoint() + "/forge/demo/noarch/repodata.json.zst"}).rc == 0);
    auto inst = test::run_splitforge({"install", "-p", (tmp.path() / "env").string(), "--pkgs-dir",
                                      (tmp.path() / "pkgs").string(), "-c", s3.endpoint() + "/forge/demo", "foo", "bar"});
    INFO(inst.out << inst.err);
    REQUIRE(inst.rc == 0);
    CHECK(test::slurp(tmp.path() / "env/share/foo.txt") == "one");
    CHECK(test::slurp(tmp.path() / "env/share/bar.txt") == "two");

    // The same bytes: a no-op. Other bytes under the name: refused, naming it, unless --force.
    auto same = sf_env(aws(s3), {"upload", "--to", "s3://forge/demo", foo.string()});
    CHECK(same.rc == 0);
    CHECK(same.out == "unchanged " + foo.filename().string() + " -> s3://forge/demo/linux-64/" + foo.filename().string() + "\n");
    const auto other = craft::write_pkg(tmp.path() / "b", pkg("foo", "changed"));
    auto refused = sf_env(aws(s3), {"upload", "--to", "s3://forge/demo", other.string()});
    CHECK(refused.rc == 2);
    CHECK(refused.err == "splitforge: error: s3://forge/demo/linux-64/" + other.filename().string() +
                             ": exists with other content; not replacing it (use --force to replace it)\n");
    auto forced = sf_env(aws(s3), {"upload", "--to", "s3://forge/demo", "--force", other.string()});
    CHECK(forced.rc == 0);
    CHECK(forced.out.rfind("replaced ", 0) == 0);
    auto after = nlohmann::json::parse(test::run({"curl", "-sf", s3.endpoint() + "/forge/demo/linux-64/repodata.json"}).out);
    CHECK(after["packages"][other.filename().string()]["sha256"] == *hash::file_sha256(other));
}

TEST_CASE("upload: credentials never show, in errors or in a dry run") {
    fs::TempDir tmp("sf-it-upload");
    test::S3rver s3(tmp.path() / "s3");
    const auto foo = craft::write_pkg(tmp.path() / "a", pkg("foo", "one"));
    // An access key s3rver does not know: refused, and neither secret prints.
    auto bad = sf_env({"AWS_ACCESS_KEY_ID=NOPE", "AWS_SECRET_ACCESS_KEY=very-secret-key", "AWS_SESSION_TOKEN=session-tok-123",
                       "AWS_ENDPOINT_URL=" + s3.endpoint()},
                      {"upload", "--to", "s3://forge/demo", foo.string()});
    CHECK(bad.rc == 1);
    CHECK(bad.err.find("HEAD refused: HTTP 403") != std::string::npos);
    CHECK((bad.out + bad.err).find("very-secret-key") == std::string::npos);
    CHECK((bad.out + bad.err).find("session-tok-123") == std::string::npos);
    // A server that refuses the PUT: the token and the URL's password stay hidden.
    stdfs::create_directories(tmp.path() / "www");
    test::Nginx web(tmp.path() / "www", "location / { limit_except GET { deny all; } }");
    const std::string url = "http://someone:pa55word@127.0.0.1:" + std::to_string(web.port()) + "/conda";
    for (bool dry : {false, true}) {
        std::vector<std::string> args = {"upload", "--to", url, "--token", "tok-abc-999", foo.string()};
        if (dry) args.push_back("--dry-run");
        auto r = test::run_splitforge(args);
        INFO(r.out << r.err);
        CHECK(r.rc == (dry ? 0 : 1));
        CHECK((r.out + r.err).find("pa55word") == std::string::npos);
        CHECK((r.out + r.err).find("tok-abc-999") == std::string::npos);
        if (dry) CHECK(r.out.find("would upload " + foo.filename().string() + " -> http://<USER>:<PASSWORD>@127.0.0.1:") == 0);
        else CHECK(r.err.find("refused: HTTP 403") != std::string::npos);
    }
    // --dry-run contacts nothing: no credentials needed, nothing in the bucket.
    auto dry = test::run_splitforge({"upload", "--to", "s3://forge/dry", "--dry-run", foo.string()});
    CHECK(dry.rc == 0);
    CHECK(dry.out == "would upload " + foo.filename().string() + " -> s3://forge/dry/linux-64/" + foo.filename().string() +
                         "\nwould index s3://forge/dry/linux-64/repodata.json\n");
    CHECK(!stdfs::exists(tmp.path() / "s3/forge/dry"));
}

TEST_CASE("upload: nginx's WebDAV PUT takes the packages and the index, and install reads them") {
    fs::TempDir tmp("sf-it-upload");
    stdfs::create_directories(tmp.path() / "www");
    test::Nginx web(tmp.path() / "www",
                    "location / { dav_methods PUT; create_full_put_path on; client_max_body_size 0; }");
    const auto foo = craft::write_pkg(tmp.path() / "a", pkg("foo", "one"));
    const std::string url = web.url("/conda/main");
    auto up = test::run_splitforge({"upload", "--to", url, foo.string()});
    INFO(up.out << up.err);
    REQUIRE(up.rc == 0);
    CHECK(stdfs::exists(tmp.path() / "www/conda/main/linux-64" / foo.filename()));
    CHECK(stdfs::exists(tmp.path() / "www/conda/main/noarch/repodata.json"));
    auto inst = test::run_splitforge({"install", "-p", (tmp.path() / "env").string(), "--pkgs-dir",
                                      (tmp.path() / "pkgs").string(), "-c", url, "foo"});
    INFO(inst.out << inst.err);
    REQUIRE(inst.rc == 0);
    CHECK(test::slurp(tmp.path() / "env/share/foo.txt") == "one");
    // nginx's ETag is no content hash: the bytes are fetched and compared.
    auto same = test::run_splitforge({"upload", "--to", url, foo.string()});
    CHECK(same.out.rfind("unchanged ", 0) == 0);
    const auto other = craft::write_pkg(tmp.path() / "b", pkg("foo", "changed"));
    auto refused = test::run_splitforge({"upload", "--to", url, other.string()});
    CHECK(refused.rc == 2);
    CHECK(refused.err.find(": exists with other content; not replacing it (use --force to replace it)") != std::string::npos);
    CHECK(test::slurp(tmp.path() / "www/conda/main/linux-64" / foo.filename()) == test::slurp(foo));
    // --no-index: the file only (a server that indexes itself).
    const auto bar = craft::write_pkg(tmp.path() / "a", pkg("bar", "two"));
    const auto before = test::slurp(tmp.path() / "www/conda/main/linux-64/repodata.json");
    auto noidx = test::run_splitforge({"upload", "--to", url, "--no-index", bar.string()});
    CHECK(noidx.rc == 0);
    CHECK(stdfs::exists(tmp.path() / "www/conda/main/linux-64" / bar.filename()));
    CHECK(test::slurp(tmp.path() / "www/conda/main/linux-64/repodata.json") == before);
}

// build --upload-to: after a build with no failed output, its packages go to
// the target as `upload --to` sends them (here a file:// channel, indexed);
// a build with a failed output uploads nothing.
TEST_CASE("build --upload-to file://DIR puts the built packages into DIR's channel, a failed build nothing") {
    fs::TempDir tmp("sf-build-upload");
    const stdfs::path pub = tmp.path() / "pub", pub2 = tmp.path() / "pub2";
    auto r = test::run_splitforge({"build", (test::data_dir() / "engine/files_glob").string(), "--output-folder",
                                   (tmp.path() / "out").string(), "-q", "--json", "--upload-to", "file://" + pub.string()});
    INFO(r.err);
    REQUIRE(r.rc == 0);
    auto j = nlohmann::json::parse(r.out);
    CHECK(j.contains("upload"));
    for (const char* f : {"libsfglob-1.0.0-0.conda", "libsfglob-devel-1.0.0-0.conda"}) {
        INFO(f);
        CHECK(stdfs::exists(pub / "linux-64" / f));
        CHECK(test::slurp(pub / "linux-64/repodata.json").find(f) != std::string::npos);
    }
    auto bad = test::run_splitforge({"build", (test::data_dir() / "engine/failing_script").string(), "--output-folder",
                                     (tmp.path() / "out2").string(), "-q", "--upload-to", "file://" + pub2.string()});
    CHECK(bad.rc == 1);
    CHECK_FALSE(stdfs::exists(pub2));
}
