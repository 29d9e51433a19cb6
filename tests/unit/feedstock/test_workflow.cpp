// The GitHub workflow writer: its YAML reads back as the strings it was given,
// the jobs chain as workflow.hpp says (staging, resume, per-Python outputs,
// GPU tests, a gated upload), the PR subset is the only thing a pull request
// builds, and secrets never reach a script.
#include <catch2/catch.hpp>

#include <boost/regex.hpp>
#include <yaml-cpp/yaml.h>

#include "feedstock/recipe_extra.hpp"
#include "feedstock/workflow.hpp"
#include "feedstock/workflow_yaml.hpp"
#include "util/strings.hpp"

using namespace sf;
using namespace sf::feedstock;

namespace {

CiJob linux_cuda() {
    CiJob j;
    j.name = "linux_64_cuda_compiler_version12.6";
    j.short_name = j.name;
    j.platform = "linux-64";
    j.runner = "cirun-gpu";
    j.timeout_minutes = 900;
    j.gpu = true;
    j.time_limit = "5h30m";
    j.resume_jobs = 2;
    j.outputs = {"libtorch", "pytorch"};
    j.keys = {{"python", {"3.11.* *_cpython", "3.12.* *_cpython"}}, {"target_platform", {"linux-64"}}};
    return j;
}

CiJob osx() {
    CiJob j;
    j.name = "osx_64_python3.12.____cpython";
    j.short_name = j.name;
    j.platform = "osx-64";
    j.runner = "macos-13";
    j.timeout_minutes = 240;
    j.outputs = {"libtorch"};
    j.keys = {{"python", {"3.12.* *_cpython"}}, {"target_platform", {"osx-64"}}};
    return j;
}

WorkflowInputs inputs() {
    WorkflowInputs in;
    in.jobs = {linux_cuda(), osx()};
    in.pr = {osx().name};
    in.setup = {"pip install splitforge"};
    in.check_args = {"recipe", "--ci", "github", "--check"};
    in.source = "recipe/meta.yaml";
    return in;
}

std::string run_of(const YAML::Node& job, const std::string& step_name) {
    for (const auto& s : job["steps"])
        if (s["name"] && s["name"].as<std::string>() == step_name) return s["run"].as<std::string>();
    FAIL("no step " << step_name);
    return {};
}

bool has_step(const YAML::Node& job, const std::string& needle) {
    for (const auto& s : job["steps"])
        if (s["run"] && s["run"].as<std::string>().find(needle) != std::string::npos) return true;
    return false;
}

std::vector<std::string> strings(const YAML::Node& n) {
    std::vector<std::string> out;
    if (n.IsScalar()) return {n.as<std::string>()};
    for (const auto& x : n) out.push_back(x.as<std::string>());
    return out;
}

}  // namespace

TEST_CASE("workflow YAML: every string reads back as itself, retyped ones quoted") {
    const std::vector<std::string> tricky = {"3.10", "12.6", "1e3", "0x1F", "true", "no", "on", "~", "null", "",
                                             " lead", "3.10.* *_cpython", "*alias", "&anchor", "a: b", "#x", "- x",
                                             "'q'", "\"dq\"", "${{ matrix.python }}", "{x}", "[y]", "12:30", "2026-12-02",
                                             "!tag", "%pct", "@at", "`tick`", "a #b", "|", ">"};
    Yaml doc, list = Yaml::list();
    for (const auto& t : tricky) list.add(Yaml::text(t));
    doc.set("values", std::move(list));
    for (const auto& t : tricky) doc.set(t.empty() ? std::string("empty") : t, Yaml::text("v"));
    doc.set("script", Yaml::literal("set -e\necho \"$X\"\n"));
    doc.set("flag", Yaml::raw("false"));
    auto text = emit_yaml(doc);
    INFO(text);
    YAML::Node back = YAML::Load(text);
    REQUIRE(back["values"].size() == tricky.size());
    for (size_t i = 0; i < tricky.size(); ++i) {
        CHECK(back["values"][i].as<std::string>() == tricky[i]);
        if (yaml_needs_quotes(tricky[i])) CHECK(back["values"][i].Tag() == "!");  // quoted: a string
        if (!tricky[i].empty()) CHECK(back[tricky[i]].as<std::string>() == "v");
    }
    CHECK(back["script"].as<std::string>() == "set -e\necho \"$X\"\n");
    CHECK(back["flag"].Tag() == "?");  // plain: a boolean for GitHub
    CHECK(yaml_needs_quotes("3.10"));
    CHECK(yaml_needs_quotes("on"));
    CHECK(!yaml_needs_quotes("ubuntu-latest"));
    CHECK(!yaml_needs_quotes("3.10.* *_cpython"));  // yaml-cpp's emitter quotes it itself
}

