# Install rules. `cmake --install build --prefix P` gives
#   P/bin/      mpirun, mpiexec -> mpirun, ferryd, mpicc, mpicxx, ferry_info, ferry_profile_report,
#               mpifort, mpif90, mpif77 (where CMake found a Fortran compiler)
#   P/lib/      libmpi.so.12 (+ libmpi.so), libmpich.so.12 and libmpich.so -> libmpi.so.12,
#               libmpifort.so.12 (+ libmpifort.so), libmpichfort.so.12 and libmpichfort.so -> it,
#               pkgconfig/ferry.pc and pkgconfig/mpi.pc (ferry-fort.pc, mpi-fort.pc: Fortran)
#   P/include/  mpi.h, mpio.h, mpix.h, mpif.h, mpi.mod, mpi_f08.mod and the mpi_f08_*.mod it uses
#               (where a Fortran compiler was found)
# Nothing installed names the build tree, so P can be moved: binaries carry
# only $ORIGIN-relative RUNPATHs plus the directories of libraries outside the
# project (the system's pmix2), the wrappers and .pc files find P from their
# own location.
#
# Included at the end of the top-level CMakeLists.txt, once every target exists.

set(FERRY_INSTALL_BINDIR ${CMAKE_INSTALL_BINDIR})

# RUNPATH of installed programs: libmpi from P/lib, found relative to P/bin.
if(IS_ABSOLUTE "${FERRY_INSTALL_LIBDIR}")
  set(_ferry_bin_runpath "${FERRY_INSTALL_LIBDIR}")
else()
  file(RELATIVE_PATH _ferry_bin_to_lib "/prefix/${FERRY_INSTALL_BINDIR}" "/prefix/${FERRY_INSTALL_LIBDIR}")
  set(_ferry_bin_runpath "$ORIGIN/${_ferry_bin_to_lib}")
endif()

