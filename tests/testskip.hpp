#pragma once
// sf::test::skip(), on its own: stages whose tests do not link sf_util (e.g.
// jinja) cannot include testutil.hpp, which includes util/fs.hpp.
#include <cstdlib>
#include <iostream>
#include <string>

namespace sf::test {

// A test that cannot run on this machine reports SKIPPED, never a pass:
// prints "SKIPPED: <reason>" and exits with 77, which tests/CMakeLists.txt
// declares as every test's SKIP_RETURN_CODE. CTest runs each Catch2 test
// case in its own process, so exiting is safe there; run by hand, a test
// binary stops at the first skip (run one test case by name instead).
// Call it before making anything that needs cleaning up (a TempDir):
// exit() runs no destructors of locals. Use it only for what the machine
// lacks and scripts/deps.sh does not install; a missing dependency that
// deps.sh installs is a failure, not a skip.
[[noreturn]] inline void skip(const std::string& reason) {
    std::cout << "SKIPPED: " << reason << std::endl;
    std::cerr.flush();
    std::exit(77);
}

}  // namespace sf::test
