# Finds Ferry's dependencies. A missing required package stops the configure
# step with the Debian command that installs it; optional ones only report
# what they would enable.
find_package(PkgConfig)
if(NOT PKG_CONFIG_FOUND)
  message(FATAL_ERROR "pkg-config not found. Install it with: apt-get install pkg-config")
endif()

set(FERRY_MISSING_PACKAGES "")

macro(ferry_require_pkgconfig target module debian_package)
  pkg_check_modules(${target} IMPORTED_TARGET ${module})
  if(NOT ${target}_FOUND)
    list(APPEND FERRY_MISSING_PACKAGES ${debian_package})
  endif()
endmacro()

ferry_require_pkgconfig(PMIX pmix libpmix-dev)
ferry_require_pkgconfig(HWLOC hwloc libhwloc-dev)
ferry_require_pkgconfig(LIBSSH libssh libssh-dev)

find_package(CLI11 CONFIG QUIET)
if(NOT CLI11_FOUND)
  list(APPEND FERRY_MISSING_PACKAGES libcli11-dev)
endif()

if(FERRY_BUILD_TESTS)
  find_package(GTest QUIET)
  if(NOT GTest_FOUND)
    list(APPEND FERRY_MISSING_PACKAGES libgtest-dev)
  endif()
endif()

if(FERRY_MISSING_PACKAGES)
  list(JOIN FERRY_MISSING_PACKAGES " " _missing)
  message(FATAL_ERROR
    "Ferry needs packages that are not installed: ${_missing}\n"
    "Install them with: apt-get install ${_missing}")
endif()

# The verbs transport (src/transport/verbs) is always compiled, against
# rdma-core's headers only: libibverbs.so.1 is loaded at run time, so one
# build runs with or without RDMA hardware. CUDA needs nothing at build time:
# the few driver API declarations Ferry uses are in src/device/cuda_abi.h and
# libcuda.so.1 is opened at run time (FERRY_CUDA), so the GPU path is built,
# and unit-tested against a model, on every machine (README "GPU buffers").
pkg_check_modules(IBVERBS QUIET IMPORTED_TARGET libibverbs)
find_path(FERRY_IBVERBS_INCLUDE_DIR infiniband/verbs.h)
if(NOT FERRY_IBVERBS_INCLUDE_DIR)
  message(FATAL_ERROR "infiniband/verbs.h not found: the verbs transport is always built (libibverbs is "
    "loaded at run time, only the headers are needed). Install them with: apt-get install libibverbs-dev")
endif()

# MPICH's header, when present, is the reference for the ABI test.
find_path(FERRY_MPICH_INCLUDE_DIR mpi.h PATHS /usr/include/x86_64-linux-gnu/mpich NO_DEFAULT_PATH)
find_program(FERRY_MPICH_MPICC mpicc.mpich)
# Parallel HDF5 built for MPICH, for the MPI-IO client test (tests/mpi/io).
find_program(FERRY_H5PCC_MPICH h5pcc.mpich)

function(ferry_print_summary)
  message(STATUS "Ferry ${PROJECT_VERSION} configuration:")
  message(STATUS "  Open PMIx ${PMIX_VERSION}: wire-up, launcher PMIx server")
  message(STATUS "  hwloc ${HWLOC_VERSION}: topology and binding")
  message(STATUS "  libssh ${LIBSSH_VERSION}: remote launch")
  message(STATUS "  CLI11 ${CLI11_VERSION}: mpirun options")
  message(STATUS "  libibverbs headers in ${FERRY_IBVERBS_INCLUDE_DIR}: verbs transport built "
    "(libibverbs.so.1 loaded at run time)")
  message(STATUS "  CUDA: GPU buffers built in; libcuda.so.1 is opened at run time (FERRY_CUDA)")
  if(FERRY_CUDA_KERNELS_BUILT)
    message(STATUS "  nvcc ${FERRY_NVCC_VERSION}: GPU reduction kernels built (${FERRY_CUDA_KERNEL_ARCHS})")
  else()
    message(STATUS "  GPU reduction kernels: none (${FERRY_CUDA_KERNELS_WHY})")
  endif()
  if(FERRY_FORTRAN_BINDINGS AND FERRY_FORTRAN_COMPILER_FOUND)
    message(STATUS "  Fortran: libmpifort, mpif.h, mpifort/mpif90/mpif77 with ${CMAKE_Fortran_COMPILER}")
  elseif(FERRY_FORTRAN_BINDINGS)
    message(STATUS "  Fortran: libmpifort and mpif.h only; ${FERRY_FORTRAN_WHY}")
  else()
    message(STATUS "  Fortran: none (${FERRY_FORTRAN_WHY})")
  endif()
  if(FERRY_MPICH_INCLUDE_DIR)
    message(STATUS "  MPICH header in ${FERRY_MPICH_INCLUDE_DIR}: ABI test enabled")
  else()
    message(STATUS "  MPICH header: not found, ABI test disabled (apt-get install libmpich-dev)")
  endif()
  if(FERRY_H5PCC_MPICH)
    message(STATUS "  ${FERRY_H5PCC_MPICH}: HDF5 client test enabled")
  else()
    message(STATUS "  h5pcc.mpich: not found, HDF5 client test skipped (apt-get install libhdf5-mpich-dev)")
  endif()
  if(FERRY_BUILD_TESTS)
    message(STATUS "  GoogleTest ${GTest_VERSION}: unit tests enabled")
  endif()
endfunction()
