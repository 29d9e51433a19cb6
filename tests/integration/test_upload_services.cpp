// `splitforge upload --to anaconda://OWNER[/LABEL]` and `prefix://CHANNEL`
// against tests/data/publish/fake_services.py: a loopback server that
// speaks anaconda.org's API as anaconda-client uses it and prefix.dev's as
// rattler_upload does, and fails (400/401, logged) any request that breaks
// them: wrong method, path, auth header, JSON body, multipart field order
// or file bytes. Not the real services: what is checked is the protocol as
// those clients' sources document it.
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "fake_services.hpp"
#include "security/craft.hpp"
#include "testproc.hpp"
#include "unit/publish/wheel_fixture.hpp"

using namespace sf;
namespace craft = sf::test::craft;
using Log = std::vector<std::string>;

namespace {

const std::string kToken = "tok-Secret-4711";

craft::Pkg pkg(const std::string& name, const std::string& data) {
    return craft::pkg_with(name, {{"share/" + name + ".txt", 'f', data}}, {"libfoo >=1.2", "python"});
}

test::Ran sf_env(const std::vector<std::string>& env, std::vector<std::string> args) {
    std::vector<std::string> argv = {"env", "-u", "ANACONDA_API_TOKEN", "-u", "PREFIX_API_KEY"};
    argv.insert(argv.end(), env.begin(), env.end());
    argv.push_back(test::binary().string());
    argv.insert(argv.end(), args.begin(), args.end());
    return test::run(argv);
}

std::vector<std::string> anaconda_env(const test::FakeServices& srv, const std::string& token = kToken) {
    std::vector<std::string> env = {"ANACONDA_SERVER_URL=" + srv.url()};
    if (!token.empty()) env.push_back("ANACONDA_API_TOKEN=" + token);
    return env;
}

std::vector<std::string> prefix_env(const test::FakeServices& srv, const std::string& token = kToken) {
    std::vector<std::string> env = {"PREFIX_SERVER_URL=" + srv.url()};
    if (!token.empty()) env.push_back("PREFIX_API_KEY=" + token);
    return env;
}

// The server's record of a file, as GET /dist answers it.
nlohmann::json dist(const test::FakeServices& srv, const std::string& path) {
    auto r = test::run({"curl", "-sf", "-H", "Authorization: token " + kToken, "-H", "x-binstar-api-version: 1.12.3", "-H",
                        "Accept: application/json", srv.url() + "/dist" + path});
    REQUIRE(r.rc == 0);
    return nlohmann::json::parse(r.out);
}

}  // namespace

TEST_CASE("upload: anaconda.org gets package, release, stage, the storage form and commit as anaconda-client sends them",
          "[anaconda][upload]") {
    const auto py = test::fake_services_python();
    fs::TempDir tmp("sf-it-anaconda");
    test::FakeServices srv(py, tmp.path(), kToken);
    const auto foo = craft::write_pkg(tmp.path() / "a", pkg("foo", "one"));
    const std::string fn = foo.filename().string(), file = "/forge/foo/1.0/linux-64/" + fn;
    const std::string dest = "anaconda://forge/nightly/linux-64/" + fn;
    auto up = sf_env(anaconda_env(srv), {"upload", "--to", "anaconda://forge/nightly", foo.string()});
    INFO(up.out << up.err);
    REQUIRE(up.rc == 0);
    CHECK(up.out == "uploaded " + fn + " -> " + dest + "\n");
    CHECK(test::requests(srv.take_log()) == Log{"GET /dist" + file + " 404", "GET /package/forge/foo 404",
                                                "POST /package/forge/foo 200", "GET /release/forge/foo/1.0 404",
                                                "POST /release/forge/foo/1.0 200", "POST /stage" + file + " 200",
                                                "POST /s3/d1 201", "POST /commit" + file + " 200"});
    auto d = dist(srv, file);
    CHECK(d["labels"] == nlohmann::json::array({"nightly"}));
    CHECK(d["sha256"] == *hash::file_sha256(foo));
    srv.take_log();

    // The same bytes again: looked up, nothing staged.
    auto same = sf_env(anaconda_env(srv), {"upload", "--to", "anaconda://forge/nightly", foo.string()});
    CHECK(same.rc == 0);
    CHECK(same.out == "unchanged " + fn + " -> " + dest + "\n");
    CHECK(test::requests(srv.take_log()) == Log{"GET /dist" + file + " 200"});

    // Other bytes under the name: refused, naming it; --force removes the old file first, as anaconda-client's does.
    const auto other = craft::write_pkg(tmp.path() / "b", pkg("foo", "changed"));
    auto refused = sf_env(anaconda_env(srv), {"upload", "--to", "anaconda://forge/nightly", other.string()});
    CHECK(refused.rc == 2);
    CHECK(refused.err == "splitforge: error: " + dest + ": exists with other content; not replacing it (use --force to replace it)\n");
    CHECK(test::requests(srv.take_log()) == Log{"GET /dist" + file + " 200"});
    auto forced = sf_env(anaconda_env(srv), {"upload", "--to", "anaconda://forge/nightly", "--force", other.string()});
    INFO(forced.out << forced.err);
    CHECK(forced.rc == 0);
    CHECK(forced.out == "replaced " + fn + " -> " + dest + "\n");
    CHECK(test::requests(srv.take_log()) == Log{"GET /dist" + file + " 200", "DELETE /dist" + file + " 200",
                                                "GET /package/forge/foo 200", "GET /release/forge/foo/1.0 200",
                                                "POST /stage" + file + " 200", "POST /s3/d2 201", "POST /commit" + file + " 200"});
    CHECK(dist(srv, file)["sha256"] == *hash::file_sha256(other));
}

