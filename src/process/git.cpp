// git with a fixed configuration; see git.hpp.
#include "process/git.hpp"

#include "util/strings.hpp"

namespace sf::process {

const std::vector<std::string>& git_safe_config() {
    // Each key runs a program in a subcommand we use (clone, checkout,
    // submodule update/status, describe, rev-parse, apply), or would let
    // one in. Not here: diff.external and diff/merge drivers (we run no diff
    // or merge; GIT_EXTERNAL_DIFF is dropped), filter.<driver>.* (only clone's
    // checkout converts files, in a repository whose config is new and ours;
    // `git apply` runs outside any repository), uploadpack.packObjectsHook
    // (git reads it only from system, global and command-line config, all
    // ours), core.gitProxy (its first match wins, so it cannot be overridden;
    // only clone connects, and nothing but these settings configures it).
    static const std::vector<std::string> kConfig = {
        "core.fsmonitor=false",       // run on each index read in a work tree
        "core.hooksPath=/dev/null",   // post-checkout and every other hook
        "core.sshCommand=ssh",        // plain ssh (an empty value would break ssh URLs)
        "core.askPass=",              // no password program
        "core.pager=cat",             // belt to --no-pager
        "credential.helper=",         // an empty value clears the helper list
        "protocol.allow=never",       // every transport not named below, remote helpers included
        "protocol.https.allow=always", "protocol.http.allow=always", "protocol.ssh.allow=always",
        "protocol.git.allow=always",
        "protocol.file.allow=user",   // a local clone, never a submodule's (git's default since 2.38.1)
        "protocol.ext.allow=never",   // `ext::cmd` runs cmd
        "safe.bareRepository=explicit",  // no repository found inside a checkout's files
        "gc.auto=0", "maintenance.auto=false",  // no background gc after a fetch
        "advice.detachedHead=false",
    };
    return kConfig;
}

Result<Command> git_command(const GitCall& call) {
    for (const auto& op : call.operands)
        if (op.empty() || op[0] == '-')
            return fail("git operand '" + op + "' is empty or starts with '-'",
                        "a revision, URL or path given to git is never an option");
    Command c;
    c.argv = {"git", "--no-pager"};
    if (!call.repo.empty()) c.argv.insert(c.argv.end(), {"-C", call.repo.string()});
    for (const auto& kv : git_safe_config()) c.argv.insert(c.argv.end(), {"-c", kv});
    c.argv.insert(c.argv.end(), call.args.begin(), call.args.end());
    if (call.placement == Operands::after_end_of_options && !call.operands.empty())
        c.argv.push_back("--end-of-options");
    c.argv.insert(c.argv.end(), call.operands.begin(), call.operands.end());
    if (call.placement == Operands::before_dash_dash) c.argv.push_back("--");
    c.cwd = call.cwd;
    // GIT_DIR, GIT_CONFIG_PARAMETERS, GIT_SSH_COMMAND, GIT_EXTERNAL_DIFF,
    // GIT_ASKPASS and the rest would each change what runs or where.
    for (const auto& [k, v] : call.env)
        if (!str::starts_with(k, "GIT_") && k != "SSH_ASKPASS") c.env.emplace(k, v);
    c.env["GIT_CONFIG_NOSYSTEM"] = "1";
    c.env["GIT_CONFIG_GLOBAL"] = "/dev/null";
    c.env["GIT_TERMINAL_PROMPT"] = "0";  // never wait for a password
    c.env["GIT_PAGER"] = "cat";
    c.env["LC_ALL"] = "C";  // messages we quote and output we parse, in English
    // A directory below /dev/null exists nowhere: git runs as outside a repository.
    if (call.repository == Repository::none) c.env["GIT_DIR"] = "/dev/null/no-repository";
    return c;
}

Result<Outcome> git(const GitCall& call) {
    auto c = git_command(call);
    if (!c) return unexpected(c.error());
    return capture(*c);
}

}  // namespace sf::process
