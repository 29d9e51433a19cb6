#pragma once
// How every transfer is made, set once per process by the caller that read
// the user's configuration (env/condarc.hpp): TLS verification and CA
// bundle, proxies, retries and timeouts, and where credentials come from
// (~/.netrc, rattler's credentials.json). Until set, transport() holds
// conda's environment variables over conda's defaults.
#include <map>
#include <optional>
#include <string>

#include "core/error.hpp"

namespace sf::net {

struct Transport {
    bool ssl_verify = true;
    std::string ca_bundle;  // a PEM file; empty: libcurl's (OpenSSL's) default
    // conda's proxy_servers: "http", "https", "scheme://host" -> proxy URL.
    // Empty: libcurl reads http_proxy, https_proxy and no_proxy itself.
    std::map<std::string, std::string> proxies;
    long max_retries = 3;
    long connect_timeout_s = 30;
    long read_timeout_s = 60;
    std::string netrc_file;  // empty: $NETRC, else ~/.netrc (libcurl's default)
    std::string auth_file;   // rattler's credentials.json; empty: none
};

// $CONDA_REMOTE_MAX_RETRIES, $CONDA_REMOTE_CONNECT_TIMEOUT_SECS,
// $CONDA_REMOTE_READ_TIMEOUT_SECS, $CONDA_SSL_VERIFY, $REQUESTS_CA_BUNDLE,
// $SSL_CERT_FILE, $NETRC and $RATTLER_AUTH_FILE (else
// ~/.rattler/credentials.json when it exists) over the defaults.
Transport transport_from_env();

const Transport& transport();
void set_transport(Transport t);

// The proxy for `url` under `t.proxies` as conda's requests picks it
// (`scheme://host` before `scheme`); nullopt: none set for it.
std::optional<std::string> proxy_for(const Transport& t, const std::string& url);

// Credentials rattler's auth file holds for a host: exact host first, then
// `*.domain` for each parent domain, as rattler's AuthenticationStorage.
struct Credential {
    enum class Kind { bearer, basic, conda_token } kind = Kind::bearer;
    std::string token, username, password;
    std::string key;  // the entry that matched, e.g. "*.prefix.dev"
};
// Reads and parses `file` (a missing file: none); a malformed file is an
// input error naming it.
Result<std::optional<Credential>> credential_for(const std::string& file, const std::string& host);

// The host of `scheme://[userinfo@]host[:port]/...`, lowercased.
std::string host_of(const std::string& url);

}  // namespace sf::net