TEST_CASE("upload: anaconda.org needs a token, takes --token, labels main by default and never prints the token",
          "[anaconda][upload]") {
    const auto py = test::fake_services_python();
    fs::TempDir tmp("sf-it-anaconda");
    test::FakeServices srv(py, tmp.path(), kToken);
    const auto foo = craft::write_pkg(tmp.path() / "a", pkg("foo", "one"));
    const std::string fn = foo.filename().string();
    auto none = sf_env(anaconda_env(srv, ""), {"upload", "--to", "anaconda://forge", foo.string()});
    CHECK(none.rc == 2);
    CHECK(none.err == "splitforge: error: --to anaconda://forge: needs a token: set ANACONDA_API_TOKEN or give --token\n");
    CHECK(srv.take_log().empty());
    // A token the server refuses; its answer quotes the token, which stays masked.
    auto bad = sf_env(anaconda_env(srv, ""), {"upload", "--to", "anaconda://forge", "--token", "wrong-tok-999", foo.string()});
    CHECK(bad.rc == 1);
    CHECK(bad.err.find("GET refused: HTTP 401") != std::string::npos);
    CHECK((bad.out + bad.err).find("wrong-tok-999") == std::string::npos);
    CHECK(bad.err.find("ANACONDA_API_TOKEN") != std::string::npos);
    srv.take_log();
    auto up = sf_env(anaconda_env(srv, ""), {"upload", "--to", "anaconda://forge", "--token", kToken, foo.string()});
    INFO(up.out << up.err);
    REQUIRE(up.rc == 0);
    CHECK(up.out == "uploaded " + fn + " -> anaconda://forge/main/linux-64/" + fn + "\n");
    CHECK((up.out + up.err).find(kToken) == std::string::npos);
    for (const auto& r : test::requests(srv.take_log())) CHECK(r.find("ERROR") == std::string::npos);
    CHECK(dist(srv, "/forge/foo/1.0/linux-64/" + fn)["labels"] == nlohmann::json::array({"main"}));
}

TEST_CASE("upload: --dry-run to anaconda.org or prefix.dev needs no token and contacts nothing", "[anaconda][prefix][upload]") {
    const auto py = test::fake_services_python();
    fs::TempDir tmp("sf-it-anaconda");
    test::FakeServices srv(py, tmp.path(), kToken);
    const auto foo = craft::write_pkg(tmp.path() / "a", pkg("foo", "one"));
    const std::string fn = foo.filename().string();
    std::vector<std::string> env = anaconda_env(srv, "");
    for (const auto& e : prefix_env(srv, "")) env.push_back(e);
    auto a = sf_env(env, {"upload", "--to", "anaconda://forge/test", "--dry-run", foo.string()});
    CHECK(a.rc == 0);
    CHECK(a.out == "would upload " + fn + " -> anaconda://forge/test/linux-64/" + fn + "\n");
    auto p = sf_env(env, {"upload", "--to", "prefix://forge", "--dry-run", foo.string()});
    CHECK(p.rc == 0);
    CHECK(p.out == "would upload " + fn + " -> prefix://forge/linux-64/" + fn + "\n");
    CHECK(srv.take_log().empty());
}

