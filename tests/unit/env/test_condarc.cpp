// .condarc as conda reads it: merge rules across files and the environment,
// file:line for a malformed file, `defaults`, custom_channels, and the
// channel list a solve gets.
#include <catch2/catch.hpp>

#include <cstdlib>
#include <fstream>
#include <optional>

#include "env/channel.hpp"
#include "env/condarc.hpp"
#include "util/fs.hpp"

using namespace sf;
namespace stdfs = std::filesystem;

namespace {

// Sets (or unsets) a variable for one scope.
struct EnvVar {
    std::string name;
    std::optional<std::string> old;
    EnvVar(std::string n, const char* v) : name(std::move(n)) {
        if (const char* o = std::getenv(name.c_str())) old = o;
        if (v) ::setenv(name.c_str(), v, 1);
        else ::unsetenv(name.c_str());
    }
    ~EnvVar() {
        if (old) ::setenv(name.c_str(), old->c_str(), 1);
        else ::unsetenv(name.c_str());
    }
};

std::vector<std::string> values(const std::vector<env::Sourced>& v) {
    std::vector<std::string> out;
    for (const auto& s : v) out.push_back(s.value);
    return out;
}

void write(const stdfs::path& p, const std::string& text) {
    stdfs::create_directories(p.parent_path());
    std::ofstream(p) << text;
}

}  // namespace

TEST_CASE("condarc: a later file's list lines come first, scalars from the last, maps key by key", "[env][condarc]") {
    EnvVar a("CONDA_CHANNELS", nullptr), b("CONDA_CHANNEL_ALIAS", nullptr), c("CONDA_OFFLINE", nullptr);
    env::Config cfg;
    REQUIRE(env::merge_condarc(cfg, "channels: [a, b]\nchannel_alias: https://one\ncustom_channels: {x: https://x1, y: https://y1}\n", "first"));
    REQUIRE(env::merge_condarc(cfg, "channels: [c, a]\nchannel_alias: https://two/\ncustom_channels: {x: https://x2}\nunknown_key: 3\n", "second"));
    CHECK(values(cfg.channels) == std::vector<std::string>{"c", "a", "b"});
    CHECK(cfg.channels[1].source == "second");
    CHECK(cfg.channels[2].source == "first");
    CHECK(cfg.channel_alias.value == "https://two/");
    CHECK(cfg.channel_alias.source == "second");
    CHECK(cfg.custom_channels.at("x").value == "https://x2");
    CHECK(cfg.custom_channels.at("y").value == "https://y1");
    CHECK(cfg.files == std::vector<std::string>{"first", "second"});
}

TEST_CASE("condarc: the CONDA_ variables go over every file", "[env][condarc]") {
    EnvVar a("CONDA_CHANNELS", "e1, e2"), b("CONDA_OFFLINE", "true"), c("CONDA_REMOTE_MAX_RETRIES", "7");
    env::Config cfg;
    REQUIRE(env::merge_condarc(cfg, "channels: [f1]\noffline: false\nremote_max_retries: 1\n", "rc"));
    env::merge_env(cfg);
    CHECK(values(cfg.channels) == std::vector<std::string>{"e1", "e2", "f1"});
    CHECK(cfg.channels[0].source == "$CONDA_CHANNELS");
    CHECK(cfg.is_offline());
    CHECK(cfg.offline.source == "$CONDA_OFFLINE");
    CHECK(cfg.remote_max_retries.value == "7");
}

TEST_CASE("condarc: a malformed file is one error naming file and line", "[env][condarc]") {
    env::Config cfg;
    auto bad_yaml = env::merge_condarc(cfg, "channels:\n  - a\n  - [b\n", "/home/u/.condarc");
    REQUIRE_FALSE(bad_yaml);
    CHECK(bad_yaml.error().loc.file == "/home/u/.condarc");
    CHECK(bad_yaml.error().loc.line >= 3);
    auto bad_type = env::merge_condarc(cfg, "ssl_verify: true\nchannels: conda-forge\n", "rc");
    REQUIRE_FALSE(bad_type);
    CHECK(bad_type.error().loc.line == 2);
    CHECK(bad_type.error().message.find("channels") != std::string::npos);
    auto bad_bool = env::merge_condarc(cfg, "offline: maybe\n", "rc");
    REQUIRE_FALSE(bad_bool);
    CHECK(bad_bool.error().loc.line == 1);
    auto bad_number = env::merge_condarc(cfg, "\nremote_read_timeout_secs: soon\n", "rc");
    REQUIRE_FALSE(bad_number);
    CHECK(bad_number.error().loc.line == 2);
    CHECK_FALSE(env::merge_condarc(cfg, "- a list\n", "rc"));
    CHECK(env::merge_condarc(cfg, "", "empty"));
}

