// Attacks on `install`, crafted at test time: each one is refused with one
// line naming the cause, and nothing outside the prefix, the package cache and
// the channel is created, changed or removed.
#include <catch2/catch.hpp>

#include <sys/stat.h>
#include <unistd.h>

#include <fstream>

#include "craft.hpp"
#include "env/install.hpp"
#include "testutil.hpp"
#include "util/strings.hpp"

using namespace sf::test::craft;
using sf::env::install;
using sf::env::InstallOptions;

namespace {

struct Site {
    sf::fs::TempDir tmp{"sf-sec"};
    stdfs::path root = tmp.path();
    stdfs::path outside = root / "outside", channel = root / "channel", prefix = root / "prefix",
                pkgs = root / "pkgs";
    Site() {
        stdfs::create_directories(outside / "dir");
        std::ofstream(outside / "victim.txt") << "precious\n";
        std::ofstream(outside / "dir/f") << "also precious\n";
    }
    InstallOptions opts() const {
        InstallOptions o;
        o.channels = {channel};
        o.pkgs_dir = pkgs;
        o.platform = *sf::types::Platform::parse("linux-64");
        return o;
    }
    std::map<std::string, std::string> outside_scan() const { return scan(root, {"prefix", "pkgs", "channel"}); }
};

struct Attack {
    std::string name;
    std::function<std::vector<Pkg>(const Site&)> pkgs;
    std::string request;
    std::string message;                                // expected in the one-line error
    std::function<void(const Site&)> setup = nullptr;  // e.g. plant something in the prefix first
};

Member file(std::string name, std::string data = "x\n") { return {std::move(name), 'f', std::move(data)}; }
Member link(std::string name, std::string target) { return {std::move(name), 'l', "", std::move(target), 0777}; }
Member hard(std::string name, std::string target) { return {std::move(name), 'h', "", std::move(target)}; }
Member special(std::string name, char kind) { return {std::move(name), kind, "", "", 0644, false}; }
Pkg pkg(std::string name, std::vector<Member> members, std::vector<std::string> depends = {}) {
    Pkg p;
    p.name = std::move(name);
    p.members = std::move(members);
    p.depends = std::move(depends);
    return p;
}
Pkg with_record(Pkg p, std::function<void(json&)> edit) {
    p.edit_record = std::move(edit);
    return p;
}
Pkg with_paths(Pkg p, std::function<void(json&)> edit) {
    p.edit_paths = std::move(edit);
    return p;
}

// A conda-meta record in the prefix, as if some earlier tool had written it.
void plant_record(const Site& s, const std::string& dist, const json& files) {
    stdfs::create_directories(s.prefix / "conda-meta");
    auto parts = dist;  // name-version-build
    std::ofstream(s.prefix / "conda-meta" / (dist + ".json"))
        << json({{"name", "victim"}, {"version", "0.1"}, {"build", "0"}, {"files", files}}).dump();
}

std::vector<Attack> attacks() {
    std::vector<Attack> a;
    const std::string refuse_link = "would point outside the prefix";
    // --- symlink chains across packages ---------------------------------------
    a.push_back({"chained symlinks across three packages",
                 [](const Site&) {
                     return std::vector<Pkg>{pkg("xa", {link("x", ".")}),
                                             pkg("xb", {link("x/x/x/x/x/z", "../../../../../outside")}, {"xa"}),
                                             pkg("xc", {file("z/file.txt")}, {"xb"})};
                 },
                 "xc", refuse_link});
    a.push_back({"a link below a link back to the root",
                 [](const Site&) {
                     return std::vector<Pkg>{pkg("ua", {link("d/up", "..")}),
                                             pkg("ub", {link("d/up/z", "../outside")}, {"ua"})};
                 },
                 "ub", refuse_link});
    a.push_back({"a file written through another package's link chain",
                 [](const Site&) {
                     return std::vector<Pkg>{pkg("ca", {link("a", "."), link("b", "a/a/a")}),
                                             pkg("cb", {link("b/c", "../outside")}, {"ca"})};
                 },
                 "cb", refuse_link});
    a.push_back({"a symlink the user left in the prefix pointing outside",
                 [](const Site&) { return std::vector<Pkg>{pkg("through", {file("out/f.txt")})}; }, "through",
                 "leads outside the prefix", [](const Site& s) {
                     stdfs::create_directories(s.prefix);
                     stdfs::create_directory_symlink(s.outside, s.prefix / "out");
                 }});
    a.push_back({"a relative symlink the user left pointing above the prefix",
                 [](const Site&) { return std::vector<Pkg>{pkg("through2", {file("up/outside/dir/f")})}; }, "through2",
                 "leads outside the prefix", [](const Site& s) {
                     stdfs::create_directories(s.prefix);
                     stdfs::create_directory_symlink("..", s.prefix / "up");
                 }});
    a.push_back({"a symlink loop in the prefix",
                 [](const Site&) { return std::vector<Pkg>{pkg("loopy", {file("l1/f")})}; }, "loopy",
                 "too many levels of symbolic links", [](const Site& s) {
                     stdfs::create_directories(s.prefix);
                     stdfs::create_symlink("l2", s.prefix / "l1");
                     stdfs::create_symlink("l1", s.prefix / "l2");
                 }});
    // --- conda-meta --------------------------------------------------------------
    a.push_back({"a package shipping conda-meta/",
                 [](const Site& s) {
                     json rec = {{"name", "victim"}, {"version", "0.1"}, {"build", "0"},
                                 {"files", {"../outside/victim.txt", (s.outside / "dir/f").string()}}};
                     return std::vector<Pkg>{pkg("cm", {file("conda-meta/victim-0.1-0.json", rec.dump())})};
                 },
                 "cm", "packages may not write conda-meta/"});
    a.push_back({"a package shipping conda-meta/history",
                 [](const Site&) { return std::vector<Pkg>{pkg("cmh", {file("conda-meta/history", "")})}; }, "cmh",
                 "packages may not write conda-meta/"});
    a.push_back({"a record listing a file above the prefix",
                 [](const Site&) { return std::vector<Pkg>{pkg("victim", {file("v.txt")})}; }, "victim",
                 "lists '../outside/victim.txt', not a file a package may own; refusing to remove it",
                 [](const Site& s) { plant_record(s, "victim-0.1-0", {"../outside/victim.txt"}); }});
    a.push_back({"a record listing an absolute path",
                 [](const Site&) { return std::vector<Pkg>{pkg("victim", {file("v.txt")})}; }, "victim",
                 "not a file a package may own; refusing to remove it",
                 [](const Site& s) { plant_record(s, "victim-0.1-0", {(s.outside / "victim.txt").string()}); }});
    a.push_back({"a record listing another record",
                 [](const Site&) { return std::vector<Pkg>{pkg("victim", {file("v.txt")})}; }, "victim",
                 "lists 'conda-meta/history', not a file a package may own", [](const Site& s) {
                     plant_record(s, "victim-0.1-0", {"conda-meta/history"});
                     std::ofstream(s.prefix / "conda-meta/history") << "";
                 }});
    a.push_back({"a reserved installer name",
                 [](const Site&) { return std::vector<Pkg>{pkg("rsv", {file(".splitforge-trash-x/f")})}; }, "rsv",
                 "a name the installer reserves for itself"});
    // --- repodata lies -----------------------------------------------------------
    auto sha = [](std::string v) { return [v](json& r) { r["sha256"] = v; }; };
    auto md5 = [](std::string v) { return [v](json& r) { r["md5"] = v; }; };
    for (auto [label, value] : std::vector<std::pair<std::string, std::string>>{
             {"sha256 as an absolute path", "/etc"},
             {"sha256 with ..", "../../outside/dir"},
             {"sha256 in upper case", std::string(64, 'A')},
             {"sha256 one digit short", std::string(63, 'a')},
             {"sha256 with a slash", std::string(31, 'a') + "/" + std::string(32, 'a')}})
        a.push_back({label, [=](const Site&) { return std::vector<Pkg>{with_record(pkg("s", {file("f")}), sha(value))}; },
                     "s", "is not 64 lowercase hex digits"});
    a.push_back({"sha256 pointing at a planted cache entry",
                 [=](const Site& s) {
                     return std::vector<Pkg>{with_record(pkg("s", {file("f")}), sha((s.outside / "dir").string()))};
                 },
                 "s", "is not 64 lowercase hex digits"});
    a.push_back({"md5 as a path", [=](const Site&) { return std::vector<Pkg>{with_record(pkg("m", {file("f")}), md5("../../x"))}; },
                 "m", "is not 32 lowercase hex digits"});
    a.push_back({"md5 too long",
                 [=](const Site&) { return std::vector<Pkg>{with_record(pkg("m", {file("f")}), md5(std::string(40, '0')))}; },
                 "m", "is not 32 lowercase hex digits"});
    for (auto [label, key] : std::vector<std::pair<std::string, std::string>>{
             {"a repodata key with ../", "../k-1.0-0.tar.bz2"},
             {"a repodata key in a subdirectory", "sub/k-1.0-0.tar.bz2"},
             {"an absolute repodata key", "/tmp/k-1.0-0.tar.bz2"}})
        a.push_back({label,
                     [=](const Site&) {
                         Pkg p = pkg("k", {file("f")});
                         p.key = key;
                         return std::vector<Pkg>{p};
                     },
                     "k", "is not a plain file name"});
    for (auto [label, field, value] : std::vector<std::tuple<std::string, std::string, std::string>>{
             {"a build string with ../", "build", "../../../outside/x"},
             {"a build string with a space", "build", "0 1"},
             {"a build string with a backslash", "build", "0\\..\\x"}})
        a.push_back({label,
                     [=](const Site&) {
                         Pkg p = pkg("b", {file("f")});
                         p.edit_record = [=](json& r) { r[field] = value; };
                         p.edit_index = [=](json& r) { r[field] = value; };
                         return std::vector<Pkg>{p};
                     },
                     "b", "invalid build string '" + value + "'"});
    a.push_back({"a version with a slash",
                 [=](const Site&) {
                     Pkg p = pkg("b", {file("f")});
                     p.edit_record = [=](json& r) { r["version"] = "1.0/../../x"; };
                     return std::vector<Pkg>{p};
                 },
                 "b", "invalid version '1.0/../../x'"});
    // --- archive members ---------------------------------------------------------
    auto refused_member = [&](std::string label, std::vector<Member> members, std::string msg) {
        a.push_back({label, [=](const Site&) { return std::vector<Pkg>{pkg("m", members)}; }, "m", msg});
    };
    refused_member("an absolute member path", {{"/ABS/outside/f", 'f', "x", "", 0644, false}}, "absolute member path");
    refused_member("a member path with ../", {{"../outside/f", 'f', "x", "", 0644, false}}, "contains '..'");
    refused_member("info/../.. in a member path", {{"info/../../outside/f", 'f', "x", "", 0644, false}}, "contains '..'");
    refused_member("a member path ending in ..", {{"lib/../..", 'd', "", "", 0755, false}}, "contains '..'");
    refused_member("an absolute symlink", {link("etc", "/etc")}, "points outside the package");
    refused_member("a relative symlink above the package", {link("lib/evil", "../../outside/victim.txt")},
                   "points outside the package");
    refused_member("a symlink going up after a name", {link("a", "."), link("b", "a/../../outside")},
                   "points outside the package");
    refused_member("a file written through a symlink member", {link("d", "sub"), file("sub/keep"), file("d/f")},
                   "would be written through a symlink");
    refused_member("a hard link to an absolute path", {{"h", 'h', "", "/etc/passwd", 0644, false}}, "absolute member path");
    refused_member("a hard link above the package", {{"h", 'h', "", "../outside/victim.txt", 0644, false}}, "contains '..'");
    refused_member("a hard link to a missing member", {{"h", 'h', "", "nothere", 0644, false}}, "not an earlier file");
    refused_member("a hard link to a directory", {{"d", 'd', "", "", 0755}, {"h", 'h', "", "d", 0644, false}},
                   "not an earlier file");
    refused_member("a character device", {special("dev/null", 'c')}, "is not a file, directory or symlink");
    refused_member("a block device", {special("dev/sda", 'b')}, "is not a file, directory or symlink");
    refused_member("a fifo", {special("fifo", 'p')}, "is not a file, directory or symlink");
    refused_member("a duplicate file member", {file("f", "one"), {"f", 'f', "two", "", 0644, false}}, "appears twice");
    refused_member("a file then a symlink of the same name", {file("f"), {"f", 'l', "", "g", 0777, false}},
                   "appears twice");
    refused_member("a control character in a name", {file("bin/a\nb")}, "control character");
    // --- paths.json lies ---------------------------------------------------------
    auto lying = [&](std::string label, std::function<void(json&)> edit, std::string msg) {
        a.push_back({label, [=](const Site&) { return std::vector<Pkg>{with_paths(pkg("lie", {file("f", "data\n")}), edit)}; },
                     "lie", msg});
    };
    lying("paths.json naming a path above the prefix",
          [](json& j) { j["paths"].push_back({{"_path", "../outside/victim.txt"}, {"path_type", "hardlink"}}); },
          "contains '..'");
    lying("paths.json naming an absolute path",
          [](json& j) { j["paths"].push_back({{"_path", "/etc/passwd"}, {"path_type", "hardlink"}}); },
          "absolute member path");
    lying("paths.json naming info/../..",
          [](json& j) { j["paths"].push_back({{"_path", "info/../../x"}, {"path_type", "hardlink"}}); }, "contains '..'");
    lying("paths.json with a wrong sha256",
          [](json& j) { j["paths"][0]["sha256"] = std::string(64, '0'); }, "but info/paths.json says");
    lying("paths.json with a wrong size", [](json& j) { j["paths"][0]["size_in_bytes"] = 1; },
          "bytes but info/paths.json says 1");
    lying("paths.json calling a file a symlink", [](json& j) { j["paths"][0]["path_type"] = "softlink"; },
          "is declared softlink but is not a symlink");
    lying("paths.json naming a missing file",
          [](json& j) { j["paths"].push_back({{"_path", "ghost"}, {"path_type", "hardlink"}}); },
          "which is not in the archive");
    lying("paths.json claiming conda-meta",
          [](json& j) { j["paths"].push_back({{"_path", "conda-meta/x.json"}, {"path_type", "hardlink"}}); },
          "which is not in the archive");
    return a;
}

}  // namespace

TEST_CASE("security: hostile packages are refused and nothing outside changes", "[security]") {
    auto all = attacks();
    CHECK(all.size() >= 40);
    for (const auto& at : all) {
        SECTION(at.name) {
            Site s;
            std::vector<Pkg> pkgs = at.pkgs(s);
            for (auto& p : pkgs)
                for (auto& m : p.members)
                    if (sf::str::starts_with(m.name, "/ABS/")) m.name = s.root.string() + m.name.substr(4);
            write_channel(s.channel, pkgs);
            if (at.setup) at.setup(s);
            auto before = s.outside_scan();
            auto prefix_before = scan(s.prefix);
            auto r = install(s.prefix, {at.request}, s.opts());
            REQUIRE_FALSE(r);
            std::string msg = r.error().str();
            INFO(msg);
            CHECK(msg.find('\n') == std::string::npos);
            CHECK(msg.find(at.message) != std::string::npos);
            CHECK(s.outside_scan() == before);
            CHECK(scan(s.prefix) == prefix_before);  // rolled back as well
            CHECK(sf::test::slurp(s.outside / "victim.txt") == "precious\n");
        }
    }
}
