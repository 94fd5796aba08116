# Runs two programs that print "NAME VALUE..." lines (the same source built against Ferry's and
# MPICH's mpi.h) and fails listing every line that differs.
#   cmake -DFERRY=<program> -DMPICH=<program> -P compare_outputs.cmake
cmake_minimum_required(VERSION 3.25)

foreach(side FERRY MPICH)
  execute_process(COMMAND ${${side}} OUTPUT_VARIABLE out RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "${${side}} failed (${rc})")
  endif()
  string(STRIP "${out}" out)
  string(REPLACE "\n" ";" ${side}_lines "${out}")
endforeach()

list(LENGTH FERRY_lines n_ferry)
list(LENGTH MPICH_lines n_mpich)
if(NOT n_ferry EQUAL n_mpich)
  message(FATAL_ERROR
          "the two programs print ${n_ferry} and ${n_mpich} lines: not built from the same source?")
endif()

set(differences "")
set(n_different 0)
math(EXPR last "${n_ferry} - 1")
foreach(i RANGE ${last})
  list(GET FERRY_lines ${i} ours)
  list(GET MPICH_lines ${i} theirs)
  if(NOT ours STREQUAL theirs)
    string(APPEND differences "  Ferry: ${ours}\n  MPICH: ${theirs}\n")
    math(EXPR n_different "${n_different} + 1")
  endif()
endforeach()

if(n_different GREATER 0)
  message(FATAL_ERROR
          "${n_different} of ${n_ferry} values differ from MPICH's (name value type size):\n${differences}")
endif()
message(STATUS "all ${n_ferry} values equal MPICH's")
