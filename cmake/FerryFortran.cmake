# The Fortran side (bindings/fortran, docs/architecture.md "Fortran"): what can be built here.
#
#   libmpifort.so.12 and mpif.h   generated from src/api/mpi_api.txt by Python; plain C, so they
#                                 need no Fortran compiler (programs built elsewhere, with MPICH's
#                                 mpifort, run on them all the same)
#   mpifort, mpif90, mpif77       the compiler wrappers, and the Fortran tests and examples: only
#                                 when CMake finds a Fortran compiler (Debian: gfortran)
#
#   FERRY_FORTRAN=AUTO  build what the machine allows (default)
#                 ON    the same, and a missing Python or Fortran compiler stops the configure
#                 OFF   no Fortran side at all
# Sets FERRY_FORTRAN_BINDINGS (libmpifort and mpif.h), FERRY_FORTRAN_COMPILER_FOUND (wrappers,
# tests), and FERRY_FORTRAN_WHY (what was left out and why, for the summary).
set(FERRY_FORTRAN AUTO CACHE STRING "Fortran bindings and wrappers: AUTO (as far as the machine allows), ON, OFF")
set_property(CACHE FERRY_FORTRAN PROPERTY STRINGS AUTO ON OFF)
string(TOUPPER "${FERRY_FORTRAN}" _ferry_fortran)
if(NOT _ferry_fortran MATCHES "^(AUTO|ON|OFF)$")
  message(FATAL_ERROR "FERRY_FORTRAN=${FERRY_FORTRAN}: expected AUTO, ON or OFF")
endif()

set(FERRY_FORTRAN_BINDINGS OFF)
set(FERRY_FORTRAN_COMPILER_FOUND OFF)
set(FERRY_FORTRAN_WHY "")

# The generators and the check of mpi.h against the description need Python (Debian's python3).
find_package(Python3 COMPONENTS Interpreter)

if(_ferry_fortran STREQUAL "OFF")
  set(FERRY_FORTRAN_WHY "FERRY_FORTRAN=OFF")
elseif(NOT Python3_Interpreter_FOUND)
  set(FERRY_FORTRAN_WHY "no python3 to generate the bindings")
else()
  set(FERRY_FORTRAN_BINDINGS ON)
  include(CheckLanguage)
  check_language(Fortran)
  if(CMAKE_Fortran_COMPILER)
    enable_language(Fortran)
    set(FERRY_FORTRAN_COMPILER_FOUND ON)
  else()
    set(FERRY_FORTRAN_WHY "no Fortran compiler (apt-get install gfortran): no mpifort, no Fortran tests")
  endif()
endif()
if(_ferry_fortran STREQUAL "ON" AND FERRY_FORTRAN_WHY)
  message(FATAL_ERROR "FERRY_FORTRAN=ON, but ${FERRY_FORTRAN_WHY}")
endif()