TEST_CASE("upload: prefix.dev takes a multipart POST, leaves the same bytes alone and replaces others only with --force",
          "[prefix][upload]") {
    const auto py = test::fake_services_python();
    fs::TempDir tmp("sf-it-prefix");
    test::FakeServices srv(py, tmp.path(), kToken);
    const auto foo = craft::write_pkg(tmp.path() / "a", pkg("foo", "one"));
    const std::string fn = foo.filename().string(), dest = "prefix://forge/linux-64/" + fn;
    auto up = sf_env(prefix_env(srv), {"upload", "--to", "prefix://forge", foo.string()});
    INFO(up.out << up.err);
    REQUIRE(up.rc == 0);
    CHECK(up.out == "uploaded " + fn + " -> " + dest + "\n");
    CHECK(test::requests(srv.take_log()) == Log{"GET /forge/linux-64/repodata.json 404", "POST /api/v1/upload/forge 200"});
    auto same = sf_env(prefix_env(srv), {"upload", "--to", "prefix://forge", foo.string()});
    CHECK(same.rc == 0);
    CHECK(same.out == "unchanged " + fn + " -> " + dest + "\n");
    CHECK(test::requests(srv.take_log()) == Log{"GET /forge/linux-64/repodata.json 200"});
    const auto other = craft::write_pkg(tmp.path() / "b", pkg("foo", "changed"));
    auto refused = sf_env(prefix_env(srv), {"upload", "--to", "prefix://forge", other.string()});
    CHECK(refused.rc == 2);
    CHECK(refused.err == "splitforge: error: " + dest + ": exists with other content; not replacing it (use --force to replace it)\n");
    CHECK(test::requests(srv.take_log()) == Log{"GET /forge/linux-64/repodata.json 200"});
    auto forced = sf_env(prefix_env(srv), {"upload", "--to", "prefix://forge", "--force", other.string()});
    CHECK(forced.rc == 0);
    CHECK(forced.out == "replaced " + fn + " -> " + dest + "\n");
    CHECK(test::requests(srv.take_log()) == Log{"GET /forge/linux-64/repodata.json 200", "POST /api/v1/upload/forge?force=true 200"});
    CHECK((up.out + up.err + forced.out + forced.err).find(kToken) == std::string::npos);
}

TEST_CASE("upload: prefix.dev's 409 is refused without --force, and a refused key never prints", "[prefix][upload]") {
    const auto py = test::fake_services_python();
    fs::TempDir tmp("sf-it-prefix");
    test::FakeServices srv(py, tmp.path(), kToken);
    const auto foo = craft::write_pkg(tmp.path() / "a", pkg("foo", "one"));
    const auto other = craft::write_pkg(tmp.path() / "b", pkg("foo", "changed"));
    const std::string fn = foo.filename().string();
    // "lagging": its repodata.json never lists the file, so only the POST's 409 says it is there.
    REQUIRE(sf_env(prefix_env(srv), {"upload", "--to", "prefix://lagging", foo.string()}).rc == 0);
    srv.take_log();
    auto conflict = sf_env(prefix_env(srv), {"upload", "--to", "prefix://lagging", other.string()});
    CHECK(conflict.rc == 2);
    CHECK(conflict.err == "splitforge: error: prefix://lagging/linux-64/" + fn +
                              ": the server already has a file of that name (HTTP 409); not replacing it (use --force to replace it)\n");
    CHECK(test::requests(srv.take_log()) == Log{"GET /lagging/linux-64/repodata.json 404", "POST /api/v1/upload/lagging 409"});
    auto forced = sf_env(prefix_env(srv), {"upload", "--to", "prefix://lagging", "--force", other.string()});
    CHECK(forced.rc == 0);
    CHECK(test::requests(srv.take_log()) == Log{"GET /lagging/linux-64/repodata.json 404", "POST /api/v1/upload/lagging?force=true 200"});
    auto none = sf_env(prefix_env(srv, ""), {"upload", "--to", "prefix://forge", foo.string()});
    CHECK(none.rc == 2);
    CHECK(none.err == "splitforge: error: --to prefix://forge: needs a token: set PREFIX_API_KEY or give --token\n");
    auto bad = sf_env(prefix_env(srv, "wrong-key-31337"), {"upload", "--to", "prefix://forge", foo.string()});
    CHECK(bad.rc == 1);
    CHECK(bad.err.find("HTTP 401") != std::string::npos);
    CHECK((bad.out + bad.err).find("wrong-key-31337") == std::string::npos);
}

