// The end-of-build summary: a table for people, JSON for tools.
#include <cstdio>
#include <sstream>

#include "engine/engine.hpp"

namespace sf::engine {

namespace {

std::string human_size(std::uintmax_t n) {
    char buf[32];
    if (n >= 1024 * 1024)
        std::snprintf(buf, sizeof buf, "%.1f MiB", n / (1024.0 * 1024.0));
    else if (n >= 1024)
        std::snprintf(buf, sizeof buf, "%.1f KiB", n / 1024.0);
    else
        std::snprintf(buf, sizeof buf, "%ju B", n);
    return buf;
}

}  // namespace

std::string summary_table(const BuildReport& r) {
    size_t w = 7;
    for (const auto& o : r.outputs) w = std::max(w, o.dist.size());
    std::ostringstream os;
    char line[512];
    std::snprintf(line, sizeof line, "%-*s  %10s  %8s  %-8s  %s\n", static_cast<int>(w), "package", "size", "time",
                  "test", "status");
    os << line;
    for (const auto& o : r.outputs) {
        char t[32];
        std::snprintf(t, sizeof t, "%.1fs", o.seconds);
        std::snprintf(line, sizeof line, "%-*s  %10s  %8s  %-8s  %s%s\n", static_cast<int>(w), o.dist.c_str(),
                      o.size ? human_size(o.size).c_str() : "-", o.status == Status::built ? t : "-", o.test.c_str(),
                      to_string(o.status), o.detail.empty() ? "" : (": " + o.detail).c_str());
        os << line;
    }
    for (const auto& e : r.exported) os << "exported " << e << " (the host's interpreter)\n";
    for (const auto& s : r.stagings)
        if (s.staging_s > 0 || s.outputs_s > 0) {
            std::snprintf(line, sizeof line, "staging %s: source %.1fs, staging build %.1fs, outputs %.1fs\n",
                          s.label.c_str(), s.source_s, s.staging_s, s.outputs_s);
            os << line;
        }
    std::snprintf(line, sizeof line, "total %.1fs\n", r.seconds);
    os << line;
    if (!r.work_dir.empty()) os << "work dir kept: " << r.work_dir.string() << "\n";
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
                                {"rebuilt", o.rebuilt}});
    j["stagings"] = nlohmann::json::array();
    for (const auto& s : r.stagings)
        j["stagings"].push_back(
            {{"label", s.label}, {"source_s", s.source_s}, {"staging_s", s.staging_s}, {"outputs_s", s.outputs_s}, {"rebuilt", s.rebuilt}});
    j["exported"] = r.exported;
    j["seconds"] = r.seconds;
    if (!r.work_dir.empty()) j["work_dir"] = r.work_dir.string();
    return j;
}

}  // namespace sf::engine
