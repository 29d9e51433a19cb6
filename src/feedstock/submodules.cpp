// `splitforge submodules`: the report (rows, pins, mismatches) and its
// Markdown / JSON forms.
#include "feedstock/submodules.hpp"

#include <algorithm>
#include <set>

#include "render/pins.hpp"
#include "render/render.hpp"
#include "types/match_spec.hpp"
#include "types/platform.hpp"
#include "util/strings.hpp"
#include "variant/selection.hpp"

namespace sf::feedstock {
namespace {

namespace stdfs = std::filesystem;

// "v3.1.0" -> "3.1.0", "release-1.2" -> "1.2"; "" when there is no version.
std::string version_of_tag(const std::string& tag) {
    auto p = tag.find_first_of("0123456789");
    if (p == std::string::npos) return {};
    std::string v = tag.substr(p);
    return types::Version::parse(v) ? v : std::string();
}

struct RecipePins {
    std::map<std::string, std::vector<std::string>> specs;  // name -> version parts ("" = unpinned)
    std::map<std::string, std::vector<std::string>> variant_values;
};

Result<RecipePins> recipe_pins(const stdfs::path& dir, const types::Platform& platform) {
    variant::Selection sel;
    sel.platform = platform;
    auto rr = render::render_dir(dir, sel);
    if (!rr) return unexpected(rr.error());
    RecipePins pins;
    for (const auto& o : rr->outputs)
        for (const auto* list : {&o.requirements.host, &o.requirements.run, &o.requirements.run_constrained,
                                 &o.requirements.build}) {
            for (const auto& d : *list) {
                std::string t(str::trim(d.str()));
                auto sp = t.find(' ');
                std::string name = t.substr(0, sp);
                std::string ver = sp == std::string::npos ? "" : std::string(str::trim(t.substr(sp + 1)));
                auto& v = pins.specs[name];
                if (std::find(v.begin(), v.end(), ver) == v.end()) v.push_back(ver);
            }
        }
    for (const auto& var : rr->variants)
        for (const auto& [k, val] : var.values) {
            auto& v = pins.variant_values[k];
            if (std::find(v.begin(), v.end(), val) == v.end()) v.push_back(val);
        }
    return pins;
}

// Fills recipe / mismatch for a row from the recipe's pins.
void apply_pins(DepRow& row, const RecipePins& pins) {
    std::vector<std::string> specs;
    if (auto it = pins.specs.find(row.package); it != pins.specs.end())
        for (const auto& s : it->second)
            if (!s.empty()) specs.push_back(s);
    bool listed = pins.specs.count(row.package) > 0;
    // A bare requirement takes its pin from the variant config (conda-build's rule).
    std::string key = str::replace_all(row.package, "-", "_");
    if (specs.empty())
        if (auto it = pins.variant_values.find(key); listed && it != pins.variant_values.end()) specs = it->second;
    if (!listed && specs.empty()) return;
    row.recipe = specs.empty() ? "*" : str::join(specs, " | ");
    if (row.upstream_version.empty()) return;
    auto v = types::Version::parse(row.upstream_version);
    if (!v) return;
    for (const auto& s : specs) {
        auto ms = types::MatchSpec::parse(render::ensure_valid_spec(row.package + " " + s));
        if (ms && !ms->version().matches(*v)) {
            row.mismatch = true;
            row.why = s;
        }
    }
}

std::string pad(const std::string& s, size_t w) { return s + std::string(w > s.size() ? w - s.size() : 0, ' '); }

}  // namespace

Result<SubmoduleReport> submodule_report(const SubmoduleOptions& opts) {
    NameMap map;
    for (const auto& f : opts.map_files)
        if (auto r = read_name_map(f, map); !r) return unexpected(r.error());
    auto subs = read_submodules(opts.source);
    if (!subs) return unexpected(subs.error());
    RecipePins pins;
    if (opts.recipe_dir) {
        auto p = recipe_pins(*opts.recipe_dir, opts.platform);
        if (!p) return unexpected(p.error());
        pins = std::move(*p);
    }
    std::map<std::string, std::string> channel;
    if (!opts.repodata.empty()) {
        auto c = newest_versions(opts.repodata);
        if (!c) return unexpected(c.error());
        channel = std::move(*c);
    }
    SubmoduleReport rep;
    auto finish = [&](DepRow row) {
        if (auto it = channel.find(row.package); it != channel.end()) row.channel = it->second;
        apply_pins(row, pins);
        rep.rows.push_back(std::move(row));
    };
    std::sort(subs->begin(), subs->end(), [](const Submodule& a, const Submodule& b) { return a.path < b.path; });
    rep.submodules = static_cast<int>(subs->size());
    for (const auto& s : *subs) {
        auto it = map.submodules.find(s.path);
        if (it == map.submodules.end()) {
            // Listed anyway, flagged: a new upstream submodule is what a packager must see.
            rep.unmapped.push_back(s.path);
            DepRow row;
            row.unmapped = true;
            row.upstream = s.describe();
            if (!s.checked_out) row.upstream += " (not checked out)";
            row.upstream_version = version_of_tag(s.tag);
            row.source = s.path;
            rep.rows.push_back(std::move(row));
            continue;
        }
        if (it->second.empty()) continue;  // mapped to null: hidden on purpose
        DepRow row;
        row.package = it->second;
        row.upstream = s.describe();
        if (!s.checked_out) row.upstream += " (not checked out)";
        row.upstream_version = version_of_tag(s.tag);
        row.source = s.path;
        finish(std::move(row));
    }
    if (opts.wheel) {
        auto reqs = read_wheel_requirements(*opts.wheel);
        if (!reqs) return unexpected(reqs.error());
        std::sort(reqs->begin(), reqs->end());
        for (const auto& [name, specv] : *reqs) {
            DepRow row;
            auto it = map.wheel.find(name);
            if (it != map.wheel.end() && it->second.empty()) continue;
            row.package = it != map.wheel.end() ? it->second : name;
            row.upstream = specv;
            if (str::starts_with(specv, "==") && specv.find(',') == std::string::npos) row.upstream_version = specv.substr(2);
            row.source = "(wheel metadata)";
            finish(std::move(row));
        }
    }
    if (rep.rows.empty())
        rep.empty_why = rep.submodules == 0 ? opts.source.string() + " has no git submodules (is it a `git clone --recursive`?)"
                                            : "every submodule is mapped to ~ (hidden) in the name map";
    return rep;
}

std::string report_markdown(const SubmoduleReport& r) {
    std::vector<std::vector<std::string>> cells = {{"Package", "Upstream", "Recipe", "Channel", "Source"}};
    for (const auto& row : r.rows) {
        std::string src = row.source.front() == '(' ? row.source : "`" + row.source + "`";
        cells.push_back({row.unmapped ? "(not mapped) (!)" : row.package, row.upstream,
                         row.recipe + (row.mismatch ? " (!)" : ""), row.channel, src});
    }
    std::vector<size_t> w(5, 3);
    for (const auto& c : cells)
        for (size_t i = 0; i < 5; ++i) w[i] = std::max(w[i], c[i].size());
    std::string out;
    for (size_t n = 0; n < cells.size(); ++n) {
        out += "|";
        for (size_t i = 0; i < 5; ++i) out += " " + pad(cells[n][i], w[i]) + " |";
        out += "\n";
        if (n == 0) {
            out += "|";
            for (size_t i = 0; i < 5; ++i) out += std::string(w[i] + 2, '-') + "|";
            out += "\n";
        }
    }
    if (r.rows.empty()) return "No rows: " + r.empty_why + "\n";
    if (!r.unmapped.empty())
        out += "\nNot mapped to a conda package (add to the map, or map to ~ to hide): " + str::join(r.unmapped, ", ") + "\n";
    return out;
}

nlohmann::ordered_json report_json(const SubmoduleReport& r) {
    nlohmann::ordered_json j;
    j["rows"] = nlohmann::ordered_json::array();
    for (const auto& row : r.rows) {
        nlohmann::ordered_json o;
        o["package"] = row.package;
        o["upstream"] = row.upstream;
        o["upstream_version"] = row.upstream_version;
        o["recipe"] = row.recipe;
        o["channel"] = row.channel;
        o["source"] = row.source;
        o["mismatch"] = row.mismatch;
        o["unmapped"] = row.unmapped;
        j["rows"].push_back(o);
    }
    j["unmapped"] = r.unmapped;
    if (r.rows.empty()) j["empty_why"] = r.empty_why;
    return j;
}

}  // namespace sf::feedstock
