// The end-of-build summary: a table for people, JSON for tools.
#include <sstream>

#include <fmt/format.h>

#include "engine/engine.hpp"
#include "engine/engine_detail.hpp"
#include "util/strings.hpp"

namespace sf::engine {

std::string detail::human_size(std::uintmax_t n) {
    if (n >= 1024 * 1024) return fmt::format("{:.1f} MiB", n / (1024.0 * 1024.0));
    if (n >= 1024) return fmt::format("{:.1f} KiB", n / 1024.0);
    return fmt::format("{} B", n);
}

std::string summary_table(const BuildReport& r) {
    size_t w = 7;
    for (const auto& o : r.outputs) w = std::max(w, o.dist.size());
    std::ostringstream os;
    os << fmt::format("{:<{}}  {:>10}  {:>8}  {:<8}  {}\n", "package", w, "size", "time", "test", "status");
    for (const auto& o : r.outputs) {
        os << fmt::format("{:<{}}  {:>10}  {:>8}  {:<8}  {}{}\n", o.dist, w, o.size ? detail::human_size(o.size) : "-",
                          o.status == Status::built ? fmt::format("{:.1f}s", o.seconds) : "-", o.test,
                          to_string(o.status), o.detail.empty() ? "" : ": " + o.detail);
    }
    for (const auto& e : r.exported)
        os << "exported " << e
           << (str::starts_with(e, "python-") ? " (the host's interpreter)\n"
               : str::starts_with(e, "pip-")  ? " (the host interpreter's pip)\n"
                                              : " (the host's runtime)\n");
    for (const auto& s : r.stagings)
        if (s.staging_s > 0 || s.outputs_s > 0) {
            os << fmt::format("staging {}: source {:.1f}s, staging build {:.1f}s, outputs {:.1f}s", s.label,
                              s.source_s, s.staging_s, s.outputs_s)
               << (s.archive_s > 0 ? fmt::format(", staging archive {:.1f}s", s.archive_s) : "") << "\n";
        }
    os << fmt::format("total {:.1f}s\n", r.seconds);
    if (!r.work_dir.empty()) os << "work dir kept: " << r.work_dir.string() << "\n";
    for (const auto& a : r.staging_archives) os << "staging archive: " << a.string() << "\n";
    return os.str();
}

nlohmann::json report_json(const BuildReport& r) {
    nlohmann::json j;
    j["outputs"] = nlohmann::json::array();
    for (const auto& o : r.outputs)
        j["outputs"].push_back({{"dist", o.dist},
                                {"name", o.name},
                                {"variant", o.variant},
                                {"status", to_string(o.status)},
                                {"test", o.test},
                                {"size", o.size},
                                {"seconds", o.seconds},
                                {"package", o.package.string()},
                                {"detail", o.detail},
                                {"rebuilt", o.rebuilt},
                                {"steps", {{"envs", o.steps.envs},
                                           {"script", o.steps.script},
                                           {"package", o.steps.package},
                                           {"test", o.steps.test},
                                           {"channel", o.steps.channel}}}});
    j["stagings"] = nlohmann::json::array();
    for (const auto& s : r.stagings)
        j["stagings"].push_back(
            {{"label", s.label}, {"source_s", s.source_s}, {"staging_s", s.staging_s}, {"outputs_s", s.outputs_s}, {"archive_s", s.archive_s},
             {"rebuilt", s.rebuilt}});
    j["exported"] = r.exported;
    j["warnings"] = nlohmann::json::array();
    for (const auto& w : r.warnings) j["warnings"].push_back(w.str());
    j["seconds"] = r.seconds;
    if (!r.work_dir.empty()) j["work_dir"] = r.work_dir.string();
    j["partial"] = r.partial;  // --time-limit stopped a staging build (exit 75)
    j["staging_archives"] = nlohmann::json::array();
    for (const auto& a : r.staging_archives) j["staging_archives"].push_back(a.string());
    return j;
}

}  // namespace sf::engine