TEST_CASE("github workflow: staging, resume chain, per-Python outputs, GPU tests, gated upload") {
    auto files = github_workflows(inputs());
    REQUIRE(files);
    REQUIRE(files->size() == 1);
    const auto& text = files->front().text;
    INFO(text);
    CHECK(is_generated_workflow(text));
    CHECK(text == github_workflows(inputs())->front().text);  // deterministic
    YAML::Node wf = YAML::Load(text);
    CHECK(wf["on"]["pull_request"]);
    CHECK(wf["on"]["schedule"][0]["cron"].as<std::string>() == "0 3 * * *");
    const YAML::Node jobs = wf["jobs"];
    const std::string L = "linux_64_cuda_compiler_version12-6", O = "osx_64_python3-12-____cpython";
    std::vector<std::string> ids;
    for (const auto& kv : jobs) ids.push_back(kv.first.as<std::string>());
    CHECK(ids == std::vector<std::string>{"check", "staging-" + L, "staging-" + L + "-resume-1",
                                          "staging-" + L + "-resume-2", "outputs-" + L, "test-" + L,
                                          "staging-" + O, "outputs-" + O, "upload"});
    // A pull request builds only the covering subset.
    CHECK(jobs["staging-" + L]["if"].as<std::string>() == "github.event_name != 'pull_request'");
    CHECK(!jobs["staging-" + O]["if"]);
    CHECK(strings(jobs["staging-" + O]["needs"]) == std::vector<std::string>{"check"});
    // The chain: exit 75 hands the partial archive on; the last link fails on it.
    auto first = run_of(jobs["staging-" + L], "Staging build");
    CHECK(first.find("--staging-only --time-limit \"$TIME_LIMIT\" --output-folder build_artifacts") != std::string::npos);
    CHECK(first.find("  75) echo \"done=false\" >> \"$GITHUB_OUTPUT\" ;;") != std::string::npos);
    CHECK(jobs["staging-" + L]["env"]["TIME_LIMIT"].as<std::string>() == "5h30m");
    const auto r1 = jobs["staging-" + L + "-resume-1"];
    CHECK(r1["if"].as<std::string>() == "needs.staging-" + L + ".outputs.done == 'false'");
    CHECK(run_of(r1, "Staging build").find("--from-staging \"${partial[0]}\"") != std::string::npos);
    auto last = run_of(jobs["staging-" + L + "-resume-2"], "Staging build");
    CHECK(last.find("did not finish in 3 jobs") != std::string::npos);
    // Per-Python outputs from the archive.
    const auto out = jobs["outputs-" + L];
    CHECK(strings(out["needs"]).size() == 3);
    CHECK(out["if"].as<std::string>().find("needs.staging-" + L + ".result == 'success'") != std::string::npos);
    const auto inc = out["strategy"]["matrix"]["include"];
    REQUIRE(inc.size() == 2);
    CHECK(inc[0]["python"].as<std::string>() == "3.11.* *_cpython");
    CHECK(inc[1]["py"].as<std::string>() == "3.12");
    auto build = run_of(out, "Build the outputs for Python ${{ matrix.py }}");
    CHECK(build.find("--from-staging \"${archive[0]}\" --variant \"python=$PYTHON\" --no-test") != std::string::npos);
    CHECK(has_step(out, "splitforge wheel "));
    CHECK(has_step(out, "splitforge libtorch-archive "));
    CHECK(!has_step(jobs["outputs-" + O], "splitforge wheel "));
    CHECK(!has_step(jobs["outputs-" + O], "--no-test"));
    // GPU tests on the config's runner.
    CHECK(jobs["test-" + L]["runs-on"].as<std::string>() == "cirun-gpu");
    CHECK(strings(jobs["test-" + L]["needs"]) == std::vector<std::string>{"outputs-" + L});
    CHECK(!jobs["test-" + O]);
    // Upload: default branch, tag or schedule; never a pull request.
    auto gate = jobs["upload"]["if"].as<std::string>();
    CHECK(gate.find("github.event_name == 'schedule'") != std::string::npos);
    CHECK(gate.find("github.event.repository.default_branch") != std::string::npos);
    CHECK(gate.find("startsWith(github.ref, 'refs/tags/')") != std::string::npos);
    CHECK(gate.find("pull_request") == std::string::npos);
    CHECK(strings(jobs["upload"]["needs"]) == std::vector<std::string>{"outputs-" + L, "test-" + L, "outputs-" + O});
}

