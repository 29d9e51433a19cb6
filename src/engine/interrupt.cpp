#include "engine/interrupt.hpp"

#include <signal.h>

#include <atomic>

#include "process/process.hpp"

namespace sf::engine {

namespace {
// A signal handler can only talk to the program through a flag like this.
std::atomic<int> g_signal{0};
struct sigaction g_old_int, g_old_term;

void on_signal(int sig) {
    g_signal.store(sig);
    process::forward_signal(sig);  // children run in their own process groups
}
}  // namespace

InterruptGuard::InterruptGuard() {
    g_signal.store(0);
    struct sigaction sa {};
    sa.sa_handler = on_signal;
    sigemptyset(&sa.sa_mask);
    sa.sa_flags = SA_RESTART;
    sigaction(SIGINT, &sa, &g_old_int);
    sigaction(SIGTERM, &sa, &g_old_term);
}

InterruptGuard::~InterruptGuard() {
    sigaction(SIGINT, &g_old_int, nullptr);
    sigaction(SIGTERM, &g_old_term, nullptr);
}

bool interrupted() { return g_signal.load() != 0; }

}  // namespace sf::engine
