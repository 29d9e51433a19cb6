// rattler's credentials.json (what `pixi auth login` writes): an object
// keyed by host or `*.domain`, each value one of {"BearerToken": T},
// {"BasicHTTP": {"username": U, "password": P}}, {"CondaToken": T}, or an
// OAuth entry whose access_token is sent as a bearer token. Other kinds
// (S3Credentials) are not HTTP credentials and are skipped.
#include <nlohmann/json.hpp>

#include <cctype>
#include <fstream>
#include <sstream>

#include "net/transport.hpp"

namespace sf::net {
namespace {

std::optional<Credential> from_entry(const nlohmann::json& v, const std::string& key) {
    if (!v.is_object()) return std::nullopt;
    Credential c;
    c.key = key;
    auto str = [](const nlohmann::json& j, const char* k) {
        return j.is_object() && j.contains(k) && j[k].is_string() ? j[k].get<std::string>() : std::string();
    };
    if (v.contains("BearerToken") && v["BearerToken"].is_string()) {
        c.token = v["BearerToken"].get<std::string>();
    } else if (v.contains("CondaToken") && v["CondaToken"].is_string()) {
        c.kind = Credential::Kind::conda_token;
        c.token = v["CondaToken"].get<std::string>();
    } else if (v.contains("BasicHTTP")) {
        c.kind = Credential::Kind::basic;
        c.username = str(v["BasicHTTP"], "username");
        c.password = str(v["BasicHTTP"], "password");
    } else if (v.contains("OAuth")) {
        c.token = str(v["OAuth"], "access_token");
    } else {
        return std::nullopt;
    }
    if (c.kind != Credential::Kind::basic && c.token.empty()) return std::nullopt;
    return c;
}

}  // namespace

std::string host_of(const std::string& url) {
    auto sep = url.find("://");
    std::size_t start = sep == std::string::npos ? 0 : sep + 3;
    std::size_t end = url.find_first_of("/?#", start);
    std::string auth = url.substr(start, end == std::string::npos ? std::string::npos : end - start);
    if (auto at = auth.rfind('@'); at != std::string::npos) auth = auth.substr(at + 1);
    if (!auth.empty() && auth[0] == '[') auth = auth.substr(0, auth.find(']') + 1);
    else if (auto colon = auth.find(':'); colon != std::string::npos) auth = auth.substr(0, colon);
    for (auto& c : auth) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return auth;
}

Result<std::optional<Credential>> credential_for(const std::string& file, const std::string& host) {
    std::ifstream in(file);
    if (!in) return std::optional<Credential>();
    std::stringstream ss;
    ss << in.rdbuf();
    nlohmann::json j = nlohmann::json::parse(ss.str(), nullptr, false);
    if (j.is_discarded() || !j.is_object())
        return fail(SourceLoc{file}, "not a rattler credentials file (a JSON object keyed by host)",
                    "fix or remove it, or point RATTLER_AUTH_FILE elsewhere");
    if (host.empty()) return std::optional<Credential>();
    if (j.contains(host)) return from_entry(j[host], host);
    // `*.prefix.dev` covers repo.prefix.dev; each parent domain in turn.
    std::string domain = host;
    while (true) {
        const std::string wild = "*." + domain;
        if (j.contains(wild)) return from_entry(j[wild], wild);
        auto dot = domain.find('.');
        if (dot == std::string::npos) break;
        domain = domain.substr(dot + 1);
    }
    return std::optional<Credential>();
}

}  // namespace sf::net
