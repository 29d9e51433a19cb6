// The splitforge binary: dispatch to the CLI, which maps errors to exit codes
// (cli/common.hpp); this holds the last catch, for what nothing else expected.
#include <exception>
#include <iostream>

#include "cli/commands.hpp"
#include "core/error.hpp"

int main(int argc, char** argv) {
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
