# Fails if a macro that Ferry's mpi.h defines is missing from abi_constants.c, so that a constant
# added to the header cannot escape the comparison with MPICH.
#   cmake -DHEADER=include/mpi/mpi.h -DSOURCE=abi_constants.c -P check_constants_listed.cmake
cmake_minimum_required(VERSION 3.25)

file(STRINGS "${HEADER}" defines REGEX "^#define P?MPI_")
file(READ "${SOURCE}" source)
set(missing "")
foreach(line IN LISTS defines)
  string(REGEX MATCH "^#define (P?MPI_[A-Za-z0-9_]+)" _ "${line}")
  set(name "${CMAKE_MATCH_1}")
  string(REGEX MATCH "[^A-Za-z0-9_]${name}[^A-Za-z0-9_]" found "${source}")
  if(NOT found)
    list(APPEND missing "${name}")
  endif()
endforeach()
list(LENGTH defines n_defines)
if(missing)
  list(JOIN missing "\n  " missing)
  message(FATAL_ERROR "abi_constants.c does not print these macros of ${HEADER}:\n  ${missing}")
endif()
message(STATUS "abi_constants.c covers all ${n_defines} macros of ${HEADER}")
