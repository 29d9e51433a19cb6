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
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <thread>

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

// `build --time-limit`: while it lives, the children get SIGINT at `when`,
// as a Ctrl-C would (ninja and make stop their jobs and remove what those
// were writing), but the build is not interrupted(): its caller sees fired()
// and keeps what is done. A StopAt whose time has passed fires at once.
class StopAt {
public:
    explicit StopAt(std::chrono::steady_clock::time_point when);
    ~StopAt();  // lets further children run again when it fired
    StopAt(const StopAt&) = delete;
    StopAt& operator=(const StopAt&) = delete;
    bool fired() const;

private:
    mutable std::mutex m_;
    std::condition_variable cv_;
    bool done_ = false, fired_ = false;
    std::thread timer_;
};

}  // namespace sf::engine
