/*
 * mpio.h: MPI-IO's own header, as programs written for MPICH (ROMIO) expect
 * it. mpi.h declares every MPI_File_* function and constant already; this
 * header adds the ROMIO names that HDF5, PnetCDF and older codes test for
 * or call.
 *
 * ROMIO once had its own request type for nonblocking I/O (MPIO_Request,
 * completed with MPIO_Wait/MPIO_Test); since MPI-2's generalized requests
 * it is MPI_Request, and MPIO_USES_MPI_REQUEST says so. Ferry's nonblocking
 * file calls return ordinary MPI requests, so the same holds here: code
 * that includes this header and calls MPIO_Wait gets MPI_Wait.
 */
#ifndef MPIO_INCLUDE
#define MPIO_INCLUDE

#include "mpi.h"

/* The ROMIO release whose interface this matches (MPICH 4.0.x ships 1.2.6). */
#define ROMIO_VERSION 126

/* Nonblocking file calls return MPI_Request (generalized requests exist). */
#define HAVE_MPI_GREQUEST 1
#define MPIO_USES_MPI_REQUEST
#define MPIO_Request MPI_Request
#define MPIO_REQUEST_DEFINED
#define MPIO_REQUEST_NULL ((MPIO_Request)0)
#define MPIO_Wait MPI_Wait
#define MPIO_Test MPI_Test
#define PMPIO_Wait PMPI_Wait
#define PMPIO_Test PMPI_Test

/* What mpi.h provides already, under the feature macros ROMIO's header
 * defines so that codes can test for them. */
#define MPI_FILE_DEFINED
#define HAVE_MPI_OFFSET
#define HAVE_MPI_INFO
#define HAVE_MPI_DARRAY_SUBARRAY
#define HAVE_MPI_DATAREP_FUNCTIONS

#endif /* MPIO_INCLUDE */
