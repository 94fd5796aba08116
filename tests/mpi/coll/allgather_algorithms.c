/*
 * MPI_Allgather, MPI_Allgatherv and their nonblocking forms put every
 * rank's block in its place on every rank: blocks from 0 B to 512 KiB in
 * several datatypes, MPI_IN_PLACE, a receive type different from the send
 * type (MPI_BYTE in, MPI_INT out), unequal blocks and displacements with
 * gaps in the v form (the gaps untouched), and several nonblocking calls
 * outstanding at once. Run once per algorithm (FERRY_ALLGATHER_ALGORITHM)
 * and once with the selection table's choice, on the communicators of
 * test_comms.h.
 */
#define TEST_NAME "allgather_algorithms"
#include "../mpitest.h"
#include "test_comms.h"

static const size_t sizes[] = {0, 1, 4, 24, 100, 1000, 4096, 20000, 65536, 131076, 524288};
#define NSIZES (sizeof sizes / sizeof sizes[0])
#define GAP 8 /* bytes between blocks in the v form */

static uint32_t seed_of(int rank, size_t s, int form) {
  return mt_seed((uint32_t)rank, (uint32_t)s, (uint32_t)form + 100);
}

static MPI_Datatype type_for(size_t bytes, int *count) {
  if (bytes % 8 == 0 && bytes > 0) {
    *count = (int)(bytes / 8);
    return MPI_DOUBLE;
  }
  if (bytes % 4 == 0) {
    *count = (int)(bytes / 4);
    return MPI_INT;
  }
  *count = (int)bytes;
  return MPI_BYTE;
}

static void check_blocks(const unsigned char *buf, size_t bytes, int size, size_t s, int form, const char *what,
                         const char *name) {
  for (int r = 0; r < size; r++)
    CHECK_PATTERN(buf + (size_t)r * bytes, bytes, seed_of(r, s, form), "%s: %s block of rank %d (%zu bytes)",
                  name, what, r, bytes);
}

/* Block of rank r in the v form: r-dependent size, displacements with gaps. */
static size_t vbytes(size_t bytes, int r) { return (bytes * (size_t)(r % 3)) / 2; }

static void run(MPI_Comm comm, const char *name) {
  int rank, size;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  for (size_t s = 0; s < NSIZES; s++) {
    size_t bytes = sizes[s];
    int count;
    MPI_Datatype type = type_for(bytes, &count);
    size_t total = bytes * (size_t)size;
    unsigned char *send = mt_malloc(bytes), *recv = mt_malloc(total);

    /* Blocking, separate buffers. */
    mt_fill(send, bytes, seed_of(rank, s, 0));
    memset(recv, 0xee, total);
    MPI_Allgather(send, count, type, recv, count, type, comm);
    check_blocks(recv, bytes, size, s, 0, "MPI_Allgather", name);

    /* Blocking, MPI_IN_PLACE. */
    memset(recv, 0xee, total);
    mt_fill(recv + (size_t)rank * bytes, bytes, seed_of(rank, s, 1));
    MPI_Allgather(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, recv, count, type, comm);
    check_blocks(recv, bytes, size, s, 1, "MPI_Allgather (MPI_IN_PLACE)", name);

    /* Sent as bytes, received as ints (same type signature length). */
    if (bytes % 4 == 0) {
      mt_fill(send, bytes, seed_of(rank, s, 2));
      memset(recv, 0xee, total);
      MPI_Allgather(send, (int)bytes, MPI_BYTE, recv, (int)(bytes / 4), MPI_INT, comm);
      check_blocks(recv, bytes, size, s, 2, "MPI_Allgather (MPI_BYTE to MPI_INT)", name);
    }

    /* Nonblocking: three at once on the same communicator. */
    unsigned char *recv2 = mt_malloc(total), *recv3 = mt_malloc(total), *send3 = mt_malloc(bytes);
    MPI_Request reqs[3];
    mt_fill(send, bytes, seed_of(rank, s, 3));
    mt_fill(send3, bytes, seed_of(rank, s, 5));
    memset(recv2, 0xee, total);
    memset(recv3, 0xee, total);
    memset(recv, 0xee, total);
    mt_fill(recv + (size_t)rank * bytes, bytes, seed_of(rank, s, 4));
    MPI_Iallgather(send, count, type, recv2, count, type, comm, &reqs[0]);
    MPI_Iallgather(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, recv, count, type, comm, &reqs[1]);
    MPI_Iallgather(send3, count, type, recv3, count, type, comm, &reqs[2]);
    MPI_Waitall(3, reqs, MPI_STATUSES_IGNORE);
    check_blocks(recv2, bytes, size, s, 3, "MPI_Iallgather", name);
    check_blocks(recv, bytes, size, s, 4, "MPI_Iallgather (MPI_IN_PLACE)", name);
    check_blocks(recv3, bytes, size, s, 5, "MPI_Iallgather (third outstanding)", name);
    free(recv2);
    free(recv3);
    free(send3);

    /* Allgatherv in bytes: unequal blocks, gaps between them. */
    int *counts = mt_malloc(sizeof(int) * (size_t)size), *displs = mt_malloc(sizeof(int) * (size_t)size);
    size_t vtotal = 0;
    for (int r = 0; r < size; r++) {
      counts[r] = (int)vbytes(bytes, r);
      displs[r] = (int)vtotal;
      vtotal += vbytes(bytes, r) + GAP;
    }
    unsigned char *vrecv = mt_malloc(vtotal), *vsend = mt_malloc(vbytes(bytes, rank));
    for (int form = 0; form < 3; form++) {
      memset(vrecv, 0xee, vtotal);
      mt_fill(vsend, vbytes(bytes, rank), seed_of(rank, s, 10 + form));
      if (form == 0) {
        MPI_Allgatherv(vsend, counts[rank], MPI_BYTE, vrecv, counts, displs, MPI_BYTE, comm);
      } else if (form == 1) {
        memcpy(vrecv + displs[rank], vsend, (size_t)counts[rank]);
        MPI_Allgatherv(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, vrecv, counts, displs, MPI_BYTE, comm);
      } else {
        MPI_Request req;
        MPI_Iallgatherv(vsend, counts[rank], MPI_BYTE, vrecv, counts, displs, MPI_BYTE, comm, &req);
        MPI_Wait(&req, MPI_STATUS_IGNORE);
      }
      for (int r = 0; r < size; r++) {
        CHECK_PATTERN(vrecv + displs[r], (size_t)counts[r], seed_of(r, s, 10 + form),
                      "%s: MPI_%sAllgatherv%s block of rank %d", name, form == 2 ? "I" : "",
                      form == 1 ? " (MPI_IN_PLACE)" : "", r);
        for (int g = 0; g < GAP; g++)
          CHECK(vrecv[displs[r] + counts[r] + g] == 0xee, "%s: MPI_Allgatherv wrote into the gap after block %d",
                name, r);
      }
    }
    free(vrecv);
    free(vsend);
    free(counts);
    free(displs);
    free(send);
    free(recv);
  }
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  for_each_comm(run);
  mt_pass();
  MPI_Finalize();
  return 0;
}
