/*
 * The choice buffers of mpi_f08 (MPI-4.0 §19.1.2: TYPE(*), DIMENSION(..) of TS 29113). Every binding
 * of gen_f08.py passes its buffer here, as a C descriptor (ISO_Fortran_binding.h), and gives the
 * address this returns to the C binding of mpif.h.
 *
 * The sentinels MPI_BOTTOM and MPI_IN_PLACE are objects of mpi_f08_link_constants, bound to MPICH's
 * C names (MPIR_F08_MPI_BOTTOM, MPIR_F08_MPI_IN_PLACE): a program passes their address, which
 * becomes C's MPI_BOTTOM or MPI_IN_PLACE.
 *
 * Not yet: a noncontiguous array section (a strided slice, gfortran passes it without a copy). It
 * would need a datatype built from the descriptor's strides; until then mpi_f08 says
 * MPI_SUBARRAYS_SUPPORTED = .false. and such a buffer is an MPI_ERR_BUFFER, raised on
 * MPI_COMM_WORLD, so that the default handler stops the program rather than send the wrong bytes.
 */
#include <ISO_Fortran_binding.h>
#include <stdint.h>

#include "fortran_binding.h"

extern MPI_Fint MPIR_F08_MPI_BOTTOM;
extern MPI_Fint MPIR_F08_MPI_IN_PLACE;

intptr_t ferry_f08_address(CFI_cdesc_t *buffer, MPI_Fint *ierr) {
  void *address = buffer->base_addr;
  if (address == &MPIR_F08_MPI_BOTTOM) return (intptr_t)MPI_BOTTOM;
  if (address == &MPIR_F08_MPI_IN_PLACE) return (intptr_t)MPI_IN_PLACE;
  if (buffer->rank > 0 && !CFI_is_contiguous(buffer)) {
    MPI_Comm_call_errhandler(MPI_COMM_WORLD, MPI_ERR_BUFFER);
    *ierr = MPI_ERR_BUFFER;
    return 0;
  }
  return (intptr_t)address;
}
