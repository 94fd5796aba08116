// Making and freeing windows (MPI-4.0 §12.2), collective over the
// communicator: MPI_Win_create, _allocate, _allocate_shared,
// _create_dynamic and MPI_Win_free; the calls on a window's memory
// (MPI_Win_attach/_detach, MPI_Win_shared_query) and its hints.
//
// Creation in three steps on a private duplicate of the communicator:
//   1. every rank's card (host, pid, size, displacement unit, base) to all
//      (allgather);
//   2. the lowest rank of each host creates the host's control segment
//      (rma/control.h) and, for the allocating flavors, one segment with
//      every local rank's memory, back to back in rank order (contiguous,
//      as MPI_Win_allocate_shared promises unless alloc_shared_noncontig
//      is set); its names go to all (allgather), every local rank maps them;
//   3. the allocating flavors' bases (each rank mapped the segment at its
//      own address) to all; a barrier, and the names are unlinked;
//      MPI_Win_create: a rank whose memory came from MPI_Alloc_mem named
//      its file on its card, and the host's other ranks map it
//      (rma/alloc_mem.h; all of them or none, agreed by an allreduce).
#pragma once

#include "base/communicator.h"
#include "base/error.h"
#include "base/info.h"
#include "rma/window.h"

namespace ferry::rma {

// The machine this process runs on: its host name and the kernel's boot id
// (containers on one machine have their own names, and cannot attach to
// each other's memory). Processes with the same key share memory.
uint64_t machine_key();

Err create(Communicator* c, void* base, MPI_Aint size, int disp_unit, const Info* hints, Window** out);
Err allocate(Communicator* c, MPI_Aint size, int disp_unit, const Info* hints, bool shared, void** base, Window** out);
Err create_dynamic(Communicator* c, const Info* hints, Window** out);
// Collective: every rank's operations on the window are complete.
Err free_window(Window* w);

Err attach(Window& w, void* base, MPI_Aint size);
Err detach(Window& w, const void* base);
// MPI_Win_shared_query: `rank` may be MPI_PROC_NULL (the lowest rank with
// a non-zero size).
Err shared_query(const Window& w, int rank, MPI_Aint* size, int* disp_unit, void** base);

// The hints as MPI_Win_get_info returns them, and MPI_Win_set_info.
void set_hints(Window& w, const Info& hints);

}  // namespace ferry::rma
