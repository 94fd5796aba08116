# Compares the MPI_*/MPIX_* functions (and QMPI's QMPI_* ones) Ferry's libmpi exports with those of MPICH's libmpich.so.12:
# every MPICH name must be exported, except the ones tests/abi/symbols_not_yet.txt still lists, and
# that list must not be stale (a name it lists that Ferry exports, or one MPICH does not have, fails),
# so it can only shrink until every name lands. Prints the names on failure.
#   cmake -DFERRY=<libmpi.so.12> -DMPICH=<libmpich.so.12> -DNOT_YET=<symbols_not_yet.txt> -DNM=<nm>
#         -P symbol_set.cmake
# With -DPRUNE=ON it takes the stale names out of the list instead of failing on them (after a merge
# that exported some); it never adds a name.
cmake_minimum_required(VERSION 3.25)

function(exported_names library out)
  execute_process(COMMAND ${NM} -D --defined-only ${library} OUTPUT_VARIABLE text RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "${NM} -D ${library} failed (${rc})")
  endif()
  string(REGEX MATCHALL "[ \t](MPIX?_[A-Za-z0-9_]+|QMPI_[A-Za-z0-9_]+)\n" matches "${text}")
  list(TRANSFORM matches STRIP)
  list(REMOVE_DUPLICATES matches)
  set(${out} ${matches} PARENT_SCOPE)
endfunction()

foreach(file IN ITEMS ${FERRY} ${MPICH} ${NOT_YET})
  if(NOT EXISTS ${file})
    message(FATAL_ERROR "${file} does not exist")
  endif()
endforeach()
exported_names(${FERRY} ferry)
exported_names(${MPICH} mpich)
file(STRINGS ${NOT_YET} not_yet REGEX "^(MPIX?|QMPI)_")

set(missing "")
foreach(name IN LISTS mpich)
  if(NOT name IN_LIST ferry AND NOT name IN_LIST not_yet)
    list(APPEND missing ${name})
  endif()
endforeach()
set(stale "")
foreach(name IN LISTS not_yet)
  if(name IN_LIST ferry OR NOT name IN_LIST mpich)
    list(APPEND stale ${name})
  endif()
endforeach()

list(LENGTH ferry n_ferry)
list(LENGTH mpich n_mpich)
if(PRUNE AND stale)
  # On the whole text, not on file(STRINGS)'s list of lines: the header's command ends in a
  # backslash, which escapes the list separator after it and would join the next line to it.
  file(READ ${NOT_YET} text)
  foreach(name IN LISTS stale)
    string(REGEX REPLACE "(^|\n)${name}(\n|$)" "\\1" text "${text}")
  endforeach()
  file(WRITE ${NOT_YET} "${text}")
  list(JOIN stale " " text)
  message(STATUS "took out of ${NOT_YET}: ${text}")
  list(REMOVE_ITEM not_yet ${stale})
  set(stale "")
endif()

set(problems "")
if(missing)
  list(LENGTH missing n)
  list(JOIN missing " " text)
  string(APPEND problems "${n} MPICH functions are neither exported by ${FERRY} nor listed in ${NOT_YET}: ${text}\n")
endif()
if(stale)
  list(LENGTH stale n)
  list(JOIN stale " " text)
  string(APPEND problems "${n} names in ${NOT_YET} are stale (exported by Ferry now, or not MPICH's): "
         "${text}\n  take them out of the list\n")
endif()
if(problems)
  message(FATAL_ERROR "${problems}")
endif()
list(LENGTH not_yet n_not_yet)
list(JOIN not_yet " " text)
message(STATUS "Ferry exports ${n_ferry} MPI_*/MPIX_* names, MPICH ${n_mpich}; "
        "${n_not_yet} still to come: ${text}")
