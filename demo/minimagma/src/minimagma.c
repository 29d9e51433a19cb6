#include "minimagma.h"

#include <math.h>
#include <stddef.h>

int minimagma_version(void) { return MINIMAGMA_VERSION_NUMBER; }

int minimagma_sgesv(int n, float* a, float* b) {
  if (n < 0 || (n > 0 && (a == NULL || b == NULL))) return -1;
  for (int k = 0; k < n; ++k) {
    /* Partial pivoting: bring the largest remaining |a(i,k)| to row k. */
    int p = k;
    for (int i = k + 1; i < n; ++i)
      if (fabsf(a[(size_t)i * n + k]) > fabsf(a[(size_t)p * n + k])) p = i;
    if (a[(size_t)p * n + k] == 0.0f) return k + 1;
    if (p != k) {
      for (int j = 0; j < n; ++j) {
        float t = a[(size_t)k * n + j];
        a[(size_t)k * n + j] = a[(size_t)p * n + j];
        a[(size_t)p * n + j] = t;
      }
      float t = b[k];
      b[k] = b[p];
      b[p] = t;
    }
    for (int i = k + 1; i < n; ++i) {
      float l = a[(size_t)i * n + k] / a[(size_t)k * n + k];
      a[(size_t)i * n + k] = l;
      for (int j = k + 1; j < n; ++j) a[(size_t)i * n + j] -= l * a[(size_t)k * n + j];
      b[i] -= l * b[k];
    }
  }
  for (int i = n - 1; i >= 0; --i) {
    float s = b[i];
    for (int j = i + 1; j < n; ++j) s -= a[(size_t)i * n + j] * b[j];
    b[i] = s / a[(size_t)i * n + i];
  }
  return 0;
}

void minimagma_sgemv(int m, int n, float alpha, const float* a, const float* x,
                     float beta, float* y) {
  for (int i = 0; i < m; ++i) {
    float s = 0.0f;
    for (int j = 0; j < n; ++j) s += a[(size_t)i * n + j] * x[j];
    y[i] = alpha * s + beta * y[i];
  }
}
