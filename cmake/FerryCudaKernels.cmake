# The GPU kernels (src/device/kernels/reduce.cu, the reductions, and pack.cu,
# the pack kernels of non-contiguous datatypes): built into libmpi
# when nvcc is at hand, absent otherwise, and libmpi never links libcuda or
# libcudart either way (the driver is opened at run time, FERRY_CUDA).
#
# nvcc makes one fatbin (SASS for each architecture below, plus PTX that
# newer GPUs compile at load time); a generated assembler file embeds it with
# .incbin into the device layer's objects, where device/kernels.cc hands it
# to cuModuleLoadData. Only device code is compiled, so the host compiler
# nvcc would otherwise insist on hardly matters.
#
#   FERRY_CUDA_KERNELS=AUTO  build them if nvcc is found and works (default)
#                     ON    the same, and a missing or broken nvcc stops the configure
#                     OFF   never: GPU reductions stage through the host
#   FERRY_NVCC              the nvcc to use (found from CMAKE_CUDA_COMPILER,
#                           CUDACXX, PATH, /usr/local/cuda/bin,
#                           /usr/lib/nvidia-cuda-toolkit/bin, in that order)
set(FERRY_CUDA_KERNELS AUTO CACHE STRING "GPU reduction kernels: AUTO (when nvcc is found), ON, OFF")
set_property(CACHE FERRY_CUDA_KERNELS PROPERTY STRINGS AUTO ON OFF)
string(TOUPPER "${FERRY_CUDA_KERNELS}" _ferry_kernels)
if(NOT _ferry_kernels MATCHES "^(AUTO|ON|OFF)$")
  message(FATAL_ERROR "FERRY_CUDA_KERNELS=${FERRY_CUDA_KERNELS}: expected AUTO, ON or OFF")
endif()

set(FERRY_CUDA_KERNELS_BUILT OFF)
set(FERRY_CUDA_KERNELS_WHY "FERRY_CUDA_KERNELS=OFF")  # replaced by the reason AUTO found

# Says why there are no kernels: a stop for ON, one line for AUTO.
macro(_ferry_no_kernels why)
  set(FERRY_CUDA_KERNELS_WHY "${why}")
  if(_ferry_kernels STREQUAL "ON")
    message(FATAL_ERROR "FERRY_CUDA_KERNELS=ON, but ${why}")
  endif()
  message(STATUS "GPU reduction kernels: ${why}, GPU reductions stage through the host")
endmacro()

if(NOT _ferry_kernels STREQUAL "OFF")
  set(_hints "")
  if(CMAKE_CUDA_COMPILER)
    get_filename_component(_dir "${CMAKE_CUDA_COMPILER}" DIRECTORY)
    list(APPEND _hints "${_dir}")
  endif()
  if(DEFINED ENV{CUDACXX})
    get_filename_component(_dir "$ENV{CUDACXX}" DIRECTORY)
    list(APPEND _hints "${_dir}")
  endif()
  find_program(FERRY_NVCC nvcc HINTS ${_hints} PATHS /usr/local/cuda/bin /usr/lib/nvidia-cuda-toolkit/bin
               DOC "nvcc for the GPU reduction kernels")
  if(NOT FERRY_NVCC)
    _ferry_no_kernels("no nvcc")
  else()
    execute_process(COMMAND "${FERRY_NVCC}" --version OUTPUT_VARIABLE _out ERROR_QUIET RESULT_VARIABLE _rc)
    string(REGEX MATCH "release ([0-9]+)\\.([0-9]+)" _release "${_out}")
    set(FERRY_NVCC_VERSION "${CMAKE_MATCH_1}.${CMAKE_MATCH_2}")
    if(NOT _rc EQUAL 0 OR NOT _release)
      _ferry_no_kernels("${FERRY_NVCC} --version failed")
    elseif(FERRY_NVCC_VERSION VERSION_LESS 11.8)
      _ferry_no_kernels("nvcc ${FERRY_NVCC_VERSION} is older than 11.8 (sm_90)")
    else()
      # CUDA 12.9 deprecated sm_70 and 13.0 dropped it. compute_90 PTX lets a
      # newer GPU (Blackwell) compile the kernels when the module is loaded.
      if(FERRY_NVCC_VERSION VERSION_GREATER_EQUAL 12.9)
        set(_archs 75 80 86 89 90)
      else()
        set(_archs 70 75 80 86 89 90)
      endif()
      set(_common --fatbin -O3 -std=c++17 -ccbin "${CMAKE_CXX_COMPILER}"
          # SASS for 92 kernels is about 1 MiB an architecture; compressed, 40 KiB.
          -Xfatbin -compress-all)
      # CUDA 11.x refuses a g++ newer than 11 as host compiler (Debian 12's
      # toolkit is 11.8, its g++ 12): the host side of this file is empty.
      if(FERRY_NVCC_VERSION VERSION_LESS 12.0)
        list(APPEND _common -allow-unsupported-compiler)
      endif()
      set(FERRY_NVCC_FLAGS ${_common})
      foreach(_arch ${_archs})
        list(APPEND FERRY_NVCC_FLAGS -gencode "arch=compute_${_arch},code=sm_${_arch}")
      endforeach()
      list(APPEND FERRY_NVCC_FLAGS -gencode "arch=compute_90,code=compute_90")
      list(JOIN _archs " sm_" FERRY_CUDA_KERNEL_ARCHS)
      set(FERRY_CUDA_KERNEL_ARCHS "sm_${FERRY_CUDA_KERNEL_ARCHS} + compute_90 PTX")

      # One probe, so that a toolkit that cannot build (a host compiler it
      # rejects, a broken install) means "no kernels" rather than a failed build.
      set(_probe_dir "${PROJECT_BINARY_DIR}/CMakeFiles/ferry_nvcc_probe")
      file(MAKE_DIRECTORY "${_probe_dir}")
      file(WRITE "${_probe_dir}/probe.cu" "extern \"C\" __global__ void probe(int* p) { *p = 1; }\n")
      execute_process(COMMAND "${FERRY_NVCC}" ${_common} -gencode arch=compute_75,code=sm_75 -o probe.fatbin probe.cu
                      WORKING_DIRECTORY "${_probe_dir}" RESULT_VARIABLE _rc OUTPUT_VARIABLE _out ERROR_VARIABLE _out)
      if(NOT _rc EQUAL 0)
        string(REGEX REPLACE "\n.*" "" _first_line "${_out}")
        _ferry_no_kernels("nvcc ${FERRY_NVCC_VERSION} at ${FERRY_NVCC} cannot build a fatbin (${_first_line})")
      else()
        set(FERRY_CUDA_KERNELS_BUILT ON)
        enable_language(ASM)  # the .incbin file
      endif()
    endif()
  endif()
