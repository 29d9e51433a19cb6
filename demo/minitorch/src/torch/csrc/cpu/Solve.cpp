#include <cmath>
#include <utility>

#include <torch/Tensor.h>

namespace torch::linalg {

std::vector<double> solve_cpu(const Matrix& a_in, const std::vector<double>& b_in) {
  c10::check(a_in.rows == a_in.cols, "solve: the matrix must be square");
  c10::check(b_in.size() == a_in.rows, "solve: the right-hand side has the wrong length");
  Matrix a = a_in;
  std::vector<double> b = b_in;
  const std::size_t n = a.rows;
  for (std::size_t k = 0; k < n; ++k) {
    std::size_t p = k;
    for (std::size_t i = k + 1; i < n; ++i)
      if (std::fabs(a.at(i, k)) > std::fabs(a.at(p, k))) p = i;
    c10::check(a.at(p, k) != 0.0, "solve: the matrix is singular");
    if (p != k) {
      for (std::size_t j = 0; j < n; ++j) std::swap(a.at(k, j), a.at(p, j));
      std::swap(b[k], b[p]);
    }
    for (std::size_t i = k + 1; i < n; ++i) {
      const double l = a.at(i, k) / a.at(k, k);
      for (std::size_t j = k; j < n; ++j) a.at(i, j) -= l * a.at(k, j);
      b[i] -= l * b[k];
    }
  }
  for (std::size_t i = n; i-- > 0;) {
    double s = b[i];
    for (std::size_t j = i + 1; j < n; ++j) s -= a.at(i, j) * b[j];
    b[i] = s / a.at(i, i);
  }
  return b;
}

}  // namespace torch::linalg
