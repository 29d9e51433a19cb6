// The libtorch archive's consumer check: PyTorch compiles a small program
// against each archive it ships; we configure, build and run
// demo/libtorch-consumer (compiled in, consumer.hpp) the same way. It runs
// the archive's own code (TorchConfig.cmake, its libraries), so check.cpp
// calls it only when the caller asked (--consumer); it runs in a scratch
// dir that is also HOME and TMPDIR, with a minimal environment.
#include <algorithm>

#include "binary/check.hpp"
#include "binary/consumer.hpp"
#include "process/process.hpp"
#include "util/dir_handle.hpp"
#include "util/fs.hpp"
#include "util/strings.hpp"

namespace sf::binary {

namespace stdfs = std::filesystem;

namespace {

// The last few non-empty lines of a step's output, on one line.
std::string tail_of(const process::Outcome& r) {
    std::vector<std::string> lines;
    for (const auto& l : str::split_lines(r.out + "\n" + r.err))
        if (!str::trim(l).empty()) lines.emplace_back(str::trim(l));
    std::size_t from = lines.size() > 3 ? lines.size() - 3 : 0;
    std::vector<std::string> last(lines.begin() + static_cast<long>(from), lines.end());
    return last.empty() ? "no output" : str::join(last, " | ");
}

// PATH, LANG and the like, and no LD_LIBRARY_PATH: libraries resolve
// through RPATH or not at all. HOME and TMPDIR are the scratch dir, so what
// CMake keeps per user (its package registry) stays there.
process::Env consumer_env(const stdfs::path& scratch) {
    process::Env env = process::minimal_env();
    env.erase("LD_LIBRARY_PATH");
    env["HOME"] = scratch.string();
    env["TMPDIR"] = scratch.string();
    return env;
}

}  // namespace

Result<std::vector<Finding>> check_consumer(const std::string& artifact, const stdfs::path& libtorch_dir,
                                            const stdfs::path& deps_prefix, Reporter& reporter) {
    fs::TempDir tmp("libtorch-consumer");
    process::Env env = consumer_env(tmp.path());
    std::string prefix_path = stdfs::absolute(libtorch_dir).string();
    if (!deps_prefix.empty()) {
        prefix_path += ";" + stdfs::absolute(deps_prefix).string();
        env["LD_LIBRARY_PATH"] = (stdfs::absolute(deps_prefix) / "lib").string();
    }
    auto cmake = process::find_executable("cmake", env["PATH"]);
    if (!cmake) return fail_runtime(SourceLoc{artifact}, "cmake not found on PATH: the libtorch consumer check needs cmake and a C++ compiler",
                                    "install cmake, or leave out --consumer");
    auto src = fs::Dir::open(tmp.path() / "src", fs::Create::yes);
    if (!src) return Unexpected<Error>{src.error()};
    for (const auto& [name, text] : libtorch_consumer_sources())
        if (auto ok = src->write_atomic(name, text); !ok) return Unexpected<Error>{ok.error()};
    stdfs::path build = tmp.path() / "build";
    std::vector<std::string> configure = {cmake->string(), "-S", (tmp.path() / "src").string(), "-B", build.string(),
                                          "-DCMAKE_BUILD_TYPE=Release", "-DCMAKE_FIND_USE_PACKAGE_REGISTRY=OFF",
                                          "-DCMAKE_FIND_USE_SYSTEM_PACKAGE_REGISTRY=OFF",
                                          "-DCMAKE_PREFIX_PATH=" + prefix_path};
    if (process::find_executable("ninja", env["PATH"])) configure.insert(configure.begin() + 1, {"-G", "Ninja"});
    struct Step {
        std::string what, member;
        std::vector<std::string> argv;
    };
    const Step steps[] = {
        {"find_package(Torch) failed", "libtorch/share/cmake/Torch/TorchConfig.cmake", configure},
        {"the consumer program does not compile or link", "libtorch/include", {cmake->string(), "--build", build.string()}},
        {deps_prefix.empty() ? "the consumer program failed to run (LD_LIBRARY_PATH unset)"
                             : "the consumer program failed to run (LD_LIBRARY_PATH: its run dependencies only)",
         "libtorch/lib",
         {(build / "libtorch_consumer").string()}},
    };
    for (const auto& s : steps) {
        process::Command c;
        c.argv = s.argv;
        c.cwd = tmp.path();
        c.env = env;
        c.masks = {{tmp.path().string(), "$WORK"}};
        if (!deps_prefix.empty()) c.masks.push_back({stdfs::absolute(deps_prefix).string(), "$DEPS"});
        auto r = process::capture(c);
        if (!r) return Unexpected<Error>{r.error()};
        if (r->exit_code != 0) return std::vector<Finding>{{artifact, s.member, s.what + ": " + tail_of(*r)}};
        if (&s == &steps[2]) reporter.note(artifact + ": consumer: " + std::string(str::trim(r->out)));
    }
    return std::vector<Finding>{};
}

}  // namespace sf::binary
