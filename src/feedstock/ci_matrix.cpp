#include "feedstock/ci_matrix.hpp"

#include "util/strings.hpp"

namespace sf::feedstock {
namespace {

Result<std::vector<CiJob>> read_jobs(const std::filesystem::path& variants_dir, std::vector<std::string>& files) {
    auto paths = job_files(variants_dir);
    if (!paths) return unexpected(paths.error());
    if (paths->empty())
        return fail(SourceLoc{variants_dir.string()}, "no variant files (*.yaml) in the variants directory",
                    "run `splitforge rerender` first");
    std::vector<CiJob> jobs;
    for (const auto& f : *paths) {
        auto job = read_job_file(f);
        if (!job) return unexpected(job.error());
        jobs.push_back(std::move(*job));
        files.push_back(f.filename().string());
    }
    return jobs;
}

nlohmann::ordered_json job_entry(const CiJob& job, const std::string& file, MatrixFormat format) {
    nlohmann::ordered_json j;
    j["config"] = job.name;
    j["short_config"] = job.short_name;
    j["platform"] = job.platform;
    j["runs-on"] = job.runner;
    j["timeout-minutes"] = job.timeout_minutes;
    if (format == MatrixFormat::json) {
        j["file"] = file;
        nlohmann::ordered_json multi = nlohmann::ordered_json::object();
        for (const auto& [k, v] : job.keys)
            if (v.size() > 1) multi[k] = v;
        j["multi_valued"] = multi;  // keys this one job loops over (e.g. python in a megabuild)
    }
    return j;
}

std::string text_of(const nlohmann::ordered_json& include, const PrSubset* pr) {
    std::string out;
    for (const auto& j : include) {
        out += j["config"].get<std::string>() + "  [" + j["runs-on"].get<std::string>() + ", " +
               std::to_string(j["timeout-minutes"].get<int>()) + " min]";
        if (j.contains("covers")) out += "\n    the only job for: " + str::join(j["covers"].get<std::vector<std::string>>(), "; ");
        out += "\n";
    }
    if (!pr) return out;
    out += std::to_string(pr->jobs.size()) + " of " + std::to_string(pr->total_jobs) + " jobs hold all " +
           std::to_string(pr->items) + " values; ";
    out += pr->cover.method == Cover::Method::exact
               ? "no fewer jobs do (exact search)\n"
               : "greedy cover, the search stopped at its limit: at least " + std::to_string(pr->cover.lower_bound) +
                     " jobs are needed\n";
    return out;
}

}  // namespace

PrSubset pr_subset(const std::vector<CiJob>& jobs, const CoverLimits& limits) {
    PrSubset pr;
    auto problem = cover_problem(jobs);
    pr.cover = min_cover(problem, limits);
    pr.total_jobs = jobs.size();
    pr.items = problem.items.size();
    for (size_t c = 0; c < pr.cover.chosen.size(); ++c) {
        pr.jobs.push_back(jobs[static_cast<size_t>(pr.cover.chosen[c])]);
        std::vector<std::string> why;
        for (int i : pr.cover.why[c]) why.push_back(problem.items[static_cast<size_t>(i)]);
        pr.why.push_back(std::move(why));
    }
    return pr;
}

Result<nlohmann::ordered_json> ci_matrix_json(const std::filesystem::path& variants_dir, MatrixFormat format,
                                              MatrixSubset subset) {
    std::vector<std::string> files;
    auto jobs = read_jobs(variants_dir, files);
    if (!jobs) return unexpected(jobs.error());
    nlohmann::ordered_json include = nlohmann::ordered_json::array();
    if (subset == MatrixSubset::all) {
        for (size_t i = 0; i < jobs->size(); ++i) include.push_back(job_entry((*jobs)[i], files[i], format));
    } else {
        auto pr = pr_subset(*jobs);
        for (size_t c = 0; c < pr.jobs.size(); ++c) {
            auto j = job_entry(pr.jobs[c], files[static_cast<size_t>(pr.cover.chosen[c])], format);
            j["covers"] = pr.why[c];
            include.push_back(j);
        }
    }
    if (format != MatrixFormat::github) return include;
    nlohmann::ordered_json out;
    out["include"] = include;
    return out;
}

Result<std::string> ci_matrix(const std::filesystem::path& variants_dir, MatrixFormat format, MatrixSubset subset) {
    if (format == MatrixFormat::text) {
        std::vector<std::string> files;
        auto jobs = read_jobs(variants_dir, files);
        if (!jobs) return unexpected(jobs.error());
        auto j = ci_matrix_json(variants_dir, format, subset);
        if (!j) return unexpected(j.error());
        if (subset == MatrixSubset::all) return text_of(*j, nullptr);
        auto pr = pr_subset(*jobs);
        return text_of(*j, &pr);
    }
    auto j = ci_matrix_json(variants_dir, format, subset);
    if (!j) return unexpected(j.error());
    return (format == MatrixFormat::github ? j->dump() : j->dump(2)) + "\n";
}

}  // namespace sf::feedstock
