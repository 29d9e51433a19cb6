#pragma once
// A small ordered YAML tree for the workflow writer, emitted by yaml-cpp:
// maps keep the order they are built in (GitHub reads `name`, `on`, `jobs`
// top to bottom, and so do people), multi-line shell is a literal block,
// and a string YAML would read as a number, a boolean or null is quoted.
#include <string>
#include <utility>
#include <vector>

namespace sf::feedstock {

struct Yaml {
    enum class Kind { text, literal, raw, map, seq };
    Kind kind = Kind::map;
    std::string s;
    std::vector<std::pair<std::string, Yaml>> map;
    std::vector<Yaml> seq;

    static Yaml text(std::string v);     // a string, quoted where YAML would retype it
    static Yaml literal(std::string v);  // a `|` block (shell scripts)
    static Yaml raw(std::string v);      // true, false, 42: typed on purpose
    static Yaml number(int v);
    static Yaml mapping();
    static Yaml list(std::vector<std::string> items = {});

    // set() and add() return the new value, valid until the next set()/add()
    // on the same node (it lives in a vector).
    Yaml& set(const std::string& key, Yaml v);  // appends
    Yaml& add(Yaml v);                          // appends to a sequence
    Yaml& at(const std::string& key);           // an existing key's value (set() it first)
};

// The document's text, newline-terminated.
std::string emit_yaml(const Yaml& doc);

// Whether a YAML 1.1/1.2 reader would take `s`, unquoted, for something other
// than this string (a number, boolean, null) or not read it at all.
bool yaml_needs_quotes(const std::string& s);

}  // namespace sf::feedstock
