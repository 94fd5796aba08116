/* MPI-IO used to have its own header; mpi.h now declares all of it. Kept for programs that include it. */
#include "mpi.h"
