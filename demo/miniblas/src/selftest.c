/* cblas_selftest: the routines against hand-computed results; exit 0 when
 * all agree. */
#include <math.h>
#include <stdio.h>

#include "cblas.h"

static int fails = 0;

static void expect(const char* what, double got, double want) {
  if (fabs(got - want) > 1e-6) {
    printf("FAIL %s: got %g, want %g\n", what, got, want);
    ++fails;
  }
}

int main(void) {
  const double x[3] = {1, 2, 3}, y[3] = {4, 5, 6};
  expect("ddot", cblas_ddot(3, x, 1, y, 1), 32);
  expect("ddot negative stride", cblas_ddot(3, x, 1, y, -1), 1 * 6 + 2 * 5 + 3 * 4);
  const float xf[2] = {1.5f, 2}, yf[2] = {2, 0.5f};
  expect("sdot", cblas_sdot(2, xf, 1, yf, 1), 4);

  const double a[4] = {1, 2, 3, 4}, b[4] = {5, 6, 7, 8};
  double c[4] = {1, 1, 1, 1};
  cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, 2, 2, 2, 1.0, a, 2, b, 2, 0.0, c, 2);
  expect("dgemm c00", c[0], 19);
  expect("dgemm c01", c[1], 22);
  expect("dgemm c10", c[2], 43);
  expect("dgemm c11", c[3], 50);
  cblas_dgemm(CblasColMajor, CblasTrans, CblasNoTrans, 2, 2, 2, 2.0, a, 2, b, 2, 1.0, c, 2);
  /* col-major: A^T is a read row-major, so C += 2 * (row-major A) * (col-major B). */
  expect("dgemm col-major trans c00", c[0], 19 + 2 * (1 * 5 + 2 * 6));

  const float af[6] = {1, 2, 3, 4, 5, 6}, bf[6] = {1, 0, 0, 1, 1, 1};
  float cf[4] = {0};
  cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, 2, 2, 3, 1.0f, af, 3, bf, 2, 0.0f, cf, 2);
  expect("sgemm c00", cf[0], 4);
  expect("sgemm c10", cf[2], 10);
  expect("sgemm c11", cf[3], 11);
  if (fails == 0) printf("miniblas selftest: ok\n");
  return fails == 0 ? 0 : 1;
}