TEST_CASE("github workflow: the upload job uploads with splitforge to the run's label, then smoke-tests from there") {
    auto in = inputs();
    auto plain = github_workflows(in);
    REQUIRE(plain);
    YAML::Node up = YAML::Load(plain->front().text)["jobs"]["upload"];
    INFO(plain->front().text);
    CHECK(up["env"]["LABEL"].as<std::string>() ==
          "${{ github.event_name == 'schedule' && 'nightly' || startsWith(github.ref, 'refs/tags/') && 'test' || 'main' }}");
    CHECK(has_step(up, "pip install splitforge"));  // ci_setup: splitforge on the runner
    CHECK(run_of(up, "Upload to anaconda.org").find("splitforge upload --to \"anaconda://$OWNER/$LABEL\" \"${packages[@]}\"") !=
          std::string::npos);
    CHECK(!has_step(up, "anaconda-client"));
    CHECK(!has_step(up, "splitforge smoke"));  // no extra/splitforge/smoke: no smoke step

    in.smoke = {"pytorch-cpu", "python 3.12.*"};
    in.smoke_script = "recipe/smoke_test.py";
    auto with = github_workflows(in);
    REQUIRE(with);
    up = YAML::Load(with->front().text)["jobs"]["upload"];
    const auto steps = up["steps"];
    REQUIRE(steps.size() >= 2);
    CHECK(steps[steps.size() - 2]["name"].as<std::string>() == "Upload to anaconda.org");
    const auto smoke = steps[steps.size() - 1];
    CHECK(smoke["name"].as<std::string>() == "Smoke test what was published");
    const auto script = smoke["run"].as<std::string>();
    CHECK(script.find("splitforge smoke --channel \"https://conda.anaconda.org/$OWNER/label/$LABEL\" --channel conda-forge") !=
          std::string::npos);
    CHECK(script.find("--script \"$SMOKE_SCRIPT\" \"${specs[@]}\"") != std::string::npos);
    // The specs reach the script through env only.
    CHECK(smoke["env"]["SMOKE_SPECS"].as<std::string>() == "pytorch-cpu\npython 3.12.*");
    CHECK(smoke["env"]["SMOKE_SCRIPT"].as<std::string>() == "recipe/smoke_test.py");
    CHECK(script.find("pytorch-cpu") == std::string::npos);
}

TEST_CASE("github workflow: secrets only as env values, never in a script or echoed") {
    auto files = github_workflows(inputs());
    REQUIRE(files);
    static const boost::regex env_line(R"( +[A-Z_]+: '?\$\{\{ secrets\.[A-Z_]+ \}\}'?)");
    int seen = 0;
    for (const auto& line : str::split_lines(files->front().text)) {
        if (line.find("secrets") == std::string::npos || line.find("ANACONDA_API_TOKEN secret") != std::string::npos)
            continue;
        ++seen;
        CHECK(boost::regex_match(line, env_line));
    }
    CHECK(seen == 1);
    YAML::Node wf = YAML::Load(files->front().text);
    for (const auto& job : wf["jobs"])
        for (const auto& s : job.second["steps"])
            if (s["run"]) {
                auto run = s["run"].as<std::string>();
                CHECK(run.find("secrets.") == std::string::npos);
                CHECK(run.find("echo \"$ANACONDA_API_TOKEN") == std::string::npos);
                CHECK(run.find("set -x") == std::string::npos);
            }
}

TEST_CASE("github workflow: a time_limit that does not fit in the timeout is an error naming the recipe") {
    auto in = inputs();
    in.jobs[0].time_limit = "15h";
    auto r = github_workflows(in);
    REQUIRE(!r);
    CHECK(r.error().str().find("recipe/meta.yaml: extra/splitforge/time_limit 15h of CI job "
                               "linux_64_cuda_compiler_version12.6 does not fit in its timeout of 900 minutes") !=
          std::string::npos);
}

TEST_CASE("github workflow: without ci_setup a job fails saying how to get splitforge") {
    auto in = inputs();
    in.setup.clear();
    auto r = github_workflows(in);
    REQUIRE(r);
    CHECK(r->front().text.find("set extra/splitforge/ci_setup") == std::string::npos);
    CHECK(r->front().text.find("extra/splitforge/ci_setup") != std::string::npos);
}

TEST_CASE("time_limit durations: hours, minutes and seconds, in whole minutes rounded up") {
    CHECK(duration_minutes("5h30m") == 330);
    CHECK(duration_minutes("90s") == 2);
    CHECK(duration_minutes("90m") == 90);
    CHECK(duration_minutes("6h") == 360);
    CHECK(duration_minutes("") == -1);
    CHECK(duration_minutes("5h 30m") == -1);
    CHECK(duration_minutes("330") == -1);
    CHECK(duration_minutes("1d") == -1);
}
