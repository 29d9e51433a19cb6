/* miniblas: the CBLAS interface (the subset minitorch uses), with the
 * reference CBLAS enum values so that callers written against any CBLAS
 * header compile unchanged. */
#ifndef MINIBLAS_CBLAS_H
#define MINIBLAS_CBLAS_H

#ifdef __cplusplus
extern "C" {
#endif

#if defined(_WIN32)
#define CBLAS_EXPORT
#else
#define CBLAS_EXPORT __attribute__((visibility("default")))
#endif

typedef enum CBLAS_ORDER { CblasRowMajor = 101, CblasColMajor = 102 } CBLAS_ORDER;
typedef enum CBLAS_TRANSPOSE { CblasNoTrans = 111, CblasTrans = 112, CblasConjTrans = 113 } CBLAS_TRANSPOSE;
typedef CBLAS_ORDER CBLAS_LAYOUT;

CBLAS_EXPORT double cblas_ddot(int n, const double* x, int incx, const double* y, int incy);
CBLAS_EXPORT float cblas_sdot(int n, const float* x, int incx, const float* y, int incy);

/* C = alpha * op(A) * op(B) + beta * C, op(A) m x k, op(B) k x n. */
CBLAS_EXPORT void cblas_dgemm(CBLAS_ORDER order, CBLAS_TRANSPOSE transa, CBLAS_TRANSPOSE transb, int m, int n,
                              int k, double alpha, const double* a, int lda, const double* b, int ldb,
                              double beta, double* c, int ldc);
CBLAS_EXPORT void cblas_sgemm(CBLAS_ORDER order, CBLAS_TRANSPOSE transa, CBLAS_TRANSPOSE transb, int m, int n,
                              int k, float alpha, const float* a, int lda, const float* b, int ldb, float beta,
                              float* c, int ldc);

#ifdef __cplusplus
}
#endif

#endif
