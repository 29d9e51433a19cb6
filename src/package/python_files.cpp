#include "package/python_files.hpp"

#include <fcntl.h>
#include <fnmatch.h>
#include <sys/stat.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <set>

#include <nlohmann/json.hpp>

#include "util/dir_handle.hpp"
#include "util/strings.hpp"

namespace sf::package {
namespace {

namespace stdfs = std::filesystem;

struct Split {
    std::string dir, name;
};
Split split(const std::string& rel) {
    auto slash = rel.rfind('/');
    if (slash == std::string::npos) return {"", rel};
    return {rel.substr(0, slash), rel.substr(slash + 1)};
}

// The directory of `rel` below the payload root (made when asked).
Result<fs::Dir> parent_of(const fs::Dir& root, const std::string& dir, fs::Create create = fs::Create::no) {
    if (dir.empty()) return root.sub(".", create);
    return root.sub(dir, create);
}

// Removes the directories of `dirs` (and their parents) that are empty now:
// what a removal or a move left behind is no part of the package (conda-build
// lists files only, rattler-build what it copied).
void prune_empty(const fs::Dir& root, const std::set<std::string>& dirs) {
    std::set<std::string> all;
    for (std::string d : dirs)
        for (; !d.empty(); d = split(d).dir) all.insert(d);
    std::vector<std::string> deepest(all.begin(), all.end());
    std::sort(deepest.begin(), deepest.end(), [](const auto& a, const auto& b) {
        return std::count(a.begin(), a.end(), '/') > std::count(b.begin(), b.end(), '/');
    });
    for (const auto& d : deepest) {
        auto [dir, name] = split(d);
        auto parent = parent_of(root, dir);
        if (parent && parent->kind(name) == fs::Kind::dir) ::unlinkat(parent->fd(), name.c_str(), AT_REMOVEDIR);
    }
}

Result<void> remove_file(const fs::Dir& root, const std::string& rel) {
    auto [dir, name] = split(rel);
    auto d = parent_of(root, dir);
    if (!d) return unexpected(d.error());
    if (d->kind(name) == fs::Kind::missing) return {};
    return d->remove(name);
}

Result<void> move_file(const fs::Dir& root, const std::string& from, const std::string& to) {
    auto [fdir, fname] = split(from);
    auto [tdir, tname] = split(to);
    auto src = parent_of(root, fdir);
    if (!src) return unexpected(src.error());
    auto dst = parent_of(root, tdir, fs::Create::yes);
    if (!dst) return unexpected(dst.error());
    if (dst->kind(tname) == fs::Kind::dir)
        return fail(root.path().string() + ": cannot move " + from + " to " + to + ": a directory is there");
    // Both handles were opened without following a symlink, so this stays in the payload.
    if (::renameat(src->fd(), fname.c_str(), dst->fd(), tname.c_str()) != 0)
        return fail(root.path().string() + ": cannot move " + from + " to " + to + ": " + std::strerror(errno));
    return {};
}

Result<void> write_file(const fs::Dir& root, const std::string& rel, const std::string& data, unsigned mode) {
    auto [dir, name] = split(rel);
    auto d = parent_of(root, dir, fs::Create::yes);
    if (!d) return unexpected(d.error());
    if (d->kind(name) == fs::Kind::dir) return fail(root.path().string() + "/" + rel + ": is a directory, not a script");
    if (auto ok = d->write_atomic(name, data, mode); !ok) return ok;
    ::fchmodat(d->fd(), name.c_str(), mode, 0);  // as os.chmod: the umask does not apply
    return {};
}

// Whether Python's UTF-8 decoder reads `s`, or its first `max_chars`
// characters (conda-build's test for a binary file).
bool valid_utf8(std::string_view s, std::size_t max_chars = std::string_view::npos) {
    auto at = [&](std::size_t i) { return static_cast<unsigned char>(s[i]); };
    for (std::size_t i = 0, n_chars = 0; i < s.size() && n_chars < max_chars; ++n_chars) {
        unsigned c = at(i);
        int n = c < 0x80 ? 0 : (c >= 0xC2 && c < 0xE0) ? 1 : (c >= 0xE0 && c < 0xF0) ? 2 : (c >= 0xF0 && c < 0xF5) ? 3 : -1;
        if (n < 0 || i + n >= s.size() + (n == 0)) return false;
        for (int k = 1; k <= n; ++k)
            if ((at(i + k) >> 6) != 2) return false;
        if (n >= 2) {  // no overlong forms, surrogates or code points past U+10FFFF
            unsigned d = at(i + 1);
            if ((c == 0xE0 && d < 0xA0) || (c == 0xED && d >= 0xA0) || (c == 0xF0 && d < 0x90) || (c == 0xF4 && d >= 0x90))
                return false;
        }
        i += n + 1;
    }
    return true;
}

bool glob(const std::string& pattern, const std::string& path) {
    std::string p = pattern;
    while (str::starts_with(p, "./")) p = p.substr(2);
    return ::fnmatch(p.c_str(), path.c_str(), 0) == 0;
}

std::string ext_of(const std::string& rel) {
    std::string name = split(rel).name;
    auto dot = name.rfind('.');
    return dot == std::string::npos || dot == 0 ? "" : name.substr(dot + 1);
}

bool has_component(const std::string& rel, std::string_view c) {
    for (const auto& part : str::split(rel, '/'))
        if (part == c) return true;
    return false;
}

// post.py rm_pyo: r".*(?:\.pyo$|\.opt-[0-9]\.pyc)" matched from the start.
bool conda_build_pyo(const std::string& rel) {
    if (str::ends_with(rel, ".pyo")) return true;
    for (auto at = rel.find(".opt-"); at != std::string::npos; at = rel.find(".opt-", at + 1))
        if (at + 10 <= rel.size() && std::isdigit(static_cast<unsigned char>(rel[at + 5])) &&
            rel.compare(at + 6, 4, ".pyc") == 0)
            return true;
    return false;
}

// The .py files to compile, each rule set's way.
// rattler-build asks the interpreter for its cache tag ("cpython-312").
Result<std::string> cache_tag(const PythonFilesOptions& o) {
    process::Command c;
    c.argv = {o.python.string(), "-c", "import sys; print(sys.implementation.cache_tag)"};
    c.env = o.env;
    auto r = process::capture(c);
    if (!r) return unexpected(r.error());
    return std::string(str::trim(r->out));
}

std::vector<std::string> to_compile(const std::vector<std::string>& files, const PythonFilesOptions& o,
                                    const std::string& tag) {
    std::set<std::string> have(files.begin(), files.end());
    std::vector<std::string> out;
    for (const auto& f : files) {
        if (!str::ends_with(f, ".py")) continue;
        if (std::any_of(o.skip_compile.begin(), o.skip_compile.end(), [&](const auto& g) { return glob(g, f); }))
            continue;
        if (o.rules == PythonRules::conda_build) {
            // post.py compile_missing_pyc: fn.startswith("bin") (binaries/ too);
            // its check for an existing pyc misses a separator, so every .py compiles.
            if (str::starts_with(f, "bin")) continue;
        } else {
            if (f == "bin" || str::starts_with(f, "bin/")) continue;
            std::string stem = f.substr(0, f.size() - 3);
            if (have.count(stem + ".pyc")) continue;
            auto [dir, name] = split(stem);
            if (have.count((dir.empty() ? "" : dir + "/") + "__pycache__/" + name + "." + tag + ".pyc")) continue;
        }
        out.push_back(f);
    }
    return out;
}

void set_mtime(const fs::Dir& root, const std::string& rel, std::int64_t mtime) {
    auto [dir, name] = split(rel);
    auto d = parent_of(root, dir);
    if (!d) return;
    struct timespec ts[2] = {{static_cast<time_t>(mtime), 0}, {static_cast<time_t>(mtime), 0}};
    ::utimensat(d->fd(), name.c_str(), ts, AT_SYMLINK_NOFOLLOW);
}

// `python -Wi -m py_compile FILES...` in the payload, in groups well under
// ARG_MAX; then the __pycache__ files that appeared next to them.
Result<void> compile(const fs::Dir& root, const std::vector<std::string>& py, const PythonFilesOptions& o,
                     PythonFilesReport& rep) {
    for (const auto& f : py) set_mtime(root, f, o.mtime);
    std::size_t at = 0;
    while (at < py.size()) {
        process::Command c;
        c.argv = {o.python.string(), "-Wi", "-m", "py_compile"};
        c.cwd = root.path();
        c.env = o.env;
        std::size_t len = 0;
        for (; at < py.size() && (len < 100000 || c.argv.size() == 4); ++at) {
            len += py[at].size() + 1;
            c.argv.push_back(py[at]);
        }
        auto r = process::capture(c);
        if (!r) return unexpected(r.error());
        if (r->exit_code != 0) {
            std::string why(str::trim(r->err.empty() ? r->out : r->err));
            rep.warnings.push_back("compiling .pyc files: " + o.python.string() + " -m py_compile exited " +
                                   std::to_string(r->exit_code) + (why.empty() ? "" : ": " + why));
        }
    }
    std::set<std::string> have(rep.files.begin(), rep.files.end()), dirs;
    for (const auto& f : py) dirs.insert(split(f).dir);
    for (const auto& d : dirs) {
        std::string cache = (d.empty() ? "" : d + "/") + "__pycache__";
        auto cd = root.sub(cache);
        if (!cd) continue;  // nothing compiled there (or not a real directory)
        std::error_code ec;
        for (const auto& e : stdfs::directory_iterator(cd->path(), ec)) {
            std::string name = e.path().filename().string();
            if (!str::ends_with(name, ".pyc") || cd->kind(name) != fs::Kind::file) continue;
            std::string rel = cache + "/" + name;
            if (have.insert(rel).second) {
                rep.files.push_back(rel);
                rep.compiled.push_back(rel);
            }
        }
    }
    return {};
}

// post.py fix_shebang on one bin/ file: the bytes pattern `^#!.+$` on the
// first line, rewritten when it holds /python or /pythonw followed by
// whitespace or its end; ELF files, symlinks and empty files are left alone.
Result<void> fix_shebang(const fs::Dir& root, const std::string& rel, const std::string& python) {
    if (root.kind(rel) != fs::Kind::file) return {};
    auto data = root.read(rel);
    if (!data) return unexpected(data.error());
    if (data->empty() || str::starts_with(*data, "\x7f" "ELF")) return {};
    auto [dir, name] = split(rel);
    auto d = parent_of(root, dir);
    if (!d) return unexpected(d.error());
    ::fchmodat(d->fd(), name.c_str(), 0775, 0);
    // Its first 100 characters must decode (locale.getpreferredencoding: UTF-8 here).
    if (!valid_utf8(*data, 100)) return {};
    if (!str::starts_with(*data, "#!")) return {};
    std::size_t eol = data->find('\n');
    std::string line = data->substr(0, eol);
    if (line.size() <= 2) return {};  // `.+` needs a character
    bool names_python = false;
    for (const char* p : {"/python", "/pythonw"})
        for (auto at = line.find(p); at != std::string::npos && !names_python; at = line.find(p, at + 1)) {
            std::size_t after = at + std::strlen(p);
            names_python = after == line.size() || std::isspace(static_cast<unsigned char>(line[after]));
        }
    if (!names_python) return {};
    std::string out = "#!" + python + (eol == std::string::npos ? "" : data->substr(eol));
    if (out == *data) return {};
    return write_file(root, rel, out, 0775);
}

Result<void> write_entry_points(const fs::Dir& root, const PythonFilesOptions& o, std::vector<std::string>& files) {
    // conda-build gives a noarch: generic output's entry points no shebang (config.noarch).
    types::LauncherStyle style =
        o.rules == PythonRules::conda_build ? types::LauncherStyle::conda_build : types::LauncherStyle::rattler_build;
    for (const auto& ep : o.entry_points) {
        std::string text = types::entry_point_script(ep, o.entry_python, style);
        if (o.rules == PythonRules::conda_build && o.noarch != types::NoArch::none) text = text.substr(text.find('\n') + 1);
        std::string rel = "bin/" + ep.command;
        if (auto ok = write_file(root, rel, text, 0775); !ok) return ok;
        if (std::find(files.begin(), files.end(), rel) == files.end()) files.push_back(rel);
    }
    return {};
}

// noarch_python.populate_files / handle_file.
Result<std::vector<std::string>> conda_build_noarch(const fs::Dir& root, const std::vector<std::string>& files,
                                                    const std::set<std::string>& entry_scripts) {
    std::vector<std::string> out;
    for (const auto& f : files) {
        if (entry_scripts.count(f)) {
            if (auto ok = remove_file(root, f); !ok) return unexpected(ok.error());
        } else if (str::ends_with(f, ".egg-info") || str::ends_with(f, ".pyc") || str::ends_with(f, ".pyo")) {
            if (auto ok = remove_file(root, f); !ok) return unexpected(ok.error());
        } else if (auto sp = f.find("site-packages"); sp != std::string::npos) {
            std::string to = f.substr(sp);
            if (to != f)
                if (auto ok = move_file(root, f, to); !ok) return unexpected(ok.error());
            out.push_back(to);
        } else if (str::starts_with(f, "bin/")) {
            std::string name = split(f).name;
            auto data = root.read(f);
            if (!data) return unexpected(data.error());
            if (!valid_utf8(*data))
                return fail("noarch: python package contains a binary script: " + f,
                            "build it per Python (drop noarch: python) or leave the binary out of bin/");
            if (auto ok = move_file(root, f, "python-scripts/" + name); !ok) return unexpected(ok.error());
            out.push_back("python-scripts/" + name);
        } else {
            out.push_back(f);
        }
    }
    return out;
}

// file_mapper.rs write_to_dest for a python-version-independent output.
Result<std::vector<std::string>> rattler_noarch(const fs::Dir& root, const std::vector<std::string>& files,
                                                const std::set<std::string>& entry_scripts) {
    std::vector<std::string> out;
    for (const auto& f : files) {
        std::string e = ext_of(f);
        bool drop = entry_scripts.count(f) || e == "pyc" || e == "egg-info" || e == "pyo" || has_component(f, "__pycache__");
        if (drop) {
            if (auto ok = remove_file(root, f); !ok) return unexpected(ok.error());
            continue;
        }
        std::string to = f;
        if (str::starts_with(f, "site-packages/") || f.find("/site-packages/") != std::string::npos)
            to = f.substr(str::starts_with(f, "site-packages/") ? 0 : f.find("/site-packages/") + 1);
        else if (str::starts_with(f, "bin/"))
            to = "python-scripts/" + f.substr(4);
        if (to != f)
            if (auto ok = move_file(root, f, to); !ok) return unexpected(ok.error());
        out.push_back(to);
    }
    return out;
}

}  // namespace

Result<PythonFilesReport> python_files(const stdfs::path& payload, std::vector<std::string> files,
                                       const PythonFilesOptions& o) {
    auto root = fs::Dir::open(payload);
    if (!root) return unexpected(root.error());
    const bool conda_build = o.rules == PythonRules::conda_build;
    PythonFilesReport rep;
    std::error_code ec;
    const bool have_python = !o.python.empty() && stdfs::is_regular_file(o.python, ec);
    // conda-build writes entry points before post_process (they are new
    // files like any), rattler-build after compiling.
    if (conda_build && o.noarch != types::NoArch::python)
        if (auto ok = write_entry_points(*root, o, files); !ok) return unexpected(ok.error());
    // Dropped before anything else: rattler-build's filter_file and its
    // .py/.pyc beside an .so; conda-build's rm_pyo and rm_share_info_dir.
    std::set<std::string> present(files.begin(), files.end());
    std::vector<std::string> kept;
    for (const auto& f : files) {
        bool drop = f == "share/info/dir";
        if (conda_build) {
            drop = drop || conda_build_pyo(f) || (o.noarch != types::NoArch::none && str::ends_with(f, ".pyc"));
        } else {
            std::string e = ext_of(f), name = split(f).name;
            drop = drop || str::starts_with(f, "share/info/dir/") || e == "pyo" || has_component(f, ".DS_Store") ||
                   has_component(f, "CACHEDIR.TAG");
            if (!drop && (e == "py" || e == "pyc")) {
                std::string stem = f.substr(0, f.size() - e.size());
                drop = present.count(stem + "so") || present.count(stem + "pyd") ||
                       root->kind(stem + "so") != fs::Kind::missing;
            }
        }
        if (drop) {
            if (auto ok = remove_file(*root, f); !ok) return unexpected(ok.error());
        } else {
            kept.push_back(f);
        }
    }
    rep.files = std::move(kept);
    bool compiles = conda_build ? o.noarch == types::NoArch::none : o.noarch != types::NoArch::python;
    if (compiles && have_python) {
        std::string tag;
        if (!conda_build) {
            auto t = cache_tag(o);
            if (!t) return unexpected(t.error());
            tag = std::move(*t);
        }
        auto py = to_compile(rep.files, o, tag);
        if (!py.empty())
            if (auto ok = compile(*root, py, o, rep); !ok) return unexpected(ok.error());
    }
    if (!conda_build && o.noarch != types::NoArch::python)
        if (auto ok = write_entry_points(*root, o, rep.files); !ok) return unexpected(ok.error());
    if (!o.shebang_python.empty())
        for (const auto& f : rep.files)
            if (str::starts_with(f, "bin/"))
                if (auto ok = fix_shebang(*root, f, o.shebang_python); !ok) return unexpected(ok.error());
    // A dist-info's INSTALLER names the installer that owns the files.
    for (const auto& f : rep.files)
        if (str::ends_with(f, ".dist-info/INSTALLER") && root->kind(f) != fs::Kind::symlink)
            if (auto ok = write_file(*root, f, conda_build ? "conda" : "conda\n", 0644); !ok) return unexpected(ok.error());
    std::set<std::string> left;  // directories files left
    {
        std::set<std::string> now(rep.files.begin(), rep.files.end());
        for (const auto& f : files)
            if (!now.count(f)) left.insert(split(f).dir);
    }
    if (o.noarch == types::NoArch::python) {
        for (const auto& f : rep.files) left.insert(split(f).dir);
        std::set<std::string> scripts;
        for (const auto& ep : o.entry_points) scripts.insert("bin/" + ep.command);
        auto moved = conda_build ? conda_build_noarch(*root, rep.files, scripts) : rattler_noarch(*root, rep.files, scripts);
        if (!moved) return unexpected(moved.error());
        rep.files = std::move(*moved);
    }
    prune_empty(*root, left);
    std::sort(rep.files.begin(), rep.files.end());
    rep.files.erase(std::unique(rep.files.begin(), rep.files.end()), rep.files.end());
    return rep;
}

std::string link_json(types::NoArch noarch, const std::vector<types::EntryPoint>& entry_points, PythonRules rules) {
    if (noarch == types::NoArch::none) return "";
    nlohmann::ordered_json eps = nlohmann::ordered_json::array();
    for (const auto& ep : entry_points)
        eps.push_back(rules == PythonRules::conda_build ? ep.text : ep.command + " = " + ep.module + ":" + ep.func);
    nlohmann::ordered_json na = nlohmann::ordered_json::object();
    if (rules == PythonRules::rattler_build) {
        if (noarch != types::NoArch::python) return "";  // only is_python_version_independent()
        na["type"] = "python";
        if (!eps.empty()) na["entry_points"] = eps;
    } else {
        // json.dumps(sort_keys=True): "entry_points" before "type".
        if (noarch == types::NoArch::python && !eps.empty()) na["entry_points"] = eps;
        na["type"] = std::string(types::to_string(noarch));
    }
    nlohmann::ordered_json j = nlohmann::ordered_json::object();
    j["noarch"] = na;
    j["package_metadata_version"] = 1;
    return j.dump(2);
}

}  // namespace sf::package
