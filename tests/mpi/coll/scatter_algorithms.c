/*
 * MPI_Scatter, MPI_Scatterv and their nonblocking forms hand every rank
 * its block of the root's buffer: blocks from 0 B to 256 KiB, every root (a
 * few for large blocks), MPI_IN_PLACE at the root (its block stays in
 * sendbuf, untouched), a receive type that differs from the send type,
 * unequal blocks at displacements in reverse rank order, one nonblocking
 * scatter per root outstanding at once, and bytes after each receive
 * buffer untouched. Non-roots' send arguments are garbage, as the
 * standard allows. Runs on the communicators of test_comms.h.
 */
#define TEST_NAME "scatter_algorithms"
#include "../mpitest.h"
#include "test_comms.h"

static const size_t sizes[] = {0, 1, 12, 1000, 4096, 65540, 262144};
#define NSIZES (sizeof sizes / sizeof sizes[0])
#define GUARD 16

static uint32_t seed_of(int rank, size_t s, int form, int root) {
  return mt_seed((uint32_t)rank, (uint32_t)(s * 64 + (size_t)form), (uint32_t)root + 300);
}

static void fill_blocks(unsigned char *buf, size_t bytes, int size, size_t s, int form, int root) {
  for (int r = 0; r < size; r++) mt_fill(buf + (size_t)r * bytes, bytes, seed_of(r, s, form, root));
}

static void check_recv(const unsigned char *buf, size_t bytes, uint32_t seed, const char *what, int root,
                       const char *name) {
  CHECK_PATTERN(buf, bytes, seed, "%s: %s (root %d)", name, what, root);
  for (int g = 0; g < GUARD; g++)
    CHECK(buf[bytes + g] == 0xab, "%s: %s (root %d) wrote past the receive buffer", name, what, root);
}

static size_t vbytes(size_t bytes, int r) { return bytes * (size_t)((r + 2) % 3) / 2; }

static void run(MPI_Comm comm, const char *name) {
  int rank, size;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  int roots[64], nroots;
  for (size_t s = 0; s < NSIZES; s++) {
    size_t bytes = sizes[s], total = bytes * (size_t)size;
    nroots = 0;
    for (int root = 0; root < size; root++)
      if (bytes < 10000 || root == 0 || root == size - 1) roots[nroots++] = root;
    unsigned char *send = mt_malloc(total), *recv = mt_malloc(bytes + GUARD);

    for (int i = 0; i < nroots; i++) {
      int root = roots[i];
      memset(recv, 0xee, bytes);
      memset(recv + bytes, 0xab, GUARD);
      if (rank == root) fill_blocks(send, bytes, size, s, 0, root);
      if (bytes % 4 == 0)
        MPI_Scatter(rank == root ? send : NULL, (int)(bytes / 4), rank == root ? MPI_INT : MPI_DATATYPE_NULL, recv,
                    (int)bytes, MPI_BYTE, root, comm);
      else
        MPI_Scatter(send, (int)bytes, MPI_BYTE, recv, (int)bytes, MPI_BYTE, root, comm);
      check_recv(recv, bytes, seed_of(rank, s, 0, root), "MPI_Scatter", root, name);

      /* MPI_IN_PLACE at the root: its block stays in sendbuf. */
      memset(recv, 0xee, bytes);
      if (rank == root) {
        fill_blocks(send, bytes, size, s, 1, root);
        MPI_Scatter(send, (int)bytes, MPI_BYTE, MPI_IN_PLACE, -3, MPI_DATATYPE_NULL, root, comm);
        for (int r = 0; r < size; r++)
          CHECK_PATTERN(send + (size_t)r * bytes, bytes, seed_of(r, s, 1, root),
                        "%s: MPI_Scatter (MPI_IN_PLACE, root %d) changed sendbuf block %d", name, root, r);
      } else {
        MPI_Scatter(NULL, -1, MPI_DATATYPE_NULL, recv, (int)bytes, MPI_BYTE, root, comm);
        check_recv(recv, bytes, seed_of(rank, s, 1, root), "MPI_Scatter (MPI_IN_PLACE at the root)", root, name);
      }
    }

    /* Nonblocking: one scatter per root, all outstanding at once. */
    unsigned char **sends = mt_malloc(sizeof(void *) * (size_t)nroots);
    unsigned char **recvs = mt_malloc(sizeof(void *) * (size_t)nroots);
    MPI_Request *reqs = mt_malloc(sizeof(MPI_Request) * (size_t)nroots);
    for (int i = 0; i < nroots; i++) {
      sends[i] = mt_malloc(total);
      recvs[i] = mt_malloc(bytes + GUARD);
      if (rank == roots[i]) fill_blocks(sends[i], bytes, size, s, 2, roots[i]);
      memset(recvs[i], 0xee, bytes);
      memset(recvs[i] + bytes, 0xab, GUARD);
      MPI_Iscatter(sends[i], (int)bytes, MPI_BYTE, recvs[i], (int)bytes, MPI_BYTE, roots[i], comm, &reqs[i]);
    }
    MPI_Waitall(nroots, reqs, MPI_STATUSES_IGNORE);
    for (int i = 0; i < nroots; i++) {
      check_recv(recvs[i], bytes, seed_of(rank, s, 2, roots[i]), "MPI_Iscatter", roots[i], name);
      free(sends[i]);
      free(recvs[i]);
    }
    free(sends);
    free(recvs);
    free(reqs);

    /* Scatterv: unequal blocks in reverse order; blocking, in place and
     * nonblocking. */
    int *counts = mt_malloc(sizeof(int) * (size_t)size), *displs = mt_malloc(sizeof(int) * (size_t)size);
    size_t vtotal = 0;
    for (int r = size - 1; r >= 0; r--) {
      counts[r] = (int)vbytes(bytes, r);
      displs[r] = (int)vtotal;
      vtotal += vbytes(bytes, r) + 3;
    }
    unsigned char *vsend = mt_malloc(vtotal), *vrecv = mt_malloc(vbytes(bytes, rank) + GUARD);
    for (int i = 0; i < nroots; i++) {
      int root = roots[i];
      for (int form = 0; form < 3; form++) {
        if (rank == root)
          for (int r = 0; r < size; r++) mt_fill(vsend + displs[r], (size_t)counts[r], seed_of(r, s, 10 + form, root));
        memset(vrecv, 0xee, (size_t)counts[rank]);
        memset(vrecv + counts[rank], 0xab, GUARD);
        if (form == 1 && rank == root) {
          MPI_Scatterv(vsend, counts, displs, MPI_BYTE, MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, root, comm);
          CHECK_PATTERN(vsend + displs[rank], (size_t)counts[rank], seed_of(rank, s, 11, root),
                        "%s: MPI_Scatterv (MPI_IN_PLACE, root %d) changed the root's block", name, root);
          continue;
        }
        if (form == 2) {
          MPI_Request req;
          MPI_Iscatterv(vsend, counts, displs, MPI_BYTE, vrecv, counts[rank], MPI_BYTE, root, comm, &req);
          MPI_Wait(&req, MPI_STATUS_IGNORE);
        } else {
          MPI_Scatterv(rank == root ? vsend : NULL, rank == root ? counts : NULL, rank == root ? displs : NULL,
                       MPI_BYTE, vrecv, counts[rank], MPI_BYTE, root, comm);
        }
        check_recv(vrecv, (size_t)counts[rank], seed_of(rank, s, 10 + form, root),
                   form == 2 ? "MPI_Iscatterv" : "MPI_Scatterv", root, name);
      }
    }
    free(vsend);
    free(vrecv);
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
