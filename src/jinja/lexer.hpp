#pragma once
// Tokenizer for templates and bare expressions. Whitespace control
// ({%- -%} {{- -}} {#- -#}) and {% raw %} are resolved here, so the parser
// only sees text and tag/expression tokens.
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "core/error.hpp"
#include "jinja/jinja.hpp"

namespace sf::jinja::detail {

enum class Tok {
    text,         // literal template text
    var_begin,    // {{
    var_end,      // }}
    block_begin,  // {%
    block_end,    // %}
    name,         // identifiers and keywords
    integer,
    floating,
    string,
    op,           // operators and punctuation: + ** ( [ , ...
    eof,
};

struct Token {
    Tok kind = Tok::eof;
    std::string text;  // text, name, string contents (unescaped), operator spelling
    std::uint16_t op = 0;  // Tok::op: the spelling packed by op_code()
    std::int64_t ival = 0;
    double fval = 0;
    int line = 0;
    int col = 0;
};

// Packs a one- or two-character operator into a number for fast comparison.
constexpr std::uint16_t op_code(const char* s) {
    return static_cast<std::uint16_t>(static_cast<unsigned char>(s[0]) |
                                      (s[0] ? static_cast<unsigned char>(s[1]) << 8 : 0));
}

enum class LexMode { template_text, expression };

Result<std::vector<Token>> lex(std::string_view src, const Origin& origin, LexMode mode);

// Human-readable description of a token for "expected X, got Y" messages.
std::string describe(const Token& t);

}  // namespace sf::jinja::detail