TEST_CASE("condarc: conda's search path order, ~/.condarc after ~/.conda, $CONDARC last", "[env][condarc]") {
    sf::fs::TempDir tmp("sf-condarc");
    const std::string home = (tmp.path() / "home").string(), prefix = (tmp.path() / "prefix").string();
    const std::string rc = (tmp.path() / "given.yml").string();
    EnvVar h("HOME", home.c_str()), p("CONDA_PREFIX", prefix.c_str()), r("CONDARC", rc.c_str());
    EnvVar x("XDG_CONFIG_HOME", nullptr), cr("CONDA_ROOT", nullptr), ch("CONDA_CHANNELS", nullptr);
    EnvVar al("CONDA_CHANNEL_ALIAS", nullptr);
    auto path = env::condarc_search_path();
    auto pos = [&](const stdfs::path& f) { return std::find(path.begin(), path.end(), f) - path.begin(); };
    CHECK(pos(stdfs::path(home) / ".conda/condarc") < pos(stdfs::path(home) / ".condarc"));
    CHECK(pos(stdfs::path(home) / ".condarc") < pos(stdfs::path(prefix) / ".condarc"));
    CHECK(pos(stdfs::path(prefix) / ".condarc") < pos(stdfs::path(rc)));
    CHECK(path.back() == stdfs::path(rc));

    write(stdfs::path(home) / ".conda/condarc", "channels: [conda-home]\nchannel_alias: https://alias.one\n");
    write(stdfs::path(home) / ".condarc", "channels: [home]\n");
    write(stdfs::path(prefix) / "condarc.d/10-a.yml", "channels: [prefix-d]\n");
    write(rc, "channel_alias: https://alias.two\n");
    auto cfg = env::load_config();
    REQUIRE(cfg);
    CHECK(values(cfg->channels) == std::vector<std::string>{"prefix-d", "home", "conda-home"});
    CHECK(cfg->channel_alias.value == "https://alias.two");
    CHECK(cfg->channel_alias.source == rc);

    write(stdfs::path(home) / ".condarc", "channels: [home\n");
    auto bad = env::load_config();
    REQUIRE_FALSE(bad);
    CHECK(bad.error().loc.file == (stdfs::path(home) / ".condarc").string());
}

TEST_CASE("condarc: defaults, custom_channels, the alias and --override-channels", "[env][condarc]") {
    EnvVar h("HOME", "/nonexistent-home"), e("CONDA_CHANNEL_ALIAS", nullptr), c("CONDA_CHANNELS", nullptr);
    EnvVar v("MIRROR_HOST", "mirror.example");
    env::Config cfg;
    REQUIRE(env::merge_condarc(cfg,
                               "channels: [conda-forge, defaults, internal/label/dev]\n"
                               "channel_alias: https://${MIRROR_HOST}/conda\n"
                               "default_channels: [https://repo.example/main]\n"
                               "custom_channels: {internal: 'https://user:secret@private.example'}\n",
                               "rc"));
    env::apply_config(cfg);
    auto chans = env::effective_channels({"-extra"}, false);
    CHECK(values(chans) == std::vector<std::string>{"-extra", "conda-forge", "https://repo.example/main", "internal/label/dev"});
    CHECK(chans[0].source == "-c");
    CHECK(values(env::effective_channels({"x"}, true)) == std::vector<std::string>{"x"});
    auto forge = env::resolve_channel("conda-forge");
    REQUIRE(forge);
    CHECK(forge->url == "https://mirror.example/conda/conda-forge");
    auto internal = env::resolve_channel("internal/label/dev");
    REQUIRE(internal);
    CHECK(internal->url == "https://user:secret@private.example/internal/label/dev");
    CHECK(internal->display.find("secret") == std::string::npos);
    bool masked = false;
    for (const auto& s : env::shown_settings(env::config()))
        if (s.key == "custom_channels.internal") masked = s.value.find("secret") == std::string::npos && s.source == "rc";
    CHECK(masked);
    env::apply_config(env::Config{});  // back to conda's defaults for the tests after this one
}

TEST_CASE("condarc: ssl_verify false warns, a path is the CA bundle", "[env][condarc]") {
    env::Config off;
    REQUIRE(env::merge_condarc(off, "ssl_verify: false\n", "rc"));
    auto warnings = env::apply_config(off);
    REQUIRE(warnings.size() == 1);
    CHECK(warnings[0].find("ssl-verify-off") != std::string::npos);
    env::Config path;
    REQUIRE(env::merge_condarc(path, "ssl_verify: /etc/my-ca.pem\n", "rc"));
    CHECK(env::apply_config(path).empty());
    CHECK(env::config().ssl_verify.value == "/etc/my-ca.pem");
    env::apply_config(env::Config{});
}

TEST_CASE("condarc: expand_vars as os.path.expandvars", "[env][condarc]") {
    EnvVar a("SF_TEST_VAR", "v"), b("SF_TEST_UNSET", nullptr);
    CHECK(env::expand_vars("a/$SF_TEST_VAR/${SF_TEST_VAR}b") == "a/v/vb");
    CHECK(env::expand_vars("$SF_TEST_UNSET/${SF_TEST_UNSET}") == "$SF_TEST_UNSET/${SF_TEST_UNSET}");
    CHECK(env::expand_vars("cost $5 and ${") == "cost $5 and ${");
}
