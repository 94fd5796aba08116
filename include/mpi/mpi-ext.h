/*
 * Open MPI's extension header, for programs written against it: CUDA-aware
 * support is advertised at compile time by MPIX_CUDA_AWARE_SUPPORT and at run
 * time by MPIX_Query_cuda_support() (1 when this process can take GPU
 * buffers: the CUDA driver was loaded at MPI_Init, FERRY_CUDA). MPICH's
 * MPIX_GPU_query_support is in mpi.h.
 */
#ifndef FERRY_MPI_EXT_H
#define FERRY_MPI_EXT_H

#include "mpi.h"

#define MPIX_CUDA_AWARE_SUPPORT 1

#endif /* FERRY_MPI_EXT_H */