# Creates the symlink <prefix>/<link> -> <target> at install time (honouring
# DESTDIR and --prefix) and records it in install_manifest.txt.
function(ferry_install_symlink target link)
  install(CODE "
    set(_ferry_link \"\$ENV{DESTDIR}\${CMAKE_INSTALL_PREFIX}/${link}\")
    message(STATUS \"Installing: \${_ferry_link} -> ${target}\")
    file(CREATE_LINK \"${target}\" \"\${_ferry_link}\" SYMBOLIC)
    list(APPEND CMAKE_INSTALL_MANIFEST_FILES \"\${_ferry_link}\")
  ")
endfunction()

# The targets are written by several people; a missing one is reported here
# rather than failing the configure step of everyone else.
foreach(_ferry_target mpi mpirun ferryd ferry_info)
  if(NOT TARGET ${_ferry_target})
    message(STATUS "Install: target ${_ferry_target} is not defined yet; it will not be installed")
  endif()
endforeach()

# --- libmpi ---------------------------------------------------------------------
if(TARGET mpi)
  # libmpi needs no RUNPATH of its own beyond the libraries outside the project.
  # The build tree is laid out like the installed one (build/bin, build/lib),
  # so targets that get installed carry their installed RUNPATH from the
  # start: CMake then has nothing to rewrite at install time and does not pad
  # the build-tree RUNPATH with empty entries, which the dynamic loader reads
  # as the current directory (dozens of failed opens at every process start).
  set_target_properties(mpi PROPERTIES INSTALL_RPATH "" INSTALL_RPATH_USE_LINK_PATH ON BUILD_WITH_INSTALL_RPATH ON)
  install(TARGETS mpi LIBRARY DESTINATION ${FERRY_INSTALL_LIBDIR})
  # Binaries built with MPICH ask for libmpich.so.12; the same library answers.
  ferry_install_symlink(libmpi.so.12 ${FERRY_INSTALL_LIBDIR}/libmpich.so.12)
  ferry_install_symlink(libmpi.so.12 ${FERRY_INSTALL_LIBDIR}/libmpich.so)
endif()

# --- libmpifort (bindings/fortran) -------------------------------------------------
# Its RUNPATH is $ORIGIN already (libmpi.so.12 beside it).
if(TARGET mpifort)
  install(TARGETS mpifort LIBRARY DESTINATION ${FERRY_INSTALL_LIBDIR})
  # Debian's MPICH names it libmpichfort.so.12; programs built with it ask for that name.
  ferry_install_symlink(libmpifort.so.12 ${FERRY_INSTALL_LIBDIR}/libmpichfort.so.12)
  ferry_install_symlink(libmpifort.so.12 ${FERRY_INSTALL_LIBDIR}/libmpichfort.so)
  install(FILES ${FERRY_FORTRAN_INCLUDE_DIR}/mpif.h DESTINATION ${FERRY_INSTALL_INCLUDEDIR})
  if(TARGET ferry_mpi_module)
    # mpi_f08 and the modules it uses (bindings/fortran/gen_f08.py), compiled with libmpifort.
    install(FILES ${FERRY_FORTRAN_INCLUDE_DIR}/mpi.mod ${FERRY_FORTRAN_INCLUDE_DIR}/mpi_f08.mod
                  ${FERRY_FORTRAN_INCLUDE_DIR}/mpi_f08_types.mod ${FERRY_FORTRAN_INCLUDE_DIR}/mpi_f08_compile_constants.mod
                  ${FERRY_FORTRAN_INCLUDE_DIR}/mpi_f08_link_constants.mod ${FERRY_FORTRAN_INCLUDE_DIR}/mpi_f08_callbacks.mod
                  ${FERRY_FORTRAN_INCLUDE_DIR}/mpi_sizeofs.mod
            DESTINATION ${FERRY_INSTALL_INCLUDEDIR})
  endif()
endif()

# --- Headers --------------------------------------------------------------------
# mpi.h, mpio.h, mpix.h and whatever they include from the same directory.
install(DIRECTORY ${PROJECT_SOURCE_DIR}/include/mpi/ DESTINATION ${FERRY_INSTALL_INCLUDEDIR}
        FILES_MATCHING PATTERN "*.h")

# --- Programs -------------------------------------------------------------------
foreach(_ferry_program mpirun ferryd ferry_info ferry_profile_report)
  if(TARGET ${_ferry_program})
    set_target_properties(${_ferry_program} PROPERTIES
      INSTALL_RPATH "${_ferry_bin_runpath}" INSTALL_RPATH_USE_LINK_PATH ON BUILD_WITH_INSTALL_RPATH ON)
    install(TARGETS ${_ferry_program} RUNTIME DESTINATION ${FERRY_INSTALL_BINDIR})
  endif()
endforeach()
if(TARGET mpirun)
  ferry_install_symlink(mpirun ${FERRY_INSTALL_BINDIR}/mpiexec)
endif()

# Relocatable mpicc/mpicxx and the .pc files, generated in tools/CMakeLists.txt.
install(PROGRAMS ${FERRY_INSTALLED_WRAPPERS} DESTINATION ${FERRY_INSTALL_BINDIR})
install(FILES ${FERRY_PKGCONFIG_FILES} DESTINATION ${FERRY_PKGCONFIG_DIR})

# --- What a user needs ------------------------------------------------------------
# Everything `cmake --install` installs (libmpi, mpirun, ferryd for the other
# hosts of a job, ferry_info; libmpifort, mpif.h and the mpi and mpi_f08
# modules where Fortran is built; the wrappers and .pc files are written when
# CMake configures), without the tests: scripts/quickstart builds this target
# alone, and scripts/test builds the rest later in the same build tree.
set(_ferry_installable "")
foreach(_ferry_target mpi mpirun ferryd ferry_info ferry_profile_report mpifort mpif_h ferry_mpi_module)
  if(TARGET ${_ferry_target})
    list(APPEND _ferry_installable ${_ferry_target})
  endif()
endforeach()
add_custom_target(installable DEPENDS ${_ferry_installable})
