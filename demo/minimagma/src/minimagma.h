/* minimagma: a tiny MAGMA-shaped dense solver used by the minitorch demo. */
#ifndef MINIMAGMA_H
#define MINIMAGMA_H

#ifdef __cplusplus
extern "C" {
#endif

#if defined(__GNUC__)
#define MINIMAGMA_API __attribute__((visibility("default")))
#else
#define MINIMAGMA_API
#endif

/* Version as MAJOR*10000 + MINOR*100 + PATCH (2.8.0 -> 20800). */
MINIMAGMA_API int minimagma_version(void);

/* Solves A x = b in place for one right-hand side, with LU factorisation and
 * partial pivoting. A is n x n, row-major, and is overwritten by its LU
 * factors; b is overwritten by x. Returns 0 on success, i > 0 when U(i,i) is
 * exactly zero (singular matrix, like LAPACK's info), -1 on bad arguments. */
MINIMAGMA_API int minimagma_sgesv(int n, float* a, float* b);

/* y = alpha * A x + beta * y, A is m x n row-major. */
MINIMAGMA_API void minimagma_sgemv(int m, int n, float alpha, const float* a,
                                   const float* x, float beta, float* y);

#ifdef __cplusplus
}
#endif

#endif
