/* miniblas: naive, portable CBLAS routines. Strides may be negative, as the
 * BLAS reference allows (the vector is then walked from its far end). */
#include "cblas.h"

#define DOT(T, name)                                                        \
  T name(int n, const T* x, int incx, const T* y, int incy) {               \
    T sum = 0;                                                              \
    if (n <= 0) return sum;                                                 \
    int ix = incx < 0 ? (1 - n) * incx : 0;                                 \
    int iy = incy < 0 ? (1 - n) * incy : 0;                                 \
    for (int i = 0; i < n; ++i, ix += incx, iy += incy) sum += x[ix] * y[iy]; \
    return sum;                                                             \
  }

DOT(double, cblas_ddot)
DOT(float, cblas_sdot)

/* Element (i, j) of op(M), M stored with leading dimension ld in `order`. */
#define AT(M, ld, order, trans, i, j)                                  \
  (((order) == CblasRowMajor) != ((trans) != CblasNoTrans)             \
       ? (M)[(long)(i) * (ld) + (j)]                                   \
       : (M)[(long)(j) * (ld) + (i)])

#define GEMM(T, name)                                                                            \
  void name(CBLAS_ORDER order, CBLAS_TRANSPOSE ta, CBLAS_TRANSPOSE tb, int m, int n, int k,      \
            T alpha, const T* a, int lda, const T* b, int ldb, T beta, T* c, int ldc) {          \
    for (int i = 0; i < m; ++i)                                                                  \
      for (int j = 0; j < n; ++j) {                                                              \
        T sum = 0;                                                                               \
        for (int p = 0; p < k; ++p) sum += AT(a, lda, order, ta, i, p) * AT(b, ldb, order, tb, p, j); \
        T* cij = order == CblasRowMajor ? &c[(long)i * ldc + j] : &c[(long)j * ldc + i];         \
        *cij = alpha * sum + (beta == 0 ? 0 : beta * *cij);                                      \
      }                                                                                          \
  }

GEMM(double, cblas_dgemm)
GEMM(float, cblas_sgemm)
