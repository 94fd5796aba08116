/*
 * The choice buffers of mpi_f08 (MPI-4.0 §19.1.2: TYPE(*), DIMENSION(..) of TS 29113). Every binding
 * of gen_f08.py passes its buffer here, as a C descriptor (ISO_Fortran_binding.h), and gives the
 * address this returns to the C binding of mpif.h.
 *
 * The sentinels MPI_BOTTOM and MPI_IN_PLACE are objects of mpi_f08_link_constants, bound to MPICH's
 * C names (MPIR_F08_MPI_BOTTOM, MPIR_F08_MPI_IN_PLACE): a program passes their address, which
 * becomes C's MPI_BOTTOM or MPI_IN_PLACE.
 *
 * A noncontiguous array section (buf(1:n:2), a(2:7, 3)), which gfortran passes without a copy, is
 * described rather than copied (MPI-4.0 §19.1.12, MPI_SUBARRAYS_SUPPORTED): when the buffer has its
 * own count and datatype (buf, count, datatype) and the datatype is one element of the array, the
 * call gets one element of a new datatype that picks the first count elements of the section at
 * their addresses (an hindexed block), so nonblocking calls write straight into the section. The
 * binding frees that datatype after the call (a pending operation keeps what it needs, MPI-4.0
 * §5.1.10). A section that no datatype can describe (a buffer of the v/w collectives, whose
 * displacements count elements of the contiguous array the section stands for; a reduction's two
 * buffers, which share one datatype; MPI_Pack's packed buffer) is copied for blocking calls, which
 * are done with it when they return: into a contiguous buffer before the call and, for buffers the
 * call writes, back after it (ferry_f08_copy_in/_out) -- the "as if contiguous" of MPI-4.0
 * §19.1.12. Elsewhere (nonblocking and persistent calls, which outlive the binding) it is an
 * MPI_ERR_BUFFER, raised on MPI_COMM_WORLD, so that the default handler stops the program rather
 * than send the wrong bytes.
 */
#include <ISO_Fortran_binding.h>
#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fortran_binding.h"

extern MPI_Fint MPIR_F08_MPI_BOTTOM;
extern MPI_Fint MPIR_F08_MPI_IN_PLACE;

static int unsupported(MPI_Fint *ierr) {
  MPI_Comm_call_errhandler(MPI_COMM_WORLD, MPI_ERR_BUFFER);
  *ierr = MPI_ERR_BUFFER;
  return 0;
}

/* Whether the elements lie one after the other in Fortran's order. What CFI_is_contiguous answers,
 * without its call into libgfortran on every MPI call (mpi_f08's MPI_Send costs a few ns over C). */
static inline int contiguous(const CFI_cdesc_t *buffer) {
  for (int d = 0; d < buffer->rank; d++)
    if (buffer->dim[d].extent == 0) return 1;  // no element at all
  CFI_index_t expected = (CFI_index_t)buffer->elem_len;
  for (int d = 0; d < buffer->rank; d++) {
    if (buffer->dim[d].extent > 1 && buffer->dim[d].sm != expected) return 0;
    expected *= buffer->dim[d].extent;
  }
  return 1;
}

/* The address of a buffer or a sentinel; *noncontiguous tells whether it is a strided section. */
static inline intptr_t address_of(CFI_cdesc_t *buffer, int *noncontiguous) {
  void *address = buffer->base_addr;
  *noncontiguous = 0;
  if (address == &MPIR_F08_MPI_BOTTOM) return (intptr_t)MPI_BOTTOM;
  if (address == &MPIR_F08_MPI_IN_PLACE) return (intptr_t)MPI_IN_PLACE;
  if (buffer->rank > 0 && !contiguous(buffer)) *noncontiguous = 1;
  return (intptr_t)address;
}

intptr_t ferry_f08_address(CFI_cdesc_t *buffer, MPI_Fint *ierr) {
  int noncontiguous;
  intptr_t address = address_of(buffer, &noncontiguous);
  if (noncontiguous) return unsupported(ierr);
  return address;
}

/* A datatype of the first count elements of the section, in Fortran's order (first index fastest),
 * each one element of datatype, at its byte offset from the section's base address. */
