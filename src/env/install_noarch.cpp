#include "env/install_noarch.hpp"

#include <sys/stat.h>

#include <algorithm>

#include "archive/read.hpp"
#include "process/process.hpp"
#include "types/json_fields.hpp"
#include "util/fs.hpp"
#include "util/strings.hpp"

namespace sf::env::detail {
namespace {

// "3.12" of "3.12.1"; "" when it has no minor part.
std::string major_minor(const std::string& version) {
    auto parts = str::split(version, '.');
    if (parts.size() < 2 || parts[0].empty() || parts[1].empty()) return "";
    for (const auto& p : {parts[0], parts[1]})
        if (p.find_first_not_of("0123456789") != std::string::npos) return "";
    return parts[0] + "." + parts[1];
}

// conda's pyc_path: dir/__pycache__/stem.cpython-XY.pyc.
std::string pyc_path(const std::string& py, const std::string& minor) {
    std::string tag = minor;
    tag.erase(std::remove(tag.begin(), tag.end(), '.'), tag.end());
    auto slash = py.rfind('/');
    std::string dir = slash == std::string::npos ? "" : py.substr(0, slash + 1);
    std::string name = py.substr(dir.size());
    return dir + "__pycache__/" + name.substr(0, name.size() - 3) + ".cpython-" + tag + ".pyc";
}

}  // namespace

std::optional<std::string> target_python(const stdfs::path& prefix, const std::vector<CachedPackage>& to_link,
                                         const std::optional<std::string>& installed_python_dist) {
    for (const auto& p : to_link)
        if (p.candidate.record.name == "python") {
            auto mm = major_minor(p.candidate.record.version.str());
            return mm.empty() ? std::nullopt : std::optional(mm);
        }
    if (installed_python_dist) {
        // python-3.12.1-0_system: the version between the last two dashes.
        const std::string& d = *installed_python_dist;
        auto last = d.rfind('-');
        auto mid = last == std::string::npos || last == 0 ? std::string::npos : d.rfind('-', last - 1);
        if (mid != std::string::npos) {
            auto mm = major_minor(d.substr(mid + 1, last - mid - 1));
            if (!mm.empty()) return mm;
        }
    }
    std::optional<std::string> found;
    std::error_code ec;
    for (const auto& e : stdfs::directory_iterator(prefix / "lib", ec)) {
        std::string n = e.path().filename().string();
        if (!str::starts_with(n, "python") || major_minor(n.substr(6)).empty()) continue;
        if (!stdfs::is_directory(e.path() / "site-packages", ec) || !stdfs::exists(prefix / "bin" / n, ec)) continue;
        if (found) return std::nullopt;  // two Pythons: conda would not know either
        found = n.substr(6);
    }
    return found;
}

Result<std::string> site_packages_dir(const nlohmann::json& python_record, const std::string& dist,
                                      const std::string& minor) {
    auto it = python_record.find("python_site_packages_path");
    if (it == python_record.end() || it->is_null()) return "lib/python" + minor + "/site-packages";
    const std::string shown = it->is_string() ? it->get<std::string>() : it->dump();
    auto refuse = [&] {
        return fail(dist + ": python_site_packages_path '" + shown + "' is not a relative path inside the prefix",
                    "the python package is unsafe; do not install it");
    };
    if (!it->is_string() || shown.empty()) return refuse();
    auto rel = archive::safe_member_path(shown);
    if (!rel || *rel == "." || is_reserved_top(*rel) || !check_package_path(dist, *rel)) return refuse();
    return *rel;
}

std::string noarch_target(const std::string& rel, const std::string& site_packages) {
    if (str::starts_with(rel, "site-packages/")) return site_packages + rel.substr(13);
    if (str::starts_with(rel, "python-scripts/")) return "bin" + rel.substr(14);
    return rel;
}

Result<std::vector<types::EntryPoint>> noarch_entry_points(const CachedPackage& pkg) {
    const std::string dist = pkg.candidate.record.dist_name();
    stdfs::path file = pkg.dir / "info/link.json";
    std::error_code ec;
    if (!stdfs::exists(file, ec)) return std::vector<types::EntryPoint>{};
    auto text = fs::read_file(file);
    if (!text) return Unexpected<Error>{text.error()};
    auto j = types::parse_json_object(*text, dist + ": info/link.json");
    if (!j) return Unexpected<Error>{j.error()};
    std::vector<types::EntryPoint> out;
    auto na = j->find("noarch");
    if (na == j->end() || !na->is_object()) return out;
    auto eps = na->find("entry_points");
    if (eps == na->end() || eps->is_null()) return out;
    if (!eps->is_array()) return fail(dist + ": info/link.json: noarch.entry_points is not a list");
    for (const auto& e : *eps) {
        if (!e.is_string()) return fail(dist + ": info/link.json: an entry point is not a string");
        auto ep = types::parse_entry_point(e.get<std::string>());
        if (!ep) return fail(dist + ": info/link.json: " + ep.error().message, "the package is broken; rebuild it");
        out.push_back(std::move(*ep));
    }
    return out;
}

Result<std::vector<std::string>> compile_pycs(Transaction& tx, const stdfs::path& prefix, const std::string& minor,
                                              std::vector<PycJob>& jobs) {
    std::string list;
    for (const auto& j : jobs)
        for (const auto& py : j.py) {
            auto at = tx.reserve(pyc_path(py, minor));
            if (!at) return Unexpected<Error>{at.error()};
            list += py + "\n";
        }
    std::vector<std::string> warnings;
    if (list.empty()) return warnings;
    process::Command c;
    c.argv = {(prefix / ("bin/python" + minor)).string(), "-Wi", "-m", "compileall", "-q", "-l", "-i", "-", "-j", "0"};
    c.cwd = prefix;
    c.env = process::minimal_env();
    c.stdin_data = list;
    auto r = process::capture(c);
    if (!r) {
        warnings.push_back("compiling .pyc files: " + r.error().message);
    } else if (r->exit_code != 0) {
        std::string why(str::trim(r->out + r->err));
        warnings.push_back("compiling .pyc files: " + c.argv[0] + " -m compileall exited " + std::to_string(r->exit_code) +
                           (why.empty() ? "" : ": " + why));
    }
    for (auto& j : jobs)
        for (const auto& py : j.py) {
            std::string pyc = pyc_path(py, minor);
            struct stat st{};
            if (::lstat((prefix / pyc).c_str(), &st) != 0 || !S_ISREG(st.st_mode)) continue;
            j.files->push_back(pyc);
            j.paths->push_back({{"_path", pyc}, {"path_type", "pyc_file"}, {"size_in_bytes", st.st_size}});
        }
    return warnings;
}

}  // namespace sf::env::detail
