// The splitforge binary: dispatch to the CLI and hold the single catch that
// turns errors into one line and a non-zero exit code.
#include <exception>
#include <iostream>

#include "cli/commands.hpp"
#include "core/error.hpp"

int main(int argc, char** argv) {
    try {
        return sf::cli::main(argc, argv);
    } catch (const sf::Failure& f) {
        std::cerr << "splitforge: error: " << f.error().str() << "\n";
        return 1;
    } catch (const std::exception& e) {
        std::cerr << "splitforge: internal error: " << e.what() << " (please report this)\n";
        return 3;
    }
}
