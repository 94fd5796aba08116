# Reads Ferry's mpi.h and writes, into OUT_DIR:
#   abi_interface.h   FERRY_ABI_FUNCTION(name) for every function it declares (QMPI's six too) and FERRY_ABI_OBJECT(name)
#                     for every library object (extern), for abi_symbols.c
#   abi_prototypes.c  every declaration of the header (functions, externs, typedefs other than
#                     structs), placed after MPICH's mpi.h. C accepts a redeclaration only when the
#                     types agree, so compiling it checks our prototypes against MPICH's.
#   cmake -DHEADER=include/mpi/mpi.h -DOUT_DIR=<dir> -P extract_interface.cmake
cmake_minimum_required(VERSION 3.25)

file(READ "${HEADER}" text)
# The headers it includes from its own directory (mpi_qmpi.h: QMPI's enum and types) are part of it.
get_filename_component(header_dir "${HEADER}" DIRECTORY)
string(REGEX MATCHALL "#include \"[^\"]+\"" local_includes "${text}")
foreach(line IN LISTS local_includes)
  string(REGEX REPLACE "#include \"([^\"]+)\"" "\\1" name "${line}")
  if(EXISTS "${header_dir}/${name}")
    file(READ "${header_dir}/${name}" included)
    string(APPEND text "\n${included}")
  endif()
endforeach()
# Comments and preprocessor lines out, then one statement per ';'.
string(REGEX REPLACE "/\\*([^*]|\\*+[^*/])*\\*+/" " " text "${text}")
string(REGEX REPLACE "\n[ \t]*#[^\n]*" "\n" text "${text}")
string(REPLACE "extern \"C\" {" " " text "${text}")
string(REGEX REPLACE "[ \t\n]+" " " text "${text}")

set(functions "")
set(objects "")
set(declarations "")
foreach(statement IN LISTS text)
  string(STRIP "${statement}" statement)
  if(statement MATCHES "^(int|double|MPI_Aint|MPI_Fint|MPI_File) (P?MPI[A-Za-z0-9_]*|QMPI_[A-Za-z0-9_]*) ?\\(")
    list(APPEND functions "${CMAKE_MATCH_2}")
  elseif(statement MATCHES "^extern [^{]*[ *]([A-Za-z0-9_]+)$")
    list(APPEND objects "${CMAKE_MATCH_1}")
  elseif(NOT statement MATCHES "^typedef [^{]*$")
    continue()
  endif()
  string(APPEND declarations "${statement};\n")
endforeach()

list(LENGTH functions n_functions)
if(n_functions LESS 100)
  message(FATAL_ERROR "found only ${n_functions} functions in ${HEADER}: did its layout change?")
endif()

set(generated "/* Generated from ${HEADER} by extract_interface.cmake. */\n")
set(list_text "${generated}")
foreach(name IN LISTS functions)
  string(APPEND list_text "FERRY_ABI_FUNCTION(${name})\n")
endforeach()
foreach(name IN LISTS objects)
  string(APPEND list_text "FERRY_ABI_OBJECT(${name})\n")
endforeach()
file(CONFIGURE OUTPUT "${OUT_DIR}/abi_interface.h" CONTENT "${list_text}" @ONLY)
file(CONFIGURE OUTPUT "${OUT_DIR}/abi_prototypes.c"
     CONTENT "${generated}#include <mpi.h>\n\n${declarations}" @ONLY)
message(STATUS "${n_functions} functions in ${HEADER}")
