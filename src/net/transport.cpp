#include "net/transport.hpp"

#include <cctype>
#include <cstdlib>
#include <filesystem>
#include <mutex>

#include "net/url.hpp"

namespace sf::net {
namespace {

std::string env_or(const char* name) {
    const char* v = std::getenv(name);
    return v ? v : "";
}

// A number of seconds or tries as conda takes them (floats welcome),
// clamped to [lo, hi]; unparsable: `dflt`.
long env_long(const char* name, long dflt, long lo, long hi) {
    std::string v = env_or(name);
    if (v.empty()) return dflt;
    char* end = nullptr;
    double d = std::strtod(v.c_str(), &end);
    if (end == v.c_str() || *end) return dflt;
    return d < lo ? lo : d > hi ? hi : static_cast<long>(d + 0.5);
}

std::mutex g_mu;
std::optional<Transport> g_transport;

}  // namespace

Transport transport_from_env() {
    Transport t;
    t.max_retries = env_long("CONDA_REMOTE_MAX_RETRIES", 3, 0, 20);
    t.connect_timeout_s = env_long("CONDA_REMOTE_CONNECT_TIMEOUT_SECS", 30, 1, 3600);
    t.read_timeout_s = env_long("CONDA_REMOTE_READ_TIMEOUT_SECS", 60, 1, 3600);
    std::string v = env_or("CONDA_SSL_VERIFY");
    std::string lv;
    for (char c : v) lv += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    if (lv == "false" || lv == "no" || lv == "0") t.ssl_verify = false;
    else if (!v.empty() && lv != "true" && lv != "yes" && lv != "1") t.ca_bundle = v;
    // requests' variable, then OpenSSL's: the two conda's session honours.
    if (t.ca_bundle.empty()) t.ca_bundle = env_or("REQUESTS_CA_BUNDLE");
    if (t.ca_bundle.empty()) t.ca_bundle = env_or("SSL_CERT_FILE");
    t.netrc_file = env_or("NETRC");
    t.auth_file = env_or("RATTLER_AUTH_FILE");
    if (t.auth_file.empty()) {
        std::string home = env_or("HOME");
        std::error_code ec;
        std::filesystem::path f = std::filesystem::path(home) / ".rattler/credentials.json";
        if (!home.empty() && std::filesystem::exists(f, ec)) t.auth_file = f.string();
    }
    return t;
}

const Transport& transport() {
    std::lock_guard<std::mutex> lock(g_mu);
    if (!g_transport) g_transport = transport_from_env();
    return *g_transport;
}

void set_transport(Transport t) {
    std::lock_guard<std::mutex> lock(g_mu);
    g_transport = std::move(t);
}

std::optional<std::string> proxy_for(const Transport& t, const std::string& url) {
    const std::string scheme = scheme_of(url);
    if (auto it = t.proxies.find(scheme + "://" + host_of(url)); it != t.proxies.end()) return it->second;
    if (auto it = t.proxies.find(scheme); it != t.proxies.end()) return it->second;
    return std::nullopt;
}

}  // namespace sf::net