static int section_datatype(CFI_cdesc_t *buffer, MPI_Count count, MPI_Datatype datatype, MPI_Datatype *section) {
  MPI_Count elements = 1, element_size = 0;
  for (int d = 0; d < buffer->rank; d++) elements *= buffer->dim[d].extent;
  if (MPI_Type_size_c(datatype, &element_size) != MPI_SUCCESS || element_size != (MPI_Count)buffer->elem_len ||
      count > elements || count > INT_MAX) {
    return MPI_ERR_BUFFER;
  }
  MPI_Aint *displacements = malloc(sizeof(MPI_Aint) * (size_t)(count > 0 ? count : 1));
  if (displacements == NULL) return MPI_ERR_NO_MEM;
  CFI_index_t index[CFI_MAX_RANK] = {0};
  for (MPI_Count i = 0; i < count; i++) {
    MPI_Aint offset = 0;
    for (int d = 0; d < buffer->rank; d++) offset += (MPI_Aint)index[d] * (MPI_Aint)buffer->dim[d].sm;
    displacements[i] = offset;
    for (int d = 0; d < buffer->rank && ++index[d] == buffer->dim[d].extent; d++) index[d] = 0;
  }
  int rc = MPI_Type_create_hindexed_block((int)count, 1, displacements, datatype, section);
  if (rc == MPI_SUCCESS) rc = MPI_Type_commit(section);
  free(displacements);
  return rc;
}

static intptr_t described(CFI_cdesc_t *buffer, MPI_Count count, MPI_Fint datatype, MPI_Count *new_count,
                          MPI_Fint *new_datatype, MPI_Fint *ierr) {
  int noncontiguous;
  intptr_t address = address_of(buffer, &noncontiguous);
  *new_count = count;
  *new_datatype = datatype;
  if (!noncontiguous) return address;
  MPI_Datatype section;
  if (section_datatype(buffer, count, (MPI_Datatype)datatype, &section) != MPI_SUCCESS) return unsupported(ierr);
  *new_count = 1;
  *new_datatype = (MPI_Fint)section;
  return address;
}

intptr_t ferry_f08_buffer(CFI_cdesc_t *buffer, MPI_Fint *count, MPI_Fint *datatype, MPI_Fint *new_count,
                          MPI_Fint *new_datatype, MPI_Fint *ierr) {
  MPI_Count c;
  intptr_t address = described(buffer, *count, *datatype, &c, new_datatype, ierr);
  *new_count = (MPI_Fint)c;
  return address;
}

intptr_t ferry_f08_buffer_c(CFI_cdesc_t *buffer, MPI_Count *count, MPI_Fint *datatype, MPI_Count *new_count,
                            MPI_Fint *new_datatype, MPI_Fint *ierr) {
  return described(buffer, *count, *datatype, new_count, new_datatype, ierr);
}

/* After the call: the section's datatype goes (the operation, if pending, keeps its own reference). */
void ferry_f08_buffer_end(MPI_Fint *datatype, MPI_Fint *new_datatype) {
  if (*new_datatype == *datatype) return;
  MPI_Datatype section = (MPI_Datatype)*new_datatype;
  MPI_Type_free(&section);
}

/* Walks the section's elements in Fortran's order (first index fastest), copying each between its
 * place in the section and the next elem_len bytes of `packed`. */
static void walk_section(CFI_cdesc_t *buffer, char *packed, int to_packed) {
  size_t length = buffer->elem_len;
  CFI_index_t elements = 1;
  for (int d = 0; d < buffer->rank; d++) elements *= buffer->dim[d].extent;
  CFI_index_t index[CFI_MAX_RANK] = {0};
  for (CFI_index_t i = 0; i < elements; i++, packed += length) {
    char *element = buffer->base_addr;
    for (int d = 0; d < buffer->rank; d++) element += index[d] * buffer->dim[d].sm;
    if (to_packed)
      memcpy(packed, element, length);
    else
      memcpy(element, packed, length);
    for (int d = 0; d < buffer->rank && ++index[d] == buffer->dim[d].extent; d++) index[d] = 0;
  }
}

/* A blocking call's buffer: its address, or for a noncontiguous section a contiguous copy of it
 * (*copy: that copy, for ferry_f08_copy_out; 0 when there is none). */
intptr_t ferry_f08_copy_in(CFI_cdesc_t *buffer, intptr_t *copy, MPI_Fint *ierr) {
  int noncontiguous;
  intptr_t address = address_of(buffer, &noncontiguous);
  *copy = 0;
  if (!noncontiguous) return address;
  size_t bytes = buffer->elem_len;
  for (int d = 0; d < buffer->rank; d++) bytes *= (size_t)buffer->dim[d].extent;
  char *packed = malloc(bytes > 0 ? bytes : 1);
  if (packed == NULL) {
    MPI_Comm_call_errhandler(MPI_COMM_WORLD, MPI_ERR_NO_MEM);
    *ierr = MPI_ERR_NO_MEM;
    return 0;
  }
  walk_section(buffer, packed, 1);
  *copy = (intptr_t)packed;
  return *copy;
}

/* After the call: a buffer the call wrote (`back`) goes from the copy to the section; the copy goes. */
void ferry_f08_copy_out(CFI_cdesc_t *buffer, intptr_t *copy, MPI_Fint back) {
  if (*copy == 0) return;
  if (back) walk_section(buffer, (char *)*copy, 0);
  free((void *)*copy);
  *copy = 0;
}
