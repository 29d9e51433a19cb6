// Fuzz target: selector-like expressions through jinja::evaluate().
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>

#include "fuzz_common.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    using namespace sf::jinja;
    std::string expr(reinterpret_cast<const char*>(data), size);
    Origin origin{"meta.yaml", 12, 30};
    for (auto mode : {Undefinedness::strict, Undefinedness::lenient, Undefinedness::at_use}) {
        Context ctx = sf::fuzz::make_context(mode);
        auto v = evaluate(expr, origin, ctx);
        if (!v) {
            if (v.error().message.empty()) std::abort();
            if (v.error().loc.line < 12) std::abort();
            continue;
        }
        // Exercise the value model on whatever came out.
        (void)v->truthy();
        (void)v->str();
        (void)v->repr();
        if (!v->equals(*v) && !v->is_float()) {
            // Only NaN (possibly nested) may differ from itself.
            if (v->repr().find("nan") == std::string::npos) std::abort();
        }
    }
    return 0;
}
