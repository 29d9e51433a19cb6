// The only file that includes Boost.Process. Boost starts the child (fork +
// exec with an explicit argv, environment and working directory); the pipes
// are ours (pipe2 with O_CLOEXEC, so a child started from another thread does
// not inherit them) and one poll() loop feeds stdin and drains stdout/stderr.
#include "process/process.hpp"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <chrono>
#include <boost/process.hpp>
#include <boost/process/extend.hpp>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <optional>

#include "core/report.hpp"
#include "util/strings.hpp"

extern char** environ;

namespace sf::process {

namespace bp = boost::process;
namespace stdfs = std::filesystem;

Env current_env() {
    Env env;
    for (char** e = environ; e && *e; ++e) {
        std::string_view kv(*e);
        auto eq = kv.find('=');
        if (eq == std::string_view::npos || eq == 0) continue;
        env.emplace(std::string(kv.substr(0, eq)), std::string(kv.substr(eq + 1)));
    }
    return env;
}

Env minimal_env() {
    Env all = current_env();
    Env env;
    for (const char* key : {"PATH", "HOME", "LANG", "TERM", "TMPDIR", "USER"}) {
        auto it = all.find(key);
        if (it != all.end()) env.insert(*it);
    }
    return env;
}

namespace {

// Process groups of the children running now, for forward_signal().
std::array<std::atomic<pid_t>, 64> g_groups{};
// The signal forward_signal() was last given: stop every child.
std::atomic<int> g_stop{0};

void register_group(pid_t pg) {
    for (auto& slot : g_groups) {
        pid_t expected = 0;
        if (slot.compare_exchange_strong(expected, pg)) return;
    }
}
void unregister_group(pid_t pg) {
    for (auto& slot : g_groups) {
        pid_t expected = pg;
        if (slot.compare_exchange_strong(expected, 0)) return;
    }
}

// Each child runs in a process group of its own, led by a watchdog we fork
// first: it blocks on a pipe only we hold the write end of, and when we exit
// or are killed (kill -9 included) it reads EOF and kills the whole group, so
// no grandchild of a build script survives us. We close the pipe after the
// child is reaped, which also ends what the child left running. The watchdog
// is our child, not the child's: a program that waits for all its children
// (script(1), an init) must not wait for it. It exists before the child, so
// no moment of a kill -9 leaves a child without one: a child whose parent
// died before it joined the group exits instead of running unwatched.
struct JoinGroup : bp::extend::handler {
    pid_t group = 0;   // the watchdog's; 0: lead a new group (no watchdog)
    pid_t parent = 0;  // us
    template <class Executor>
    void on_exec_setup(Executor&) const {  // in the child: async-signal-safe calls only
        if (::setpgid(0, group) != 0 && group != 0) ::_exit(127);
        if (group != 0 && ::getppid() != parent) ::_exit(127);
    }
};

// Has `pid` (our child) exited? It stays waitable (WNOWAIT) for child.wait().
bool child_exited(pid_t pid) {
    siginfo_t info{};
    return ::waitid(P_PID, static_cast<id_t>(pid), &info, WEXITED | WNOHANG | WNOWAIT) == 0 && info.si_pid == pid;
}

// Is `pid` no child of ours any more (reaped elsewhere)? Then waiting on it
// must not loop.
bool child_gone(pid_t pid) {
    siginfo_t info{};
    return ::waitid(P_PID, static_cast<id_t>(pid), &info, WEXITED | WNOHANG | WNOWAIT) != 0 && errno == ECHILD;
}

// Once forward_signal() asked to stop: the signal again (this child may have
// started after it was sent), then SIGKILL for the group kStopGrace later.
void stop_child(pid_t group, std::optional<std::chrono::steady_clock::time_point>& since) {
    int sig = g_stop.load();
    if (sig == 0) return;
    auto now = std::chrono::steady_clock::now();
    if (!since) {
        since = now;
        ::kill(-group, sig);
    } else if (now - *since > std::chrono::seconds(kStopGraceSeconds)) {
        ::kill(-group, SIGKILL);
    }
}

// The watchdog's parent (us), for on_watchdog_signal.
pid_t g_watchdog_parent = 0;

// In a watchdog: a SIGINT/SIGTERM from outside (a CI runner that signals
// every `splitforge` it finds: the watchdog is a fork of ours, and looks
// like one) goes to the parent, which stops the build. What the parent
// forwards, and what the child's group sends itself, is ignored.
void on_watchdog_signal(int sig, siginfo_t* info, void*) {
    pid_t from = info ? info->si_pid : 0;
    if (from == g_watchdog_parent || (from > 0 && ::getpgid(from) == ::getpgrp())) return;
    ::kill(g_watchdog_parent, sig);
}

// Only async-signal-safe calls after fork(): we may have other threads.
pid_t start_watchdog(int rd) {
    const pid_t parent = ::getpid();
    pid_t w = ::fork();
    if (w != 0) {
        if (w > 0) ::setpgid(w, w);  // here too: the group exists once we return
        return w;                    // the parent, or a failed fork (-1)
    }
    ::setpgid(0, 0);
    g_watchdog_parent = parent;  // our copy: only this thread runs here
    struct sigaction ign {};
    ign.sa_handler = SIG_IGN;
    for (int sig : {SIGHUP, SIGQUIT, SIGPIPE}) ::sigaction(sig, &ign, nullptr);
    struct sigaction pass {};
    pass.sa_sigaction = on_watchdog_signal;
    pass.sa_flags = SA_SIGINFO | SA_RESTART;
    sigemptyset(&pass.sa_mask);
    for (int sig : {SIGINT, SIGTERM}) ::sigaction(sig, &pass, nullptr);
    if (rd > 0) ::close_range(0, static_cast<unsigned>(rd) - 1, 0);
    ::close_range(static_cast<unsigned>(rd) + 1, ~0U, 0);
    char c;
    while (::read(rd, &c, 1) < 0 && errno == EINTR) {
    }
    ::kill(0, SIGKILL);  // our group: the child, what it started, and us
    ::_exit(0);
}

}  // namespace

void forward_signal(int sig) {
    g_stop.store(sig);
    for (auto& slot : g_groups)
        if (pid_t pg = slot.load(); pg > 0) ::kill(-pg, sig);
}

void clear_stop() { g_stop.store(0); }

static bool is_executable_file(const stdfs::path& p) {
    struct stat st {};
    return ::stat(p.c_str(), &st) == 0 && S_ISREG(st.st_mode) && ::access(p.c_str(), X_OK) == 0;
}

std::optional<stdfs::path> find_executable(const std::string& name, const std::string& path_var) {
    if (name.empty()) return std::nullopt;
    if (name.find('/') != std::string::npos) {
        if (is_executable_file(name)) return stdfs::path(name);
        return std::nullopt;
    }
    for (const auto& dir : str::split(path_var, ':')) {
        if (dir.empty()) continue;  // an empty entry would mean ".", which we never search
        stdfs::path cand = stdfs::path(dir) / name;
        if (is_executable_file(cand)) return cand;
    }
    return std::nullopt;
}

std::string apply_masks(std::string line, const std::vector<Mask>& masks) {
    if (masks.empty()) return line;
    std::vector<const Mask*> order;
    for (const auto& m : masks)
        if (!m.path.empty()) order.push_back(&m);
    // Longest first, so /a/b/c is masked before its parent /a/b.
    std::stable_sort(order.begin(), order.end(),
                     [](const Mask* a, const Mask* b) { return a->path.size() > b->path.size(); });
    for (const Mask* m : order) line = str::replace_all(std::move(line), m->path, m->name);
    return line;
}

namespace {

// A pipe whose both ends are close-on-exec; Boost dup2()s the child's end onto
// 0/1/2 (which clears the flag there) and closes the parent's copy of it.
struct Fds {
    int read = -1, write = -1;
};

Result<Fds> make_pipe() {
    int fds[2];
    if (::pipe2(fds, O_CLOEXEC) != 0) return fail_runtime({}, std::string("pipe2 failed: ") + std::strerror(errno));
    return Fds{fds[0], fds[1]};
}

void close_fd(int& fd) {
    if (fd >= 0) ::close(fd);
    fd = -1;
}

Result<stdfs::path> resolve_program(const Command& cmd) {
    if (cmd.argv.empty()) return fail("cannot run an empty command");
    const std::string& prog = cmd.argv[0];
    if (prog.find('/') != std::string::npos) {
        stdfs::path p = prog;
        if (p.is_relative() && !cmd.cwd.empty()) p = cmd.cwd / p;
        if (!stdfs::exists(p)) return fail("cannot run '" + prog + "': no such file");
        if (!is_executable_file(p)) return fail("cannot run '" + prog + "': not an executable file");
        return p;
    }
    auto it = cmd.env.find("PATH");
    std::string path_var = it == cmd.env.end() ? std::string() : it->second;
    auto found = find_executable(prog, path_var);
    if (!found) {
        return fail("cannot run '" + prog + "': not found on PATH",
                    it == cmd.env.end() ? "the child environment has no PATH" : "PATH=" + path_var);
    }
    return *found;
}

int decode_status(int status) {
    if (WIFEXITED(status)) return WEXITSTATUS(status);
    if (WIFSIGNALED(status)) return 128 + WTERMSIG(status);
    return -1;
}

// Splits a byte stream into lines; the trailing partial line is kept until
// more data or flush().
class LineSplitter {
public:
    explicit LineSplitter(std::function<void(std::string)> sink) : sink_(std::move(sink)) {}
    void feed(const char* data, size_t n) {
        buf_.append(data, n);
        size_t start = 0;
        for (size_t nl; (nl = buf_.find('\n', start)) != std::string::npos; start = nl + 1)
            sink_(buf_.substr(start, nl - start));
        buf_.erase(0, start);
    }
    void flush() {
        if (!buf_.empty()) sink_(std::move(buf_));
        buf_.clear();
    }

private:
    std::function<void(std::string)> sink_;
    std::string buf_;
};

// Blocks SIGPIPE in this thread while we write to a child's stdin, so a child
// that exits early gives us EPIPE instead of killing splitforge. Any SIGPIPE
// raised meanwhile is consumed before the old mask is restored.
class SigpipeGuard {
public:
    SigpipeGuard() {
        sigemptyset(&set_);
        sigaddset(&set_, SIGPIPE);
        pthread_sigmask(SIG_BLOCK, &set_, &old_);
    }
    ~SigpipeGuard() {
        if (got_epipe) {
            timespec zero{0, 0};
            while (sigtimedwait(&set_, nullptr, &zero) > 0) {
            }
        }
        pthread_sigmask(SIG_SETMASK, &old_, nullptr);
    }
    bool got_epipe = false;

private:
    sigset_t set_{}, old_{};
};

enum class Merge { yes, no };

// Starts the child and runs the I/O loop. `on_out`/`on_err` get raw chunks.
Result<int> run_child(const Command& cmd, Merge merge, const std::function<void(const char*, size_t)>& on_out,
                      const std::function<void(const char*, size_t)>& on_err) {
    if (g_stop.load() != 0) return fail_runtime({}, "interrupted: not starting '" + cmd.argv.front() + "'");
    auto exe = resolve_program(cmd);
    if (!exe) return unexpected(exe.error());

    auto in = make_pipe();
    if (!in) return unexpected(in.error());
    auto out = make_pipe();
    if (!out) {
        close_fd(in->read), close_fd(in->write);
        return unexpected(out.error());
    }
    Fds err{};
    if (merge == Merge::no) {
        auto e = make_pipe();
        if (!e) {
            close_fd(in->read), close_fd(in->write), close_fd(out->read), close_fd(out->write);
            return unexpected(e.error());
        }
        err = *e;
    }

    bp::environment env;
    for (const auto& [k, v] : cmd.env) env[k] = v;
    std::vector<std::string> args(cmd.argv.begin() + 1, cmd.argv.end());
    stdfs::path cwd = cmd.cwd.empty() ? stdfs::current_path() : cmd.cwd;

    // Boost takes ownership of the child-side ends (and closes them in the
    // parent after the spawn); we keep the parent-side ends.
    bp::pipe in_p(in->read, -1), out_p(-1, out->write), err_p(-1, err.write);
    int in_w = in->write, out_r = out->read, err_r = err.read;
    int wd[2] = {-1, -1};
    if (::pipe2(wd, O_CLOEXEC) != 0) wd[0] = wd[1] = -1;
    pid_t watchdog = wd[0] >= 0 ? start_watchdog(wd[0]) : -1;
    close_fd(wd[0]);
    if (watchdog < 0) close_fd(wd[1]);
    auto end_watchdog = [&] {
        close_fd(wd[1]);  // the watchdog ends the group, what the child left behind included
        if (watchdog > 0)
            while (::waitpid(watchdog, nullptr, 0) < 0 && errno == EINTR) {
            }
    };
    JoinGroup new_group;
    new_group.group = watchdog > 0 ? watchdog : 0;
    new_group.parent = ::getpid();
    bp::child child;
    try {
        if (merge == Merge::yes) {
            child = bp::child(bp::exe = exe->string(), bp::args = args, env, bp::start_dir = cwd.string(),
                              bp::std_in < in_p, (bp::std_out & bp::std_err) > out_p, new_group);
        } else {
            child = bp::child(bp::exe = exe->string(), bp::args = args, env, bp::start_dir = cwd.string(),
                              bp::std_in < in_p, bp::std_out > out_p, bp::std_err > err_p, new_group);
        }
    } catch (const std::exception& e) {
        end_watchdog();
        close_fd(in_w), close_fd(out_r), close_fd(err_r);
        return fail_runtime({}, "cannot run '" + cmd.argv[0] + "': " + e.what(),
                            cmd.cwd.empty() ? std::string() : "in " + cmd.cwd.string());
    }

    // The child joins the group itself; doing it here too closes the race
    // with an early forward_signal().
    const pid_t group = watchdog > 0 ? watchdog : child.id();
    ::setpgid(child.id(), group);
    register_group(group);

    // Feed stdin (non-blocking, so a child that does not read cannot stall us)
    // while draining its output.
    std::string_view pending = cmd.stdin_data ? std::string_view(*cmd.stdin_data) : std::string_view();
    if (pending.empty()) close_fd(in_w);
    else ::fcntl(in_w, F_SETFL, ::fcntl(in_w, F_GETFL) | O_NONBLOCK);

    std::optional<std::chrono::steady_clock::time_point> stopping;  // since when asked to stop
    {
        SigpipeGuard guard;
        char buf[65536];
        // Once the child has exited, what it left running (a `sleep 60 &` in
        // a build script, a daemon) may hold the pipes open for as long as it
        // likes: after kGrace of reading what is left, stop listening; the
        // watchdog then ends the group.
        using clock = std::chrono::steady_clock;
        constexpr auto kGrace = std::chrono::milliseconds(300);
        std::optional<clock::time_point> exited;
        while (out_r >= 0 || err_r >= 0 || in_w >= 0) {
            if (!exited && child_exited(child.id())) exited = clock::now();
            if (exited && clock::now() - *exited > kGrace) break;
            if (!exited) stop_child(group, stopping);
            pollfd fds[3];
            nfds_t n = 0;
            int idx_out = -1, idx_err = -1, idx_in = -1;
            if (out_r >= 0) idx_out = static_cast<int>(n), fds[n++] = {out_r, POLLIN, 0};
            if (err_r >= 0) idx_err = static_cast<int>(n), fds[n++] = {err_r, POLLIN, 0};
            if (in_w >= 0) idx_in = static_cast<int>(n), fds[n++] = {in_w, POLLOUT, 0};
            // Wake up now and then to notice the child's exit.
            if (::poll(fds, n, exited ? 50 : 100) < 0) {
                if (errno == EINTR) continue;
                break;
            }
            auto drain = [&](int idx, int& fd, const std::function<void(const char*, size_t)>& cb) {
                if (idx < 0 || fds[idx].revents == 0) return;
                ssize_t r = ::read(fd, buf, sizeof buf);
                if (r > 0) cb(buf, static_cast<size_t>(r));
                else if (r == 0 || (errno != EINTR && errno != EAGAIN)) close_fd(fd);
            };
            drain(idx_out, out_r, on_out);
            drain(idx_err, err_r, on_err);
            if (idx_in >= 0 && fds[idx_in].revents != 0) {
                ssize_t w = ::write(in_w, pending.data(), std::min<size_t>(pending.size(), 65536));
                if (w > 0) pending.remove_prefix(static_cast<size_t>(w));
                else if (w < 0 && errno == EPIPE) guard.got_epipe = true;
                if ((w < 0 && errno != EINTR && errno != EAGAIN) || pending.empty()) close_fd(in_w);
            }
        }
    }
    close_fd(in_w), close_fd(out_r), close_fd(err_r);

    // A child that closed its output may still run (ignoring SIGTERM too):
    // wait for it in short steps, so that a stop request still ends it.
    for (int ms = 1; !child_exited(child.id()) && !child_gone(child.id()); ms = std::min(ms * 2, 50)) {
        stop_child(group, stopping);
        ::poll(nullptr, 0, ms);
    }
    std::error_code ec;
    child.wait(ec);
    unregister_group(group);
    end_watchdog();
    if (ec) return fail_runtime({}, "waiting for '" + cmd.argv[0] + "' failed: " + ec.message());
    return decode_status(child.native_exit_code());
}

class LogFile {
public:
    explicit LogFile(const std::optional<stdfs::path>& p) {
        if (!p) return;
        std::error_code ec;
        if (p->has_parent_path()) stdfs::create_directories(p->parent_path(), ec);
        // Never through a symlink at the log's own name.
        fd_ = ::open(p->c_str(), O_WRONLY | O_CREAT | O_APPEND | O_NOFOLLOW | O_CLOEXEC, 0644);
    }
    ~LogFile() {
        if (fd_ >= 0) ::close(fd_);
    }
    LogFile(const LogFile&) = delete;
    LogFile& operator=(const LogFile&) = delete;
    bool open() const { return fd_ >= 0; }
    void line(const std::string& l) { text(l + '\n'); }
    void text(std::string_view t) {
        while (fd_ >= 0 && !t.empty()) {
            ssize_t w = ::write(fd_, t.data(), t.size());
            if (w < 0 && errno == EINTR) continue;
            if (w <= 0) break;
            t.remove_prefix(static_cast<size_t>(w));
        }
    }

private:
    int fd_ = -1;
};

}  // namespace

Result<Outcome> capture(const Command& cmd) {
    std::string out, err;
    auto code = run_child(
        cmd, Merge::no, [&](const char* d, size_t n) { out.append(d, n); },
        [&](const char* d, size_t n) { err.append(d, n); });
    if (!code) return unexpected(code.error());
    Outcome o;
    o.exit_code = *code;
    o.out = apply_masks(std::move(out), cmd.masks);
    o.err = apply_masks(std::move(err), cmd.masks);
    LogFile log(cmd.log);
    log.text(o.out);
    log.text(o.err);
    return o;
}

Result<Outcome> stream(const Command& cmd, const std::function<void(const std::string&)>& on_line) {
    LogFile log(cmd.log);
    LineSplitter lines([&](std::string l) {
        l = apply_masks(std::move(l), cmd.masks);
        log.line(l);
        if (on_line) on_line(l);
        else default_reporter().output_line(l);
    });
    auto code = run_child(
        cmd, Merge::yes, [&](const char* d, size_t n) { lines.feed(d, n); }, [](const char*, size_t) {});
    lines.flush();
    if (!code) return unexpected(code.error());
    Outcome o;
    o.exit_code = *code;
    return o;
}

}  // namespace sf::process
