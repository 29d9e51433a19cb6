#pragma once
// Ctrl-C during a build: while an InterruptGuard lives, SIGINT/SIGTERM only
// set a flag. The child running in the foreground process group gets the
// terminal's SIGINT itself and exits; the engine then sees interrupted(),
// stops before touching the channel again, and cleans its work dir. Packages
// reach the channel only through channel::add_package (temp + rename, under
// the channel lock), so nothing half-written is left there.
namespace sf::engine {

class InterruptGuard {
public:
    InterruptGuard();
    ~InterruptGuard();
    InterruptGuard(const InterruptGuard&) = delete;
    InterruptGuard& operator=(const InterruptGuard&) = delete;
};

bool interrupted();

}  // namespace sf::engine
