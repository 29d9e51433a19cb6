// core/rewrap: rewrap() puts context in front of another error and keeps
// what decides the exit code (its kind), its hint and, unless moved, its
// location; fail_from() words a new error and keeps its cause's kind.
#include <catch2/catch.hpp>

#include "core/rewrap.hpp"

using namespace sf;

TEST_CASE("rewrap keeps the kind, hint and location of the error it wraps") {
    Error runtime{SourceLoc{"out/a.conda"}, "write failed: No space left on device", "free some space",
                  ErrorKind::runtime};
    Error wrapped = rewrap(runtime, "cannot copy package: ").error;
    CHECK(wrapped.kind == ErrorKind::runtime);
    CHECK(wrapped.hint == "free some space");
    CHECK(wrapped.str() == "out/a.conda: cannot copy package: write failed: No space left on device (free some space)");

    Error input{SourceLoc{"meta.yaml", 7}, "sha256 mismatch", {}, ErrorKind::input};
    CHECK(rewrap(input, "source: ").error.kind == ErrorKind::input);
}

TEST_CASE("rewrap at a new location replaces the location and keeps the kind") {
    Error spawn{{}, "cannot run 'patch': fork failed", "check the system's process limit", ErrorKind::runtime};
    Error at = rewrap(spawn, SourceLoc{"patches/fix.patch"}).error;
    CHECK(at.kind == ErrorKind::runtime);
    CHECK(at.str() == "patches/fix.patch: cannot run 'patch': fork failed (check the system's process limit)");
    Error moved = rewrap(spawn, SourceLoc{}, "pkg-1-0: ").error;
    CHECK(moved.loc.str().empty());
    CHECK(moved.message == "pkg-1-0: cannot run 'patch': fork failed");
    CHECK(moved.kind == ErrorKind::runtime);
}

TEST_CASE("fail_from words a new error with the kind of its cause") {
    Error script{SourceLoc{"build.sh"}, "build.sh failed with exit code 3", "log: x.log", ErrorKind::runtime};
    Error e = fail_from(script, SourceLoc{"build.sh"}, "pkg-1-0: script: " + script.message, "rerun").error;
    CHECK(e.kind == ErrorKind::runtime);
    CHECK(e.str() == "build.sh: pkg-1-0: script: build.sh failed with exit code 3 (rerun)");
    Error missing{SourceLoc{"no.sh"}, "the build script does not exist", {}, ErrorKind::input};
    CHECK(fail_from(missing, {}, "pkg: " + missing.str()).error.kind == ErrorKind::input);
}
