# Defines the INTERFACE target `minitorch_blas` (CBLAS headers + library) and
# TORCH_BLAS_NAME, from the BLAS cache option (generic | mkl).
add_library(minitorch_blas INTERFACE)

if(BLAS STREQUAL "mkl")
  # MKL ships MKLConfig.cmake; older installs only set MKLROOT.
  find_package(MKL CONFIG QUIET)
  if(MKL_FOUND AND TARGET MKL::MKL)
    target_link_libraries(minitorch_blas INTERFACE MKL::MKL)
  else()
    find_path(MKL_CBLAS_INCLUDE_DIR mkl_cblas.h
      HINTS "$ENV{MKLROOT}/include" PATH_SUFFIXES mkl)
    find_library(MKL_RT_LIBRARY mkl_rt
      HINTS "$ENV{MKLROOT}/lib" "$ENV{MKLROOT}/lib/intel64")
    if(NOT MKL_CBLAS_INCLUDE_DIR OR NOT MKL_RT_LIBRARY)
      message(FATAL_ERROR "MKL not found: the mkl variant is unavailable on this machine "
                          "(set MKLROOT or add MKL to CMAKE_PREFIX_PATH, or use BLAS=generic)")
    endif()
    target_include_directories(minitorch_blas INTERFACE ${MKL_CBLAS_INCLUDE_DIR})
    target_link_libraries(minitorch_blas INTERFACE ${MKL_RT_LIBRARY})
  endif()
  target_compile_definitions(minitorch_blas INTERFACE TORCH_BLAS_MKL)
  set(TORCH_BLAS_NAME "mkl")
elseif(BLAS STREQUAL "generic")
  # conda-forge's libcblas ships cblas.pc; Debian's OpenBLAS ships openblas.pc.
  find_package(PkgConfig QUIET)
  if(PkgConfig_FOUND)
    pkg_search_module(CBLAS QUIET IMPORTED_TARGET cblas openblas)
  endif()
  if(CBLAS_FOUND)
    target_link_libraries(minitorch_blas INTERFACE PkgConfig::CBLAS)
    set(TORCH_BLAS_NAME "${CBLAS_MODULE_NAME}")
  else()
    find_package(BLAS QUIET)
    find_path(CBLAS_INCLUDE_DIR cblas.h PATH_SUFFIXES openblas)
    if(NOT BLAS_FOUND OR NOT CBLAS_INCLUDE_DIR)
      message(FATAL_ERROR "No CBLAS found for BLAS=generic "
                          "(install libopenblas-dev, or a conda libcblas into the host prefix)")
    endif()
    target_include_directories(minitorch_blas INTERFACE ${CBLAS_INCLUDE_DIR})
    target_link_libraries(minitorch_blas INTERFACE ${BLAS_LIBRARIES})
    set(TORCH_BLAS_NAME "blas")
  endif()
else()
  message(FATAL_ERROR "BLAS must be 'generic' or 'mkl', got '${BLAS}'")
endif()
target_compile_definitions(minitorch_blas INTERFACE TORCH_BLAS_NAME="${TORCH_BLAS_NAME}")
message(STATUS "minitorch: BLAS=${BLAS} (${TORCH_BLAS_NAME})")
