#pragma once
// The one place that picks the CBLAS header.
#ifdef TORCH_BLAS_MKL
#include <mkl_cblas.h>
#else
#include <cblas.h>
#endif
