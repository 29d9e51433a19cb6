#pragma once
// What every subcommand shares: the exit-code rule, the console (--json,
// --color, warnings and errors on stderr), the recipe argument and the output
// folder spelling. One place, so every command behaves the same.
//
// Exit codes: 0 ok; 1 the job ran and failed (a build, a test, a check such
// as `rerender --check` finding drift or `lint` finding errors); 2 a usage or
// input error (bad option, missing file, recipe that does not parse).
#include <functional>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include "core/error.hpp"
#include "core/report.hpp"

namespace sf::recipe {
struct RawRecipe;
}

namespace sf::cli {

// resume: EX_TEMPFAIL, `build --time-limit` stopped the staging build (feedstock/workflow.cpp chains on it).
enum class Exit : int { ok = 0, failed = 1, usage = 2, resume = 75 };

// A job that ran and failed: exit 1, like any RuntimeError the library
// throws. A Failure is an input error: exit 2.
class JobFailure : public RuntimeError {
public:
    using RuntimeError::RuntimeError;
};

// Unwraps a job's result, or throws its error as a JobFailure (exit 1),
// whatever its kind: `install` once its options are checked (an install that
// cannot be solved is the job's failure). `build` keeps each error's kind.
template <class T>
T job_or_throw(Result<T> r, const std::string& context = {}) {
    if (!r) {
        Error e = r.error();
        if (!context.empty()) e.message = context + ": " + e.message;
        throw JobFailure(std::move(e));
    }
    return std::move(r).value();
}

enum class ColorMode { auto_, always, never };

// Where output goes. With --json, stdout holds exactly one JSON document and
// everything else (progress, warnings, errors) goes to stderr. Colour only on
// a terminal (or --color=always), never with NO_COLOR set. Progress lines
// only on a terminal (or --progress=always); warnings, errors and summaries
// always.
struct Console {
    bool json = false;
    std::string color_opt = "auto";
    std::string progress_opt = "auto";
    bool color = false;     // resolved by resolve()
    bool progress = false;  // resolved by resolve()

    void resolve();
    void warning(const std::string& text) const;  // "splitforge: warning: text"
    void error(const std::string& text) const;    // "splitforge: error: text"
    void note(const std::string& text) const;     // "splitforge: note: text"
    // The one document --json prints (pretty, newline-terminated).
    void print_json(const nlohmann::json& j) const;
};

// The Reporter the CLI hands library calls: their lines on stderr (stdout
// stays for --json's one document), as the library words them, with the
// warning label coloured where the console has colour. Whether progress and
// child output show at all is in the call's options (--progress, -q).
class ConsoleReporter : public Reporter {
public:
    explicit ConsoleReporter(const Console& console) : console_(console) {}
    void warning(const Error& w) override;

private:
    const Console& console_;
};

using Action = std::function<int()>;

// The state one run of the binary shares between its subcommands.
struct Cli {
    Action action;
    Console console;
};

// --json on a subcommand (one JSON document on stdout).
void add_json_flag(CLI::App* sub, Cli& cli, const std::string& what = "Print one JSON document on stdout");
// An enum-like option's check: one of `names`, else an error naming them
// with a did-you-mean ("'micromaba' is not one of ...; did you mean 'micromamba'?").
CLI::Validator one_of(std::vector<std::string> names);

// `recipe` as the user gave it: a recipe directory, or its meta.yaml (or
// recipe.yaml) file, as conda-build and rattler-build accept.
std::string recipe_dir_arg(const std::string& given);
// recipe_dir_arg(), and its `extra: splitforge:` checked (unknown keys are
// errors): for the commands that render.
std::string checked_recipe_dir(const std::string& given);
// The recipe at `given`, loaded once and with its extra/splitforge checked.
recipe::RawRecipe load_checked_recipe(const std::string& given);

// --output-folder with its alias --output-dir (and -o where `short_o`).
enum class ShortO { yes, no };
CLI::Option* add_output_folder(CLI::App* sub, std::string& into, const std::string& help, ShortO short_o = ShortO::no);

// "splitforge: warning: <file:line>: <message>" on stderr, one line each.
void print_warnings(const Console& console, const std::vector<Error>& warnings);

// The JSON form of an error, for --json runs that fail.
nlohmann::json error_json(const Error& e, Exit code);

}  // namespace sf::cli
