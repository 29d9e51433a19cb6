@echo on
:: Staging build on Windows (no megabuild: one Python per staging build).
set CMAKE_GENERATOR=Ninja
set MAX_JOBS=%CPU_COUNT%
set BUILD_TEST=0
if "%blas_impl%"=="mkl" (set BLAS=MKL) else (set BLAS=OpenBLAS)
if "%cuda_compiler_version%"=="None" (set USE_CUDA=0) else (set USE_CUDA=1)
%PYTHON% setup.py build --cmake-only
if errorlevel 1 exit 1
cmake --build build --parallel %CPU_COUNT%
if errorlevel 1 exit 1