endif()

# Adds the embedded fatbin to `target` (the device layer's object library).
function(ferry_add_cuda_kernels target)
  if(NOT FERRY_CUDA_KERNELS_BUILT)
    return()
  endif()
  # One module holds every kernel (reduce.cu, pack.cu): nvcc makes a fatbin
  # from one source, so a generated file includes them all.
  set(_kernel_dir "${PROJECT_SOURCE_DIR}/src/device/kernels")
  set(source "${CMAKE_CURRENT_BINARY_DIR}/device_kernels/all_kernels.cu")
  file(CONFIGURE OUTPUT "${source}" @ONLY CONTENT [[
// Generated by cmake/FerryCudaKernels.cmake: every GPU kernel, one module.
#include "@_kernel_dir@/reduce.cu"
#include "@_kernel_dir@/pack.cu"
]])
  set(fatbin "${CMAKE_CURRENT_BINARY_DIR}/device_kernels/reduce.fatbin")
  set(embed "${CMAKE_CURRENT_BINARY_DIR}/device_kernels/reduce_fatbin.S")
  add_custom_command(OUTPUT "${fatbin}"
    COMMAND "${FERRY_NVCC}" ${FERRY_NVCC_FLAGS} -o "${fatbin}" "${source}"
    DEPENDS "${source}" "${_kernel_dir}/reduce.cu" "${_kernel_dir}/reduce_abi.h" "${_kernel_dir}/pack.cu"
            "${_kernel_dir}/pack_abi.h"
    COMMENT "nvcc ${FERRY_NVCC_VERSION}: GPU reduction and pack kernels for ${FERRY_CUDA_KERNEL_ARCHS}"
    VERBATIM)
  # The symbol is hidden: libmpi's version script exports only MPI, and the
  # unit tests' static library links it like any other object.
  file(CONFIGURE OUTPUT "${embed}" @ONLY CONTENT [[
/* Generated by cmake/FerryCudaKernels.cmake: the GPU reduction kernels' fatbin. */
  .section .rodata.ferry_reduce_fatbin,"a",@progbits
  .balign 16
  .globl ferry_reduce_fatbin
  .hidden ferry_reduce_fatbin
  .type ferry_reduce_fatbin, @object
ferry_reduce_fatbin:
  .incbin "@fatbin@"
  .size ferry_reduce_fatbin, . - ferry_reduce_fatbin
  .section .note.GNU-stack,"",@progbits
]])
  set_source_files_properties("${embed}" PROPERTIES OBJECT_DEPENDS "${fatbin}" LANGUAGE ASM)
  target_sources(${target} PRIVATE "${embed}")
  target_compile_definitions(${target} PRIVATE FERRY_CUDA_KERNELS=1)
endfunction()
