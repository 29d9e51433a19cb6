#pragma once
// `splitforge smoke`: what was published, installed the way its users
// install it, in a fresh place, then the recipe's smoke test run against it
// (the seeds' binary_smoke_test job). Conda packages go into a new prefix
// through our own installer; wheels into a new venv through pip.
#include <filesystem>
#include <string>
#include <vector>

#include "core/error.hpp"
#include "env/install.hpp"

namespace sf::publish {

struct SmokeOptions {
    enum class From { channel, index };
    From from = From::channel;
    std::string index_url;               // From::index: a PEP 503 index (…/simple)
    std::vector<std::string> specs;      // match specs, or pip requirements
    std::filesystem::path script;        // the smoke test, run by the installed python
    std::vector<std::string> script_args;
    std::filesystem::path python;        // From::index: the venv's interpreter; empty: python3 on PATH
    std::filesystem::path work;          // an empty directory: prefix/ or venv/ go here
    env::InstallOptions install;         // From::channel: the channels and the package cache
};

struct SmokeResult {
    std::string from;                     // the index URL (masked), or "channels"
    std::filesystem::path place;          // the prefix or the venv
    std::vector<std::string> installed;   // From::channel: the dist names linked
    int exit_code = 0;                    // the smoke test's
};

// Input errors: no script, no interpreter. Runtime errors: the install or
// the venv failed (one line naming the channel or index, masked). A smoke
// test that fails is a result (exit_code), its output streamed.
Result<SmokeResult> smoke(const SmokeOptions& o);

}  // namespace sf::publish
