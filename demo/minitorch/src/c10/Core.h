#pragma once
// libc10: core utilities shared by every other minitorch library.
#include <cstddef>
#include <stdexcept>
#include <string>
#include <vector>

#include <c10/Macros.h>

namespace c10 {

// The version string from version.txt, e.g. "0.3.0".
C10_API const char* version();

class C10_API Error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Throws c10::Error(message) when cond is false.
C10_API void check(bool cond, const std::string& message);

// A dense row-major matrix of doubles: the only tensor type in minitorch.
struct C10_API Matrix {
  std::size_t rows = 0;
  std::size_t cols = 0;
  std::vector<double> data;

  Matrix() = default;
  Matrix(std::size_t r, std::size_t c) : rows(r), cols(c), data(r * c, 0.0) {}
  double& at(std::size_t r, std::size_t c) { return data[r * cols + c]; }
  double at(std::size_t r, std::size_t c) const { return data[r * cols + c]; }
};

}  // namespace c10
