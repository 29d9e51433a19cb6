#pragma once
// `splitforge rerender --ci github`: the feedstock's GitHub Actions workflow,
// written from the same CI jobs as variants/ (one per staging build):
//
//   check              rerender --check and lint
//   staging-<cfg>      `build --staging-only`; the archive (OUT/staging/*.tar.zst)
//                      is the artifact staging-<config>. With a time_limit,
//                      `--time-limit` and up to resume_jobs chained
//                      staging-<cfg>-resume-N jobs: exit 75 (EX_TEMPFAIL)
//                      means "resume", the partial archive is handed on
//   outputs-<cfg>      needs the staging job; a matrix over the config's
//                      Pythons, each `build --from-staging ARCHIVE --variant
//                      python=X`, uploading packages, wheels and the libtorch
//                      archive
//   test-<cfg>         CUDA configs: the packages' tests (the smoke test) on
//                      the config's GPU runner
//   upload             push to the default branch, a tag, or the schedule
//                      only: `splitforge upload --to anaconda://OWNER/LABEL`
//                      (nightly for the schedule, test for a tag, else
//                      main), then, with extra/splitforge/smoke, `splitforge
//                      smoke` of those specs from that label (and
//                      conda-forge), as the seeds' binary_smoke_test job
//
// A pull request runs the covering subset (ci_matrix.hpp's pr_subset); the
// others' staging jobs carry `if: github.event_name != 'pull_request'`, so
// the schedule, pushes and manual runs build the full matrix.
//
// The text comes from yaml-cpp's emitter (values it would read back as
// another type, e.g. 3.10, are quoted); data reaches shell lines only through
// `env:` variables, never spliced into the script, and secrets only through
// `env:` of the one step that uses them.
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "core/error.hpp"
#include "feedstock/ci_job.hpp"

namespace sf::feedstock {

struct WorkflowInputs {
    std::vector<CiJob> jobs;         // the configs to build, sorted by name
    std::set<std::string> pr;        // names of the configs a pull request builds
    std::vector<std::string> setup;  // how a job gets splitforge (extra/splitforge/ci_setup)
    std::vector<std::string> smoke;  // specs the upload job smoke-tests (extra/splitforge/smoke); none: no smoke step
    std::string smoke_script;        // the script it runs, as the job names it (recipe/smoke_test.py)
    std::string recipe = "recipe";   // as the jobs pass it to splitforge
    std::string variants = "variants";
    std::vector<std::string> check_args;  // `splitforge rerender ...` arguments of the check job
    std::string cron = "0 3 * * *";       // the nightly full matrix
    std::string source;                   // what the header names (the recipe file)
};

struct WorkflowFile {
    std::string name;  // file name in .github/workflows
    std::string text;
};

// The workflow files (deterministic: same inputs, same bytes). Errors when a
// job's time_limit does not fit in its timeout.
Result<std::vector<WorkflowFile>> github_workflows(const WorkflowInputs& in);

// A workflow file rerender wrote (its first line); only those are replaced or
// removed, a hand-written workflow beside them is left alone.
bool is_generated_workflow(const std::string& text);

// GitHub job ids of a config: [A-Za-z0-9_-], starting with a letter.
std::string job_id(const std::string& prefix, const std::string& config);

}  // namespace sf::feedstock
