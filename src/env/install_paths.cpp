// Where a path inside a prefix really lands, and which paths and records a
// package may bring at all. Every write, link and removal in the prefix goes
// through resolve_in_prefix(), so no chain of symlinks (from one package or
// several) can lead outside it.
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <deque>
#include <unordered_set>
#include <string_view>
#include <algorithm>

#include "env/install_detail.hpp"
#include "types/identifiers.hpp"
#include "util/dir_handle.hpp"
#include "util/strings.hpp"

namespace sf::env::detail {
namespace {

constexpr int kMaxLinkHops = 40;  // as Linux's MAXSYMLINKS

std::string join_parts(const std::vector<std::string>& parts) { return str::join(parts, "/"); }

void push_front_parts(std::deque<std::string>& todo, const std::string& path) {
    auto parts = str::split(path, '/');
    for (auto it = parts.rbegin(); it != parts.rend(); ++it) todo.push_front(*it);
}

bool only_dots_left(const std::deque<std::string>& todo) {
    for (const auto& p : todo)
        if (!p.empty() && p != ".") return false;
    return true;
}

}  // namespace

Result<std::string> resolve_in_prefix(const stdfs::path& prefix, const std::string& rel, bool follow_last,
                                      std::unordered_set<std::string>* real_dirs) {
    std::string prefix_s = prefix.string();
    std::error_code ec;
    std::string real_prefix;  // made only when an absolute symlink needs it
    auto escapes = [&](const std::string& why) {
        return fail(prefix_s + ": '" + rel + "' leads outside the prefix (" + why + ")",
                    "the package is unsafe; do not install it");
    };
    std::vector<std::string> done;  // resolved components: real directories (or not yet existing)
    std::deque<std::string> todo;
    push_front_parts(todo, rel);
    // A known real directory (no symlink in it) resolves to itself: start
    // below the deepest one, so a file 1000 levels deep costs one lstat, not
    // a walk of 1000 ever longer paths.
    if (real_dirs && !todo.empty() &&
        std::none_of(todo.begin(), todo.end(), [](const std::string& p) { return p.empty() || p == "." || p == ".."; })) {
        std::string_view parent(rel);
        while (true) {
            auto slash = parent.rfind('/');
            if (slash == std::string_view::npos) break;
            parent = parent.substr(0, slash);
            if (real_dirs->count(std::string(parent))) {
                for (std::size_t n = std::count(parent.begin(), parent.end(), '/') + 1; n > 0; --n) {
                    done.push_back(std::move(todo.front()));
                    todo.pop_front();
                }
                break;
            }
        }
    }
    int hops = 0;
    bool missing = false;  // once a component does not exist, nothing below it can be a link
    while (!todo.empty()) {
        std::string part = std::move(todo.front());
        todo.pop_front();
        if (part.empty() || part == ".") continue;
        if (part == "..") {
            if (done.empty()) return escapes("'..' above the prefix");
            done.pop_back();
            continue;
        }
        done.push_back(part);
        if (missing) continue;
        bool last = only_dots_left(todo);
        std::string cur = prefix_s + "/" + join_parts(done);
        struct stat st{};
        if (::lstat(cur.c_str(), &st) != 0) {
            missing = true;
            continue;
        }
        if (!S_ISLNK(st.st_mode)) {
            if (!last && !S_ISDIR(st.st_mode))
                return fail(prefix_s + ": '" + rel + "': '" + join_parts(done) + "' is a file, not a directory");
            if (real_dirs && !last && hops == 0) real_dirs->insert(join_parts(done));
            continue;
        }
        if (last && !follow_last) continue;
        if (++hops > kMaxLinkHops) return escapes("too many levels of symbolic links");
        std::error_code rec;
        std::string target = stdfs::read_symlink(cur, rec).string();
        if (rec) return fail(prefix_s + ": cannot read symlink '" + join_parts(done) + "': " + rec.message());
        done.pop_back();
        if (!target.empty() && target.front() == '/') {
            if (real_prefix.empty()) real_prefix = stdfs::weakly_canonical(prefix, ec).string();
            std::string inside;
            for (const std::string& root : {prefix_s, real_prefix}) {
                if (target == root) inside = "/";
                else if (str::starts_with(target, root + "/")) inside = target.substr(root.size());
                if (!inside.empty()) break;
            }
            if (inside.empty()) return escapes("symlink '" + join_parts(done) + "' points to '" + target + "'");
            done.clear();
            target = inside.substr(1);
        }
        push_front_parts(todo, target);
    }
    return join_parts(done);
}

bool is_reserved_top(const std::string& rel) {
    std::string first = rel.substr(0, rel.find('/'));
    return first == "conda-meta" || str::starts_with(first, ".splitforge") || fs::temp_name_pid(first) > 0;
}

Result<void> check_package_path(const std::string& dist, const std::string& rel) {
    std::string first = rel.substr(0, rel.find('/'));
    if (first == "conda-meta")
        return fail(dist + ": ships '" + rel + "': packages may not write conda-meta/",
                    "the package is unsafe; do not install it");
    if (is_reserved_top(rel))
        return fail(dist + ": ships '" + rel + "': a name the installer reserves for itself",
                    "the package is unsafe; do not install it");
    for (unsigned char ch : rel)
        if (ch < 0x20 || ch == 0x7f)
            return fail(dist + ": ships a path with a control character: '" + types::printable(rel) + "'",
                        "the package is unsafe; do not install it");
    return {};
}

bool is_lower_hex(const std::string& s, std::size_t len) {
    if (s.size() != len) return false;
    for (char ch : s)
        if (!((ch >= '0' && ch <= '9') || (ch >= 'a' && ch <= 'f'))) return false;
    return true;
}

Result<void> check_candidate(const Candidate& c) {
    const auto& rec = c.record;
    std::string what = c.origin == Origin::channel ? "repodata.json entry '" + rec.fn + "'" : c.file.string();
    if (!rec.sha256.empty() && !is_lower_hex(rec.sha256, 64))
        return fail(what + ": sha256 '" + types::printable(rec.sha256) + "' is not 64 lowercase hex digits",
                    "the channel index is damaged; re-run `splitforge index`");
    if (!rec.md5.empty() && !is_lower_hex(rec.md5, 32))
        return fail(what + ": md5 '" + types::printable(rec.md5) + "' is not 32 lowercase hex digits",
                    "the channel index is damaged; re-run `splitforge index`");
    const std::string version = rec.version.str();
    const std::pair<const char*, const std::string*> fields[] = {
        {"name", &rec.name}, {"version", &version}, {"build", &rec.build}};
    for (const auto& [field, value] : fields) {
        // PackageRecord::from_json checked these already; a record made in
        // code gets the same identifier rules here.
        const std::string_view f = field;
        bool ok = f == "name" ? types::valid_package_name(*value)
                              : f == "version" ? types::valid_version(*value) : types::valid_build_string(*value);
        if (!ok)
            return fail(what + ": " + field + " '" + types::printable(*value) + "' is not a valid conda " + field,
                        "the channel index is damaged; re-run `splitforge index`");
    }
    if (c.origin == Origin::channel) {
        const std::string& fn = rec.fn;
        bool plain = !fn.empty() && fn != "." && fn != ".." && fn.find('/') == std::string::npos &&
                     fn.find('\\') == std::string::npos && fn.find('\0') == std::string::npos;
        // A remote one's name goes into its URL: only the characters conda's
        // names, versions and build strings use (no '?', '#', '%', space).
        if (plain && !c.download_url.empty())
            plain = fn.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._+-!") ==
                    std::string::npos;
        if (!plain || (c.download_url.empty() && c.file.filename().string() != fn))
            return fail("repodata.json key '" + types::printable(fn) + "' is not a plain file name",
                        "the channel index is damaged; re-run `splitforge index`");
    }
    return {};
}

}  // namespace sf::env::detail
