#include "feedstock/ci_matrix.hpp"

#include "feedstock/ci_job.hpp"

namespace sf::feedstock {

Result<nlohmann::ordered_json> ci_matrix_json(const std::filesystem::path& variants_dir, MatrixFormat format) {
    auto files = job_files(variants_dir);
    if (!files) return unexpected(files.error());
    if (files->empty())
        return fail(SourceLoc{variants_dir.string()}, "no variant files (*.yaml) in the variants directory",
                    "run `splitforge rerender` first");
    nlohmann::ordered_json include = nlohmann::ordered_json::array();
    for (const auto& f : *files) {
        auto job = read_job_file(f);
        if (!job) return unexpected(job.error());
        nlohmann::ordered_json j;
        j["config"] = job->name;
        j["short_config"] = job->short_name;
        j["platform"] = job->platform;
        j["runs-on"] = job->runner;
        j["timeout-minutes"] = job->timeout_minutes;
        if (format == MatrixFormat::json) {
            j["file"] = f.filename().string();
            nlohmann::ordered_json multi = nlohmann::ordered_json::object();
            for (const auto& [k, v] : job->keys)
                if (v.size() > 1) multi[k] = v;
            j["multi_valued"] = multi;  // keys this one job loops over (e.g. python in a megabuild)
        }
        include.push_back(j);
    }
    if (format == MatrixFormat::json) return include;
    nlohmann::ordered_json out;
    out["include"] = include;
    return out;
}

Result<std::string> ci_matrix(const std::filesystem::path& variants_dir, MatrixFormat format) {
    auto j = ci_matrix_json(variants_dir, format);
    if (!j) return unexpected(j.error());
    return (format == MatrixFormat::github ? j->dump() : j->dump(2)) + "\n";
}

}  // namespace sf::feedstock
