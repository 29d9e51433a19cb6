#include "engine/interrupt.hpp"

#include <signal.h>
#include <unistd.h>

#include <atomic>

#include "process/process.hpp"

namespace sf::engine {

namespace {
// A signal handler can only talk to the program through a flag like this.
std::atomic<int> g_signal{0};
struct sigaction g_old_int, g_old_term, g_old_alrm;

// Ends the process by `sig` itself, so the exit status says which signal.
// Async-signal-safe; within sig's own handler it lands on return.
void die_by(int sig) {
    struct sigaction dfl {};
    dfl.sa_handler = SIG_DFL;
    sigemptyset(&dfl.sa_mask);
    sigaction(sig, &dfl, nullptr);
    raise(sig);
}

void on_signal(int sig) {
    if (g_signal.exchange(sig) != 0) return die_by(sig);  // the second one: now
    process::forward_signal(sig);  // children run in their own process groups
    alarm(kBackstopSeconds);
}

// The backstop: the first signal did not end us in time.
void on_alarm(int) {
    int sig = g_signal.load();
    die_by(sig != 0 ? sig : SIGTERM);
}
}  // namespace

InterruptGuard::InterruptGuard() {
    g_signal.store(0);
    process::clear_stop();
    struct sigaction sa {};
    sa.sa_handler = on_signal;
    sigemptyset(&sa.sa_mask);
    sa.sa_flags = SA_RESTART;
    sigaction(SIGINT, &sa, &g_old_int);
    sigaction(SIGTERM, &sa, &g_old_term);
    sa.sa_handler = on_alarm;
    sigaction(SIGALRM, &sa, &g_old_alrm);
}

// The alarm stays armed: once asked to stop, the process has kBackstopSeconds to end.
InterruptGuard::~InterruptGuard() {
    sigaction(SIGINT, &g_old_int, nullptr);
    sigaction(SIGTERM, &g_old_term, nullptr);
    if (!interrupted()) sigaction(SIGALRM, &g_old_alrm, nullptr);
}

StopAt::StopAt(std::chrono::steady_clock::time_point when) {
    timer_ = std::thread([this, when] {
        std::unique_lock<std::mutex> lock(m_);
        if (cv_.wait_until(lock, when, [this] { return done_; })) return;
        fired_ = true;
        process::forward_signal(SIGINT);
    });
}

StopAt::~StopAt() {
    {
        std::lock_guard<std::mutex> lock(m_);
        done_ = true;
    }
    cv_.notify_all();
    timer_.join();
    if (fired_ && !interrupted()) process::clear_stop();  // a Ctrl-C meanwhile still stops all
}

bool StopAt::fired() const {
    std::lock_guard<std::mutex> lock(m_);
    return fired_;
}

bool interrupted() { return g_signal.load() != 0; }
int interrupt_signal() { return g_signal.load(); }

}  // namespace sf::engine
