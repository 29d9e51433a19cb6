#include "types/recipe_values.hpp"

#include <cctype>
#include <utility>

namespace sf::types {

namespace {

// The run_exports.json keys and the fields they fill.
const std::pair<const char*, std::vector<std::string> RunExports::*> kFields[] = {
    {"weak", &RunExports::weak},
    {"strong", &RunExports::strong},
    {"noarch", &RunExports::noarch},
    {"weak_constrains", &RunExports::weak_constrains},
    {"strong_constrains", &RunExports::strong_constrains},
};

}  // namespace

std::string_view to_string(NoArch n) {
    switch (n) {
        case NoArch::none: return "";
        case NoArch::generic: return "generic";
        case NoArch::python: return "python";
    }
    return "";
}

Result<NoArch> parse_noarch(std::string_view text) {
    if (text.empty()) return NoArch::none;
    if (text == "generic") return NoArch::generic;
    if (text == "python") return NoArch::python;
    return fail("invalid noarch '" + std::string(text) + "'", "use 'generic' or 'python'");
}

Result<void> check_git_rev(std::string_view key, std::string_view rev) {
    if (!rev.empty() && rev.front() == '-')
        return fail(std::string(key) + " '" + std::string(rev) + "' starts with '-', which git would read as an option",
                    "name a branch, tag or commit of the repository");
    return {};
}

Result<void> check_git_url(std::string_view key, std::string_view url) {
    if (!url.empty() && url.front() == '-')
        return fail(std::string(key) + " '" + std::string(url) + "' starts with '-', which git would read as an option",
                    "give a clone URL or a local repository path");
    // git's own test (transport.c): a scheme of letters, digits, '+', '-'
    // and '.', starting with a letter, then "::" hands the rest to
    // git-remote-<scheme>.
    size_t i = 0;
    while (i < url.size() && (std::isalpha(static_cast<unsigned char>(url[i])) ||
                              (i > 0 && (std::isdigit(static_cast<unsigned char>(url[i])) || url[i] == '+' ||
                                         url[i] == '-' || url[i] == '.'))))
        ++i;
    if (i > 0 && url.substr(i, 2) == "::")
        return fail(std::string(key) + " '" + std::string(url) + "' names the git transport helper '" +
                        std::string(url.substr(0, i)) + "::', which runs a program",
                    "give an https://, ssh:// or git:// URL, or a local repository path");
    return {};
}

nlohmann::json RunExports::to_json() const {
    nlohmann::json j = nlohmann::json::object();
    for (const auto& [key, field] : kFields)
        if (!(this->*field).empty()) j[key] = this->*field;
    return j;
}

RunExports RunExportDeps::strings() const {
    return {dependency_strings(weak), dependency_strings(strong), dependency_strings(noarch),
            dependency_strings(weak_constrains), dependency_strings(strong_constrains)};
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
    for (const auto& [key, field] : kFields)
        if (auto it = j.find(key); it != j.end()) strings(*it, re.*field);
    return re;
}

}  // namespace sf::types
