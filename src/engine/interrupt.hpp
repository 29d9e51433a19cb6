#pragma once
// Ctrl-C (or SIGTERM) during a build: while an InterruptGuard lives, the
// first SIGINT/SIGTERM sets a flag and is forwarded to the children (each
// runs in a process group of its own), which process/ kills for good when
// they outlive kStopGraceSeconds. The engine sees interrupted(), stops
// before touching the channel again, and cleans its work dir. Packages reach the
// channel only through channel::add_package (temp + rename, under the
// channel lock), so nothing half-written is left there.
//
// Whatever splitforge itself may be blocked in then (a lock, a read), the
// signal still ends it: a second signal ends it at once, and so does the
// first one kBackstopSeconds later (the next build sweeps the work dir it left).
// Either way the exit status is the signal's, and the children's watchdogs
// end what is left of them.
namespace sf::engine {

inline constexpr unsigned kBackstopSeconds = 10;

class InterruptGuard {
public:
    InterruptGuard();
    ~InterruptGuard();
    InterruptGuard(const InterruptGuard&) = delete;
    InterruptGuard& operator=(const InterruptGuard&) = delete;
};

bool interrupted();
// The signal that interrupted us (SIGINT, SIGTERM), 0 if none: the CLI
// exits 128 + it, as a shell reports a job the signal ended.
int interrupt_signal();

}  // namespace sf::engine
