# Runs abi_symbols the way an MPICH program runs on Ferry: LIB_DIR (holding libmpich.so.12) first in
# LD_LIBRARY_PATH, and LD_BIND_NOW=1 so that the loader resolves every function at start-up. The
# loader names only the first symbol it misses; on failure this lists all of them, from the
# library's dynamic symbol table.
#   cmake -DPROGRAM=<abi_symbols> -DLIB_DIR=<build>/lib -DINTERFACE=<abi_interface.h> -DNM=<nm>
#         -P run_abi_symbols.cmake
cmake_minimum_required(VERSION 3.25)

set(library ${LIB_DIR}/libmpich.so.12)
if(NOT EXISTS ${library})
  message(FATAL_ERROR "${library} does not exist: is libmpi built?")
endif()
execute_process(
  COMMAND ${CMAKE_COMMAND} -E env LD_BIND_NOW=1 LD_LIBRARY_PATH=${LIB_DIR} ${PROGRAM} ${library}
  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(rc EQUAL 0)
  message(STATUS "${out}")
  return()
endif()

# Everything abi_symbols.c refers to: the header's functions and objects, and MPICH's extras.
file(STRINGS ${INTERFACE} entries REGEX "^FERRY_ABI_")
list(TRANSFORM entries REPLACE "^FERRY_ABI_[A-Z]+\\((.*)\\)$" "\\1")
list(APPEND entries MPIR_Dup_fn MPIR_F08_MPI_STATUS_IGNORE_OBJ MPIR_F08_MPI_STATUSES_IGNORE_OBJ
     MPIR_F08_MPI_IN_PLACE MPIR_F08_MPI_BOTTOM)
execute_process(COMMAND ${NM} -D --defined-only ${library} OUTPUT_VARIABLE exported)
set(missing "")
foreach(name IN LISTS entries)
  string(FIND "${exported}" " ${name}\n" position)
  if(position EQUAL -1)
    list(APPEND missing ${name})
  endif()
endforeach()
list(LENGTH missing n_missing)
list(JOIN missing " " missing)
message(FATAL_ERROR "abi_symbols failed (${rc}): ${err}${out}\n"
        "${n_missing} symbols are not exported by ${library}: ${missing}")
