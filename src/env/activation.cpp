#include "env/activation.hpp"

#include <algorithm>
#include <map>
#include <system_error>

#include <nlohmann/json.hpp>

#include "types/json_fields.hpp"
#include "util/fs.hpp"
#include "util/strings.hpp"

namespace sf::env {

namespace stdfs = std::filesystem;

namespace {

// Which package's conda-meta record lists each etc/conda/activate.d file.
std::map<std::string, std::string> owners(const stdfs::path& prefix) {
    std::map<std::string, std::string> out;
    std::error_code ec;
    for (const auto& e : stdfs::directory_iterator(prefix / "conda-meta", ec)) {
        if (e.path().extension() != ".json") continue;
        auto text = fs::read_file(e.path());
        if (!text || types::json_too_deep(*text)) continue;
        auto j = nlohmann::json::parse(*text, nullptr, false);
        if (!j.is_object() || !j.contains("name") || !j["name"].is_string() || !j.contains("files") ||
            !j["files"].is_array())
            continue;
        for (const auto& f : j["files"])
            if (f.is_string() && str::starts_with(f.get<std::string>(), "etc/conda/activate.d/"))
                out[f.get<std::string>()] = j["name"].get<std::string>();
    }
    return out;
}

}  // namespace

std::vector<ActivateScript> activate_scripts(const stdfs::path& prefix) {
    std::vector<ActivateScript> out;
    const stdfs::path dir = prefix / "etc/conda/activate.d";
    std::error_code ec;
    for (const auto& e : stdfs::directory_iterator(dir, ec))
        if (str::ends_with(e.path().filename().string(), ".sh")) out.push_back({e.path(), ""});
    if (out.empty()) return out;
    std::sort(out.begin(), out.end(),
              [](const ActivateScript& a, const ActivateScript& b) { return a.path.string() < b.path.string(); });
    const auto who = owners(prefix);
    for (auto& s : out)
        if (auto it = who.find("etc/conda/activate.d/" + s.path.filename().string()); it != who.end())
            s.package = it->second;
    return out;
}

}  // namespace sf::env
