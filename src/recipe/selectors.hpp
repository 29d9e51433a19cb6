#pragma once
// `# [expr]` line selectors, applied to the raw text before Jinja (as
// conda-build does). A line's selector is found with conda-build's own
// pattern; the expression is evaluated with Python semantics by our Jinja
// expression evaluator over the selector namespace.
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/diagnostics.hpp"
#include "core/error.hpp"
#include "jinja/jinja.hpp"

namespace sf::recipe {

using VariantValues = std::map<std::string, std::string>;

struct SelectorLine {
    std::optional<std::string> selector;  // the text between [ and ]
    std::string text;                      // the line without its selector (rstripped)
    int selector_col = 0;                  // 1-based column of the selector text
};

// conda-build's _split_line_selector: comment-only lines become blank lines.
std::vector<SelectorLine> split_selectors(std::string_view text);

// re.match of conda-build's sel_pat, (.+?)\s*(#.*)?\[([^\[\]]+)\](?(2)[^\(\)]*)$,
// on one line: where group 1 ends and where group 3 (the selector) lies.
struct SelectorMatch {
    size_t text_end = 0, selector_begin = 0, selector_end = 0;
    bool operator==(const SelectorMatch&) const = default;
};
std::optional<SelectorMatch> match_selector(std::string_view line);
// The same through the regex itself (lines match_selector does not judge
// by hand use it; the tests compare the two).
std::optional<SelectorMatch> match_selector_by_regex(std::string_view line);

// Text with unselected lines dropped, and for each kept line its 1-based
// line number in the source (for error messages after selection).
struct Selected {
    std::string text;              // unselected lines dropped (what conda-build scans)
    std::vector<int> source_line;  // for each line of `text`, its source line
};

// Parsed selector expressions, shared by every variant of one recipe.
struct SelectorCache {
    std::map<std::string, jinja::Expression, std::less<>> parsed;
};

// Evaluates each selector (once per distinct expression). A bad expression
// is an error at file:line:col. An unknown name reads as False with a
// warning in `diag` (conda-build's rule); without `diag`, or under --strict,
// it is an error. `outcomes`, when given, receives selector text -> kept.
Result<Selected> apply_selectors(const std::vector<SelectorLine>& lines, const jinja::Context& ns,
                                 const std::string& file, SelectorCache* cache = nullptr,
                                 std::map<std::string, bool>* outcomes = nullptr, Diagnostics* diag = nullptr);

// Values a workflow sets for one rendering on top of this process's
// environment (conda-smithy assigns os.environ entries for the pinning's
// selectors), in the order they were set. The process environment itself is
// only ever read.
using EnvOverlay = std::vector<std::pair<std::string, std::string>>;

// This process's environment as a dict (os.environ) with `overlay` laid over
// it as os.environ assignments would: a name already there keeps its place
// and takes the new value, a new name comes last. And an `os` holding it
// with os.environ, os.sep, os.name and os.path.join.
jinja::Value environment_dict(const EnvOverlay& overlay = {});
jinja::Value os_module(const jinja::Value& env);

// The names a selector can use for `subdir`: os/arch flags (linux, osx, win,
// unix, x86_64, aarch64, arm64, ppc64le, linux64, ...), py/py3k/np,
// build_platform, os, environ, the Python builtins selectors use (str, int,
// len, ...), the environment's variables, and every variant key (ints and
// booleans converted as conda-build does: "312" -> 312, "true" -> True).
// The environment is environment_dict(overlay).
// Errors as conda-build's: a python or numpy variant that is no version.
Result<jinja::Context> selector_namespace(const std::string& subdir, const std::string& build_subdir,
                                          const VariantValues& variant, const EnvOverlay& overlay = {});
// The same in two steps, for callers with many variants: the part that does
// not depend on the variant (flags, environment, builtins), then a layer of
// the rest over it, which reads `base` (it must outlive the layer) and copies none of it.
jinja::Context selector_base(const std::string& subdir, const std::string& build_subdir,
                             const EnvOverlay& overlay = {});
Result<jinja::Context> selector_layer(const jinja::Context& base, const VariantValues& variant);

}  // namespace sf::recipe
