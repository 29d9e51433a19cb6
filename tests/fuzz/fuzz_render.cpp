// Fuzz target: the whole render path. The input is a meta.yaml, optionally
// followed by "\n#---\n" and a conda_build_config.yaml; both go through
// selectors, Jinja, YAML (aliases included) and the variant matrix, then
// every output is rendered. Errors are fine; a crash, a hang or an error
// that is not one line is not.
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include "recipe/raw_recipe.hpp"
#include "render/render.hpp"
#include "variant/selection.hpp"

namespace {

const std::filesystem::path& work_dir() {
    static const std::filesystem::path dir = [] {
        auto d = std::filesystem::temp_directory_path() / ("fuzz_render-" + std::to_string(::getpid()));
        std::filesystem::create_directories(d);
        return d;
    }();
    return dir;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    std::string input(reinterpret_cast<const char*>(data), size);
    std::string meta = input, config;
    if (auto cut = input.find("\n#---\n"); cut != std::string::npos) {
        meta = input.substr(0, cut);
        config = input.substr(cut + 6);
    }
    auto raw = sf::recipe::RawRecipe::from_text(meta, "meta.yaml");
    if (!raw) {
        if (raw.error().str().find('\n') != std::string::npos) std::abort();
        return 0;
    }
    raw->dir = work_dir();
    auto cbc = work_dir() / "conda_build_config.yaml";
    if (!config.empty()) {
        std::ofstream(cbc, std::ios::binary | std::ios::trunc) << config;
        raw->config_file = cbc;
    }
    for (const char* platform : {"linux-64", "win-64"}) {
        auto sel = sf::variant::select(platform, {}, {});
        if (!sel) std::abort();
        auto rr = sf::render::render(*raw, *sel);
        if (!rr && rr.error().str().find('\n') != std::string::npos) std::abort();
    }
    return 0;
}