TEST_CASE("upload: anaconda:// and prefix:// targets must name an owner or channel, and take no wheels", "[anaconda][prefix][upload]") {
    fs::TempDir tmp("sf-it-targets");
    const auto foo = craft::write_pkg(tmp.path() / "a", pkg("foo", "one"));
    const auto whl = test::write_wheel(tmp.path() / "w", "demo", "1.0");
    const std::vector<std::pair<std::string, std::string>> bad = {
        {"anaconda://", "splitforge: error: --to anaconda://: names no anaconda.org owner (write anaconda://OWNER or anaconda://OWNER/LABEL)\n"},
        {"anaconda:///main", "splitforge: error: --to anaconda:///main: names no anaconda.org owner (write anaconda://OWNER or anaconda://OWNER/LABEL)\n"},
        {"anaconda://forge/a/b", "splitforge: error: --to anaconda://forge/a/b: 'a/b' is no label (write anaconda://OWNER/LABEL, one label such as main, nightly or test)\n"},
        {"prefix://", "splitforge: error: --to prefix://: names no prefix.dev channel (write prefix://CHANNEL)\n"},
        {"prefix://a/b", "splitforge: error: --to prefix://a/b: names no prefix.dev channel (write prefix://CHANNEL)\n"}};
    // Nothing is contacted: were it, port 9 on loopback would refuse.
    const std::vector<std::string> env = {"ANACONDA_API_TOKEN=tok", "PREFIX_API_KEY=tok", "ANACONDA_SERVER_URL=http://127.0.0.1:9",
                                          "PREFIX_SERVER_URL=http://127.0.0.1:9"};
    for (const auto& [target, err] : bad) {
        auto r = sf_env(env, {"upload", "--to", target, foo.string()});
        CHECK(r.rc == 2);
        CHECK(r.err == err);
    }
    for (const std::string target : {"anaconda://forge", "prefix://forge"}) {
        auto r = sf_env(env, {"upload", "--to", target, whl.string()});
        CHECK(r.rc == 2);
        CHECK(r.err.find("takes conda packages here, not wheels (upload wheels to a file://, s3:// or https:// wheel folder") !=
              std::string::npos);
    }
}

// build --upload-to anaconda://OWNER: the label is the build's (nightly for
// --nightly, test for --release), unless the target names one.
TEST_CASE("build --upload-to anaconda://OWNER labels a nightly build nightly, and the target's label wins", "[anaconda][upload]") {
    const auto py = test::fake_services_python();
    fs::TempDir tmp("sf-build-anaconda");
    test::FakeServices srv(py, tmp.path(), kToken);
    const auto recipe = (test::data_dir() / "engine/files_glob").string();
    const std::vector<std::pair<std::vector<std::string>, std::string>> runs = {
        {{"--nightly", "20260101", "--upload-to", "anaconda://forge"}, "anaconda://forge/nightly/linux-64/"},
        {{"--release", "v1.0.0", "--upload-to", "anaconda://forge/main"}, "anaconda://forge/main/linux-64/"}};
    int n = 0;
    for (const auto& [args, dest] : runs) {
        std::vector<std::string> argv = {"build", recipe, "--output-folder", (tmp.path() / ("out" + std::to_string(n++))).string(), "-q", "--json"};
        argv.insert(argv.end(), args.begin(), args.end());
        auto r = sf_env(anaconda_env(srv), argv);
        INFO(r.out << r.err);
        REQUIRE(r.rc == 0);
        auto j = nlohmann::json::parse(r.out);
        REQUIRE(j["upload"]["files"].size() == 2);
        for (const auto& f : j["upload"]["files"]) {
            CHECK(f["action"] == "uploaded");
            CHECK(f["to"].get<std::string>().rfind(dest, 0) == 0);
        }
        int commits = 0;
        for (const auto& req : test::requests(srv.take_log())) {
            CHECK(req.find("ERROR") == std::string::npos);
            commits += req.rfind("POST /commit/forge/libsfglob", 0) == 0;
        }
        CHECK(commits == 2);
    }
}
