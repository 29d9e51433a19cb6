#include "types/recipe_values.hpp"

namespace sf::types {

namespace {

const char* const kRunExportKeys[] = {"weak", "strong", "noarch", "weak_constrains", "strong_constrains"};

std::vector<std::string>* field(RunExports& r, int i) {
    std::vector<std::string>* f[] = {&r.weak, &r.strong, &r.noarch, &r.weak_constrains, &r.strong_constrains};
    return f[i];
}

}  // namespace

nlohmann::json RunExports::to_json() const {
    nlohmann::json j = nlohmann::json::object();
    RunExports copy = *this;
    for (int i = 0; i < 5; ++i)
        if (!field(copy, i)->empty()) j[kRunExportKeys[i]] = *field(copy, i);
    return j;
}

RunExports RunExports::from_json(const nlohmann::json& j) {
    RunExports re;
    auto strings = [](const nlohmann::json& a, std::vector<std::string>& into) {
        if (!a.is_array()) return;
        for (const auto& x : a)
            if (x.is_string()) into.push_back(x.get<std::string>());
    };
    if (j.is_array()) {  // the legacy list form means weak
        strings(j, re.weak);
        return re;
    }
    if (!j.is_object()) return re;
    for (int i = 0; i < 5; ++i)
        if (auto it = j.find(kRunExportKeys[i]); it != j.end()) strings(*it, *field(re, i));
    return re;
}

}  // namespace sf::types
