#include "env/condarc.hpp"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <fstream>
#include <mutex>
#include <optional>
#include <set>
#include <sstream>

#include "net/transport.hpp"
#include "net/url.hpp"

namespace sf::env {
namespace {

std::string getenv_s(const char* name) {
    const char* v = std::getenv(name);
    return v ? v : "";
}

std::string lower(std::string s) {
    for (auto& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return s;
}

// conda's boolean spellings; nullopt for anything else.
std::optional<bool> as_bool(const std::string& s) {
    const std::string l = lower(s);
    if (l == "true" || l == "yes" || l == "on" || l == "1") return true;
    if (l == "false" || l == "no" || l == "off" || l == "0") return false;
    return std::nullopt;
}

// Later lines first, then the earlier ones, each once (conda's
// SequenceLoadedParameter.merge without markers).
void merge_list(std::vector<Sourced>& into, std::vector<Sourced> later) {
    std::set<std::string> seen;
    std::vector<Sourced> out;
    for (auto& v : later)
        if (seen.insert(v.value).second) out.push_back(std::move(v));
    for (auto& v : into)
        if (seen.insert(v.value).second) out.push_back(std::move(v));
    into = std::move(out);
}

// The order-preserving dedupe conda's `unique` does, over paths.
std::vector<stdfs::path> unique_paths(const std::vector<stdfs::path>& in) {
    std::set<std::string> seen;
    std::vector<stdfs::path> out;
    for (const auto& p : in)
        if (seen.insert(p.lexically_normal().string()).second) out.push_back(p);
    return out;
}

struct Key {
    const char* name;
    enum Kind { scalar, list, map } kind;
    Sourced Config::* scalar_field = nullptr;
    std::vector<Sourced> Config::* list_field = nullptr;
    std::map<std::string, Sourced> Config::* map_field = nullptr;
    bool expand = false;  // conda's expandvars=True
};

const std::vector<Key>& keys() {
    static const std::vector<Key> k = {
        {"channels", Key::list, nullptr, &Config::channels, nullptr, true},
        {"channel", Key::list, nullptr, &Config::channels, nullptr, true},
        {"default_channels", Key::list, nullptr, &Config::default_channels, nullptr, true},
        {"pkgs_dirs", Key::list, nullptr, &Config::pkgs_dirs, nullptr, true},
        {"channel_alias", Key::scalar, &Config::channel_alias, nullptr, nullptr, true},
        {"ssl_verify", Key::scalar, &Config::ssl_verify, nullptr, nullptr, true},
        {"verify_ssl", Key::scalar, &Config::ssl_verify, nullptr, nullptr, true},
        {"offline", Key::scalar, &Config::offline, nullptr, nullptr, false},
        {"remote_max_retries", Key::scalar, &Config::remote_max_retries, nullptr, nullptr, false},
        {"remote_connect_timeout_secs", Key::scalar, &Config::remote_connect_timeout_secs, nullptr, nullptr, false},
        {"remote_read_timeout_secs", Key::scalar, &Config::remote_read_timeout_secs, nullptr, nullptr, false},
        {"custom_channels", Key::map, nullptr, nullptr, &Config::custom_channels, true},
        {"proxy_servers", Key::map, nullptr, nullptr, &Config::proxy_servers, true},
    };
    return k;
}

// A scalar's text, checked by kind: offline a boolean, the remote_* a
// number, ssl_verify a boolean or a path.
Result<std::string> scalar_value(const Key& k, const YAML::Node& v, const SourceLoc& at) {
    if (!v.IsScalar()) return fail(at, std::string(k.name) + ": expected a single value");
    std::string s = v.as<std::string>();
    const std::string name = k.name;
    if (name == "offline" || name == "ssl_verify" || name == "verify_ssl") {
        if (auto b = as_bool(s)) return std::string(*b ? "true" : "false");
        if (name == "offline") return fail(at, "offline: expected true or false, not '" + s + "'");
    }
    if (name.rfind("remote_", 0) == 0) {
        char* end = nullptr;
        double d = std::strtod(s.c_str(), &end);
        if (s.empty() || *end || d < 0) return fail(at, name + ": expected a number, not '" + s + "'");
    }
    return k.expand ? expand_vars(s) : s;
}

Result<void> merge_key(Config& c, const Key& k, const YAML::Node& v, const std::string& source, int line) {
    const SourceLoc at{source, line};
    if (v.IsNull()) return {};
    if (k.kind == Key::scalar) {
        auto s = scalar_value(k, v, at);
        if (!s) return Unexpected<Error>{s.error()};
        c.*k.scalar_field = Sourced{*s, source};
        return {};
    }
    if (k.kind == Key::list) {
        if (!v.IsSequence()) return fail(at, std::string(k.name) + ": expected a list");
        std::vector<Sourced> later;
        for (const auto& item : v) {
            if (!item.IsScalar()) return fail(SourceLoc{source, item.Mark().line + 1}, std::string(k.name) + ": expected a list of names");
            later.push_back({expand_vars(item.as<std::string>()), source});
        }
        merge_list(c.*k.list_field, std::move(later));
        return {};
    }
    if (!v.IsMap()) return fail(at, std::string(k.name) + ": expected a mapping");
    for (const auto& kv : v) {
        if (!kv.second.IsScalar() && !kv.second.IsNull())
            return fail(SourceLoc{source, kv.first.Mark().line + 1}, std::string(k.name) + ": expected NAME: URL");
        std::string value = kv.second.IsNull() ? "" : expand_vars(kv.second.as<std::string>());
        (c.*k.map_field)[kv.first.as<std::string>()] = Sourced{value, source};
    }
    return {};
}

std::mutex g_mu;
std::optional<Config> g_config;

Config env_only() {
    Config c;
    merge_env(c);
    return c;
}

}  // namespace

std::string expand_vars(const std::string& s) {
    std::string out;
    std::size_t i = 0;
    if (!s.empty() && s[0] == '~' && (s.size() == 1 || s[1] == '/') && !getenv_s("HOME").empty()) {
        out = getenv_s("HOME");
        i = 1;
    }
    auto name_char = [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; };
    while (i < s.size()) {
        if (s[i] != '$') {
            out += s[i++];
            continue;
        }
        bool braced = i + 1 < s.size() && s[i + 1] == '{';
        std::size_t start = i + (braced ? 2 : 1), end = start;
        while (end < s.size() && name_char(s[end])) ++end;
        bool closed = !braced || (end < s.size() && s[end] == '}');
        const char* v = end > start && closed ? std::getenv(s.substr(start, end - start).c_str()) : nullptr;
        std::size_t after = braced && closed ? end + 1 : end;
        out += v ? std::string(v) : s.substr(i, after - i);
        i = after > i ? after : i + 1;
    }
    return out;
}

std::vector<stdfs::path> condarc_search_path() {
    std::vector<std::string> dirs = {"/etc/conda", "/var/lib/conda"};
    if (auto root = getenv_s("CONDA_ROOT"); !root.empty()) dirs.push_back(root);
    const std::string home = getenv_s("HOME"), xdg = getenv_s("XDG_CONFIG_HOME");
    if (!xdg.empty()) dirs.push_back(xdg + "/conda");
    if (!home.empty()) dirs.push_back(home + "/.config/conda");
    if (!home.empty()) dirs.push_back(home + "/.conda");
    std::vector<stdfs::path> out;
    for (const auto& d : dirs)
        for (const char* f : {".condarc", "condarc", "condarc.d"}) out.push_back(stdfs::path(d) / f);
    if (!home.empty()) out.push_back(stdfs::path(home) / ".condarc");
    if (auto prefix = getenv_s("CONDA_PREFIX"); !prefix.empty())
        for (const char* f : {".condarc", "condarc", "condarc.d"}) out.push_back(stdfs::path(prefix) / f);
    if (auto rc = getenv_s("CONDARC"); !rc.empty()) out.push_back(expand_vars(rc));
    return unique_paths(out);
}

Result<void> merge_condarc(Config& into, const std::string& text, const std::string& source) {
    YAML::Node root;
    try {
        root = YAML::Load(text);
    } catch (const YAML::Exception& e) {
        return fail(SourceLoc{source, e.mark.line + 1}, "not valid YAML: " + e.msg, "fix or remove the file");
    }
    if (root.IsNull()) return {};
    if (!root.IsMap()) return fail(SourceLoc{source, 1}, "a .condarc is a mapping of settings (KEY: VALUE)");
    for (const auto& kv : root) {
        const std::string key = kv.first.IsScalar() ? kv.first.as<std::string>() : "";
        if (key == "conda_build" && kv.second.IsMap() && kv.second["config_file"] && kv.second["config_file"].IsScalar())
            into.conda_build_config_file = {expand_vars(kv.second["config_file"].Scalar()), source};
        auto k = std::find_if(keys().begin(), keys().end(), [&](const Key& x) { return key == x.name; });
        if (k == keys().end()) continue;
        auto r = merge_key(into, *k, kv.second, source, kv.first.Mark().line + 1);
        if (!r) return r;
    }
    into.files.push_back(source);
    return {};
}

void merge_env(Config& c) {
    for (const auto& k : keys()) {
        if (k.kind == Key::map || std::string(k.name) == "channel" || std::string(k.name) == "verify_ssl") continue;
        std::string var = std::string("CONDA_") + k.name;
        std::transform(var.begin(), var.end(), var.begin(), [](unsigned char ch) { return std::toupper(ch); });
        const char* raw = std::getenv(var.c_str());
        if (!raw || !*raw) continue;
        const std::string v = raw, source = "$" + var;
        if (k.kind == Key::list) {
            // conda splits a list variable on commas.
            std::vector<Sourced> later;
            std::stringstream ss(v);
            for (std::string item; std::getline(ss, item, ',');) {
                item.erase(0, item.find_first_not_of(" \t"));
                item.erase(item.find_last_not_of(" \t") + 1);
                if (!item.empty()) later.push_back({expand_vars(item), source});
            }
            merge_list(c.*k.list_field, std::move(later));
        } else if (auto b = as_bool(v); b && (var == "CONDA_OFFLINE" || var == "CONDA_SSL_VERIFY")) {
            c.*k.scalar_field = Sourced{*b ? "true" : "false", source};
        } else if (var != "CONDA_OFFLINE") {
            c.*k.scalar_field = Sourced{k.expand ? expand_vars(v) : v, source};
        }
    }
}

Result<Config> load_config() {
    Config c;
    auto read_one = [&](const stdfs::path& f) -> Result<void> {
        std::ifstream in(f);
        if (!in) return {};
        std::stringstream ss;
        ss << in.rdbuf();
        return merge_condarc(c, ss.str(), f.string());
    };
    std::error_code ec;
    for (const auto& p : condarc_search_path()) {
        if (stdfs::is_directory(p, ec)) {
            // condarc.d: its *.yml and *.yaml files, sorted by name.
            std::vector<stdfs::path> files;
            for (const auto& e : stdfs::directory_iterator(p, ec))
                if (e.path().extension() == ".yml" || e.path().extension() == ".yaml") files.push_back(e.path());
            std::sort(files.begin(), files.end());
            for (const auto& f : files)
                if (auto r = read_one(f); !r) return Unexpected<Error>{r.error()};
        } else if (stdfs::is_regular_file(p, ec)) {
            if (auto r = read_one(p); !r) return Unexpected<Error>{r.error()};
        }
    }
    merge_env(c);
    return c;
}

const Config& config() {
    std::lock_guard<std::mutex> lock(g_mu);
    if (!g_config) g_config = env_only();
    return *g_config;
}

namespace {

long to_long(const Sourced& s, long lo, long hi) {
    double d = std::strtod(s.value.c_str(), nullptr);
    return d < lo ? lo : d > hi ? hi : static_cast<long>(d + 0.5);
}

}  // namespace

std::vector<std::string> apply_config(Config c) {
    std::vector<std::string> warnings;
    net::Transport t = net::transport_from_env();
    t.max_retries = to_long(c.remote_max_retries, 0, 20);
    t.connect_timeout_s = to_long(c.remote_connect_timeout_secs, 1, 3600);
    t.read_timeout_s = to_long(c.remote_read_timeout_secs, 1, 3600);
    if (c.ssl_verify.value == "false") {
        t.ssl_verify = false;
        warnings.push_back("TLS certificates are not verified (ssl_verify: false in " + c.ssl_verify.source +
                           "): anyone on the network path can serve packages [ssl-verify-off]");
    } else if (c.ssl_verify.value != "true") {
        t.ca_bundle = c.ssl_verify.value;  // ssl_verify: PATH, over REQUESTS_CA_BUNDLE/SSL_CERT_FILE
    }
    for (const auto& [k, v] : c.proxy_servers)
        if (!v.value.empty()) t.proxies[k] = v.value;
    net::set_transport(std::move(t));
    std::lock_guard<std::mutex> lock(g_mu);
    g_config = std::move(c);
    return warnings;
}

std::vector<Sourced> effective_channels(const std::vector<std::string>& given, bool override_channels,
                                        const std::string& given_source) {
    const Config& c = config();
    std::vector<Sourced> list;
    for (const auto& g : given) list.push_back({g, given_source});
    if (!override_channels) list.insert(list.end(), c.channels.begin(), c.channels.end());
    std::vector<Sourced> defaults = c.default_channels;
    if (defaults.empty())  // conda's DEFAULT_CHANNELS_UNIX
        defaults = {{"https://repo.anaconda.com/pkgs/main", "default"}, {"https://repo.anaconda.com/pkgs/r", "default"}};
    std::vector<Sourced> out;
    std::set<std::string> seen;
    for (const auto& ch : list) {
        if (ch.value == "defaults") {
            for (const auto& d : defaults)
                if (seen.insert(d.value).second) out.push_back({d.value, d.source == "default" ? ch.source : d.source});
        } else if (seen.insert(ch.value).second) {
            out.push_back(ch);
        }
    }
    return out;
}

}  // namespace sf::env

namespace sf::env {

std::string masked(const std::string& text) { return net::mask_text(text); }

std::vector<Shown> shown_settings(const Config& c) {
    std::vector<Shown> out;
    auto add = [&](const std::string& k, const Sourced& s) { out.push_back({k, masked(s.value), s.source}); };
    add("channel_alias", c.channel_alias);
    for (const auto& d : c.default_channels) add("default_channels", d);
    for (const auto& [k, v] : c.custom_channels) add("custom_channels." + k, v);
    add("ssl_verify", c.ssl_verify);
    for (const auto& [k, v] : c.proxy_servers) add("proxy_servers." + k, v);
    add("offline", c.offline);
    for (const auto& d : c.pkgs_dirs) add("pkgs_dirs", d);
    add("remote_max_retries", c.remote_max_retries);
    add("remote_connect_timeout_secs", c.remote_connect_timeout_secs);
    add("remote_read_timeout_secs", c.remote_read_timeout_secs);
    const net::Transport& t = net::transport();
    if (c.ssl_verify.value == "true") {
        const char* var = !getenv_s("REQUESTS_CA_BUNDLE").empty() ? "$REQUESTS_CA_BUNDLE"
                          : !getenv_s("SSL_CERT_FILE").empty()    ? "$SSL_CERT_FILE"
                                                                  : nullptr;
        out.push_back({"ca_bundle", var ? t.ca_bundle : "(libcurl's default)", var ? var : "default"});
    }
    out.push_back({"netrc", t.netrc_file.empty() ? "~/.netrc" : t.netrc_file, t.netrc_file.empty() ? "default" : "$NETRC"});
    out.push_back({"auth_file", t.auth_file.empty() ? "(none)" : t.auth_file,
                   !getenv_s("RATTLER_AUTH_FILE").empty() ? "$RATTLER_AUTH_FILE" : "default"});
    return out;
}

}  // namespace sf::env
