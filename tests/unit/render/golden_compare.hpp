#pragma once
// Comparing a render with conda-build's own results (expected.* files made by
// the reference conda-build 24.11.2): the name/version/build triples, the
// non-finalized requirement lists and, where given, the hash contents.
#include <algorithm>
#include <filesystem>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "render/format.hpp"
#include "render/output.hpp"
#include "testutil.hpp"

namespace sf::test {

// "" when equal, else one line per difference.
inline std::string diff_builds(const render::RenderedRecipe& rr, const std::string& expected_tsv) {
    std::set<std::string> want, got;
    std::istringstream in(expected_tsv);
    for (std::string line; std::getline(in, line);)
        if (!line.empty()) want.insert(line);
    std::istringstream mine(render::builds_tsv(rr));
    for (std::string line; std::getline(mine, line);)
        if (!line.empty()) got.insert(line);
    std::string out;
    for (const auto& w : want)
        if (!got.count(w)) out += "- " + w + "\n";
    for (const auto& g : got)
        if (!want.count(g)) out += "+ " + g + "\n";
    return out;
}

// Each package of requirements.json (and hash.json, when given) must have an
// output with the same name, version and build whose non-finalized lists
// (and hash input) are the same.
inline std::string diff_packages(const render::RenderedRecipe& rr, const std::filesystem::path& requirements_json,
                                 const std::filesystem::path& hash_json = {}) {
    auto reqs = nlohmann::json::parse(slurp(requirements_json));
    nlohmann::json hashes = nlohmann::json::array();
    if (!hash_json.empty() && std::filesystem::exists(hash_json)) hashes = nlohmann::json::parse(slurp(hash_json));
    auto list = [](const std::vector<sf::types::Dependency>& v) { return nlohmann::json(sf::types::dependency_strings(v)); };
    std::string out;
    auto candidates = [&](const nlohmann::json& e) {
        std::vector<const render::RenderedOutput*> c;
        for (const auto& o : rr.outputs)
            if (o.name == e["name"] && o.version == e["version"] && o.build_string == e["build"]) c.push_back(&o);
        return c;
    };
    for (const auto& e : reqs) {
        std::string dist = e["name"].get<std::string>() + " " + e["version"].get<std::string>() + " " +
                           e["build"].get<std::string>();
        auto cands = candidates(e);
        if (cands.empty()) {
            out += dist + ": no such output\n";
            continue;
        }
        std::string first_diff;
        bool found = false;
        for (const auto* o : cands) {
            std::string d;
            for (const auto& [section, ours] :
                 std::vector<std::pair<std::string, const std::vector<sf::types::Dependency>*>>{
                     {"build", &o->nonfinal_requirements.build},
                     {"host", &o->nonfinal_requirements.host},
                     {"run", &o->nonfinal_requirements.run}}) {
                nlohmann::json want = e["requirements"].value(section, nlohmann::json::array());
                if (want != list(*ours))
                    d += dist + " " + section + ": want " + want.dump() + ", got " + list(*ours).dump() + "\n";
            }
            if (d.empty()) {
                found = true;
                break;
            }
            if (first_diff.empty()) first_diff = d;
        }
        if (!found) out += first_diff;
    }
    for (const auto& e : hashes) {
        std::string dist = e["name"].get<std::string>() + " " + e["build"].get<std::string>();
        auto cands = candidates(e);
        bool found = std::any_of(cands.begin(), cands.end(), [&](const render::RenderedOutput* o) {
            return nlohmann::json(o->hash_input) == e["hash_contents"];
        });
        if (!found && !cands.empty())
            out += dist + " hash: want " + e["hash_contents"].dump() + ", got " + cands[0]->hash_input.dump() + "\n";
    }
    return out;
}

}  // namespace sf::test
