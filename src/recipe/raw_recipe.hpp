#pragma once
// RawRecipe: a recipe directory as text, before any evaluation. Stage 0 of
// the recipe types; render/ turns it into RenderedOutputs (stage 1).
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <yaml-cpp/yaml.h>

#include "core/error.hpp"
#include "recipe/selectors.hpp"

namespace sf::recipe {

struct RawRecipe {
    std::filesystem::path dir;
    std::string meta_file;  // path shown in messages, e.g. "recipe/meta.yaml"
    std::string text;       // meta.yaml as read
    std::vector<SelectorLine> lines;  // text split by split_selectors()
    std::optional<std::filesystem::path> config_file;  // <dir>/conda_build_config.yaml

    // Reads meta.yaml; rejects non-UTF-8 bytes and tabs in indentation with
    // file:line:col errors.
    static Result<RawRecipe> load(const std::filesystem::path& dir);
    // From text, for tests and fuzzing (no directory, no scripts).
    static Result<RawRecipe> from_text(std::string text, std::string file = "meta.yaml");

    // A script file next to meta.yaml (build.sh, or an output's script), or
    // null when it does not exist.
    const std::string* script_text(const std::string& relative) const;  // read once; null when absent

    std::string display_path(const std::string& relative) const;

private:
    mutable std::map<std::string, std::optional<std::string>> scripts_;
};

// Text -> YAML, with yaml-cpp errors mapped to file:line:col through
// `line_map` (line i of `text` came from source line line_map[i]).
// A duplicate mapping key keeps its last value with a warning in `diag`
// (PyYAML's rule); without `diag`, or under --strict, it is an error.
Result<YAML::Node> parse_yaml(const std::string& text, const std::string& file,
                              const std::vector<int>& line_map = {}, Diagnostics* diag = nullptr);

// Checks for bytes that are not UTF-8 and tabs used for indentation.
Result<void> check_text(const std::string& text, const std::string& file);

}  // namespace sf::recipe
