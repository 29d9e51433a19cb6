// The splitforge binary: dispatch to the CLI, which maps errors to exit codes
// (cli/common.hpp); this holds the last catch, for what nothing else expected.
#include <cstdlib>
#include <exception>
#include <iostream>

#include <mimalloc.h>

#include "cli/commands.hpp"
#include "core/error.hpp"

int main(int argc, char** argv) {
    // 2 MiB pages (madvise, where the kernel's THP allows it): reading a
    // 280 MB repodata.json spends half its time in page faults and TLB
    // misses on 4 KiB pages. MIMALLOC_LARGE_OS_PAGES still decides if set.
    if (!std::getenv("MIMALLOC_LARGE_OS_PAGES")) mi_option_enable(mi_option_large_os_pages);
    try {
        return sf::cli::main(argc, argv);
    } catch (const sf::RuntimeError& e) {  // the job failed (cli::main maps these first)
        std::cerr << "splitforge: error: " << e.error().str() << "\n";
        return 1;
    } catch (const sf::Failure& f) {
        std::cerr << "splitforge: error: " << f.error().str() << "\n";
        return 2;
    } catch (const std::exception& e) {
        std::cerr << "splitforge: internal error: " << e.what() << " (please report this)\n";
        return 3;
    }
}
