#include "cli/common.hpp"
#include "recipe/raw_recipe.hpp"

#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <iostream>

#include "feedstock/recipe_extra.hpp"
#include "util/strings.hpp"

namespace sf::cli {

void Console::resolve() {
    const char* no_color = std::getenv("NO_COLOR");
    if (color_opt == "always")
        color = true;
    else if (color_opt == "never" || (no_color && *no_color))
        color = false;
    else
        color = ::isatty(STDERR_FILENO) == 1 && std::getenv("TERM") && std::string(std::getenv("TERM")) != "dumb";
    progress = progress_opt == "always" || (progress_opt == "auto" && ::isatty(STDERR_FILENO) == 1);
}

namespace {
void say(bool color, const char* code, const char* label, const std::string& text) {
    std::cerr << "splitforge: ";
    if (color)
        std::cerr << "\033[" << code << "m" << label << "\033[0m";
    else
        std::cerr << label;
    std::cerr << ": " << text << "\n";
}
}  // namespace

void Console::warning(const std::string& text) const { say(color, "1;33", "warning", text); }
void Console::error(const std::string& text) const { say(color, "1;31", "error", text); }
void Console::note(const std::string& text) const { say(color, "1;36", "note", text); }

void ConsoleReporter::warning(const Error& w) {
    if (!console_.color) return Reporter::warning(w);
    std::cerr << "\033[1;33mwarning\033[0m: " << w.str() << std::endl;
}

void Console::print_json(const nlohmann::json& j) const { std::cout << j.dump(2) << "\n"; }

CLI::Validator one_of(std::vector<std::string> names) {
    std::string list;
    for (size_t i = 0; i < names.size(); ++i) list += (i == 0 ? "" : i + 1 == names.size() ? " or " : ", ") + names[i];
    auto check = [names, list](std::string& value) -> std::string {
        if (std::find(names.begin(), names.end(), value) != names.end()) return {};
        std::string near = str::closest(value, names);
        return "'" + value + "' is not one of " + list + (near.empty() ? std::string() : "; did you mean '" + near + "'?");
    };
    return CLI::Validator(check, "{" + str::join(names, ",") + "}");
}

void add_json_flag(CLI::App* sub, Cli& cli, const std::string& what) { sub->add_flag("--json", cli.console.json, what); }

std::string recipe_dir_arg(const std::string& given) {
    namespace stdfs = std::filesystem;
    std::error_code ec;
    stdfs::path p(given);
    if (!stdfs::is_regular_file(p, ec)) return given;
    if (p.filename() != "meta.yaml" && p.filename() != "recipe.yaml")
        throw Failure(Error{SourceLoc{given}, "not a recipe",
                            "give the recipe directory, its meta.yaml or its recipe.yaml"});
    auto dir = p.parent_path();
    return dir.empty() ? std::string(".") : dir.string();
}

std::string checked_recipe_dir(const std::string& given) {
    std::string dir = recipe_dir_arg(given);
    if (auto ok = feedstock::validate_splitforge_extra(std::filesystem::path(dir)); !ok) throw Failure(ok.error());
    return dir;
}

recipe::RawRecipe load_checked_recipe(const std::string& given) {
    auto raw = value_or_throw(recipe::RawRecipe::load(recipe_dir_arg(given)));
    if (auto ok = feedstock::validate_splitforge_extra(raw); !ok) throw Failure(ok.error());
    return raw;
}

CLI::Option* add_output_folder(CLI::App* sub, std::string& into, const std::string& help, ShortO short_o) {
    return sub->add_option(short_o == ShortO::yes ? "-o,--output-folder,--output-dir" : "--output-folder,--output-dir",
                           into, help);
}

void print_warnings(const Console& console, const std::vector<Error>& warnings) {
    for (const auto& w : warnings) console.warning(w.str());
}

nlohmann::json error_json(const Error& e, Exit code) {
    nlohmann::json err = {{"message", e.message}};
    if (!e.loc.file.empty()) err["file"] = e.loc.file;
    if (e.loc.line > 0) err["line"] = e.loc.line;
    if (!e.hint.empty()) err["hint"] = e.hint;
    err["text"] = e.str();
    return {{"ok", false}, {"exit_code", static_cast<int>(code)}, {"error", err}};
}

}  // namespace sf::cli
