// Fuzz target: whole templates through Template::parse/render and render(),
// in strict and lenient mode. Any crash, hang, leak or UB is a bug; errors
// are expected and must carry a message.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>

#include "fuzz_common.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    using namespace sf::jinja;
    std::string text(reinterpret_cast<const char*>(data), size);
    Origin origin{"meta.yaml", 3, 5};

    auto tpl = Template::parse(text, origin);
    if (!tpl) {
        if (tpl.error().message.empty()) std::abort();
        return 0;
    }
    for (auto mode : {Undefinedness::strict, Undefinedness::lenient, Undefinedness::at_use}) {
        Context ctx = sf::fuzz::make_context(mode);
        auto out = tpl->render(ctx);
        if (!out && out.error().message.empty()) std::abort();
        // The convenience entry point must agree with the cached template.
        Context ctx2 = sf::fuzz::make_context(mode);
        auto out2 = render(text, origin, ctx2);
        if (out.has_value() != out2.has_value()) std::abort();
        if (out && *out != *out2) std::abort();
    }
    return 0;
}
