/*
 * MPI_Gather, MPI_Gatherv and their nonblocking forms put every rank's
 * block in its place at the root: blocks from 0 B to 256 KiB, every root (a
 * few for large blocks), MPI_IN_PLACE at the root, a receive type that
 * differs from the send type, unequal blocks at displacements in reverse
 * rank order with gaps (gaps untouched), and one nonblocking gather per
 * root outstanding at once. Non-roots' receive arguments are garbage, as
 * the standard allows. Runs on the communicators of test_comms.h.
 */
#define TEST_NAME "gather_algorithms"
#include "../mpitest.h"
#include "test_comms.h"

static const size_t sizes[] = {0, 1, 12, 1000, 4096, 65540, 262144};
#define NSIZES (sizeof sizes / sizeof sizes[0])
#define GAP 8

static uint32_t seed_of(int rank, size_t s, int form, int root) {
  return mt_seed((uint32_t)rank, (uint32_t)(s * 64 + (size_t)form), (uint32_t)root + 200);
}

static void check_blocks(const unsigned char *buf, size_t bytes, int size, size_t s, int form, int root,
                         const char *what, const char *name) {
  for (int r = 0; r < size; r++)
    CHECK_PATTERN(buf + (size_t)r * bytes, bytes, seed_of(r, s, form, root), "%s: %s (root %d) block of rank %d",
                  name, what, root, r);
}

/* Gatherv layout: block of rank r has vbytes(r) bytes, blocks in reverse
 * rank order with GAP bytes after each. */
static size_t vbytes(size_t bytes, int r) { return bytes * (size_t)((r + 1) % 3) / 2; }

static void run(MPI_Comm comm, const char *name) {
  int rank, size;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  int roots[64], nroots = 0;
  for (size_t s = 0; s < NSIZES; s++) {
    size_t bytes = sizes[s], total = bytes * (size_t)size;
    nroots = 0;
    for (int root = 0; root < size; root++)
      if (bytes < 10000 || root == 0 || root == size - 1) roots[nroots++] = root;
    unsigned char *send = mt_malloc(bytes), *recv = mt_malloc(total);

    for (int i = 0; i < nroots; i++) {
      int root = roots[i];
      /* Separate buffers; the receive type differs where it can. */
      mt_fill(send, bytes, seed_of(rank, s, 0, root));
      memset(recv, 0xee, total);
      if (bytes % 4 == 0)
        MPI_Gather(send, (int)bytes, MPI_BYTE, rank == root ? recv : NULL, (int)(bytes / 4),
                   rank == root ? MPI_INT : MPI_DATATYPE_NULL, root, comm);
      else
        MPI_Gather(send, (int)bytes, MPI_BYTE, recv, (int)bytes, MPI_BYTE, root, comm);
      if (rank == root) check_blocks(recv, bytes, size, s, 0, root, "MPI_Gather", name);

      /* MPI_IN_PLACE at the root. */
      memset(recv, 0xee, total);
      if (rank == root) {
        mt_fill(recv + (size_t)root * bytes, bytes, seed_of(rank, s, 1, root));
        MPI_Gather(MPI_IN_PLACE, -5, MPI_DATATYPE_NULL, recv, (int)bytes, MPI_BYTE, root, comm);
        check_blocks(recv, bytes, size, s, 1, root, "MPI_Gather (MPI_IN_PLACE)", name);
      } else {
        mt_fill(send, bytes, seed_of(rank, s, 1, root));
        MPI_Gather(send, (int)bytes, MPI_BYTE, NULL, -1, MPI_DATATYPE_NULL, root, comm);
      }
    }

    /* Nonblocking: one gather per root, all outstanding at once. */
    unsigned char **sends = mt_malloc(sizeof(void *) * (size_t)nroots);
    unsigned char **recvs = mt_malloc(sizeof(void *) * (size_t)nroots);
    MPI_Request *reqs = mt_malloc(sizeof(MPI_Request) * (size_t)nroots);
    for (int i = 0; i < nroots; i++) {
      sends[i] = mt_malloc(bytes);
      recvs[i] = mt_malloc(total);
      mt_fill(sends[i], bytes, seed_of(rank, s, 2, roots[i]));
      memset(recvs[i], 0xee, total);
      MPI_Igather(sends[i], (int)bytes, MPI_BYTE, recvs[i], (int)bytes, MPI_BYTE, roots[i], comm, &reqs[i]);
    }
    MPI_Waitall(nroots, reqs, MPI_STATUSES_IGNORE);
    for (int i = 0; i < nroots; i++) {
      if (rank == roots[i]) check_blocks(recvs[i], bytes, size, s, 2, roots[i], "MPI_Igather", name);
      free(sends[i]);
      free(recvs[i]);
    }
    free(sends);
    free(recvs);
    free(reqs);

    /* Gatherv: unequal blocks, reverse order, gaps; blocking, in place and
     * nonblocking. */
    int *counts = mt_malloc(sizeof(int) * (size_t)size), *displs = mt_malloc(sizeof(int) * (size_t)size);
    size_t vtotal = 0;
    for (int r = size - 1; r >= 0; r--) {
      counts[r] = (int)vbytes(bytes, r);
      displs[r] = (int)vtotal;
      vtotal += vbytes(bytes, r) + GAP;
    }
    unsigned char *vrecv = mt_malloc(vtotal), *vsend = mt_malloc(vbytes(bytes, rank) + 1);
    for (int i = 0; i < nroots; i++) {
      int root = roots[i];
      for (int form = 0; form < 3; form++) {
        memset(vrecv, 0xee, vtotal);
        mt_fill(vsend, vbytes(bytes, rank), seed_of(rank, s, 10 + form, root));
        if (form == 1 && rank == root) {
          memcpy(vrecv + displs[rank], vsend, (size_t)counts[rank]);
          MPI_Gatherv(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, vrecv, counts, displs, MPI_BYTE, root, comm);
        } else if (form == 2) {
          MPI_Request req;
          MPI_Igatherv(vsend, counts[rank], MPI_BYTE, vrecv, counts, displs, MPI_BYTE, root, comm, &req);
          MPI_Wait(&req, MPI_STATUS_IGNORE);
        } else {
          MPI_Gatherv(vsend, counts[rank], MPI_BYTE, vrecv, rank == root ? counts : NULL,
                      rank == root ? displs : NULL, MPI_BYTE, root, comm);
        }
        if (rank != root) continue;
        for (int r = 0; r < size; r++) {
          CHECK_PATTERN(vrecv + displs[r], (size_t)counts[r], seed_of(r, s, 10 + form, root),
                        "%s: MPI_%sGatherv%s (root %d) block of rank %d", name, form == 2 ? "I" : "",
                        form == 1 ? " (MPI_IN_PLACE)" : "", root, r);
          for (int g = 0; g < GAP; g++)
            CHECK(vrecv[displs[r] + counts[r] + g] == 0xee, "%s: MPI_Gatherv wrote into the gap after block %d",
                  name, r);
        }
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
