#include "publish/aws.hpp"

#include <filesystem>

#include "util/fs.hpp"
#include "util/strings.hpp"

namespace sf::publish {

namespace {

std::string get(const EnvVars& env, const std::string& k) {
    auto it = env.find(k);
    return it == env.end() ? std::string() : it->second;
}

std::string home_file(const EnvVars& env, const std::string& var, const std::string& rel) {
    std::string p = get(env, var);
    if (!p.empty()) return p;
    const std::string home = get(env, "HOME");
    return home.empty() ? std::string() : home + "/.aws/" + rel;
}

}  // namespace

Result<std::map<std::string, std::map<std::string, std::string>>> read_aws_ini(const std::string& path) {
    std::map<std::string, std::map<std::string, std::string>> out;
    std::error_code ec;
    if (path.empty() || !std::filesystem::exists(path, ec)) return out;
    auto text = fs::read_input_file(path, 1u << 20);
    if (!text) return unexpected(text.error());
    std::string section;
    int n = 0;
    for (const auto& raw : str::split_lines(*text)) {
        ++n;
        std::string line(str::trim(raw));
        if (line.empty() || line[0] == '#' || line[0] == ';') continue;
        if (line.front() == '[') {
            if (line.back() != ']') return fail(SourceLoc{path, n}, "a section header without its ']'");
            section = std::string(str::trim(line.substr(1, line.size() - 2)));
            continue;
        }
        const auto eq = line.find('=');
        if (eq == std::string::npos) continue;  // a nested block's lines, which S3 does not read
        out[section][std::string(str::trim(line.substr(0, eq)))] = std::string(str::trim(line.substr(eq + 1)));
    }
    return out;
}

Result<AwsSetup> aws_setup(const EnvVars& env) {
    AwsSetup s;
    std::string profile = get(env, "AWS_PROFILE");
    const bool named = !profile.empty();
    if (profile.empty()) profile = "default";
    s.credentials = {get(env, "AWS_ACCESS_KEY_ID"), get(env, "AWS_SECRET_ACCESS_KEY"), get(env, "AWS_SESSION_TOKEN")};
    const std::string cred_file = home_file(env, "AWS_SHARED_CREDENTIALS_FILE", "credentials");
    if (s.credentials.access_key_id.empty() || s.credentials.secret_access_key.empty()) {
        auto ini = read_aws_ini(cred_file);
        if (!ini) return unexpected(ini.error());
        auto it = ini->find(profile);
        if (it == ini->end() && named)
            return fail(SourceLoc{cred_file}, "has no profile [" + profile + "] (AWS_PROFILE)", "add it, or set AWS_PROFILE to one it has");
        if (it != ini->end())
            s.credentials = {it->second["aws_access_key_id"], it->second["aws_secret_access_key"],
                             it->second["aws_session_token"]};
    }
    if (s.credentials.access_key_id.empty() || s.credentials.secret_access_key.empty())
        return fail("no AWS credentials",
                    "set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, or a profile in ~/.aws/credentials (AWS_PROFILE)");
    s.region = get(env, "AWS_REGION");
    if (s.region.empty()) s.region = get(env, "AWS_DEFAULT_REGION");
    if (s.region.empty()) {
        auto ini = read_aws_ini(home_file(env, "AWS_CONFIG_FILE", "config"));
        if (!ini) return unexpected(ini.error());
        auto it = ini->find(profile == "default" ? profile : "profile " + profile);
        if (it != ini->end()) s.region = it->second["region"];
    }
    if (s.region.empty()) s.region = "us-east-1";
    s.endpoint = get(env, "AWS_ENDPOINT_URL_S3");
    if (s.endpoint.empty()) s.endpoint = get(env, "AWS_ENDPOINT_URL");
    while (str::ends_with(s.endpoint, "/")) s.endpoint.pop_back();
    return s;
}

}  // namespace sf::publish
