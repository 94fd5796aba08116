/*
 * Ferry's extensions to MPI, in the MPIX_ namespace. A program tests FERRY_MPIX before using them;
 * none is defined yet.
 */
#ifndef FERRY_MPIX_H
#define FERRY_MPIX_H

#include "mpi.h"

#define FERRY_MPIX 1

#endif /* FERRY_MPIX_H */
