#pragma once
// What meta.cpp, meta_text.cpp and meta_hash.cpp share: plain reads of a
// rendered meta dict, as conda-build's MetaData.get_value reads it.
#include <string>
#include <vector>

#include "render/meta.hpp"

namespace sf::render::detail {

std::string as_string(const Meta& v);  // a string as is, null as "", else its JSON
// meta[name] when it is a dict, else an empty dict.
const Meta& section(const Meta& meta, const char* name);
// requirements/<env> as strings (string_list), or nothing.
std::vector<std::string> reqs_of(const Meta& meta, const char* env);

}  // namespace sf::render::detail
