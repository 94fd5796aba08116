/*
 * Nonblocking data-movement collectives of every kind outstanding at once
 * on one communicator, interleaved with point-to-point traffic and with a
 * blocking collective, all complete with the right data; and collective
 * traffic never matches user messages: wildcard receives (MPI_ANY_SOURCE,
 * MPI_ANY_TAG) posted before the collectives start get exactly the user's
 * messages, whose tags (0, 1, 2) are the ones a collective sequence
 * number would give. Runs on the communicators of test_comms.h.
 */
#define TEST_NAME "bcast_overlap_p2p"
#include "../mpitest.h"
#include "test_comms.h"

#define ITERATIONS 4
#define NCOLL 8

static uint32_t seed_of(int a, int b, int it, int what) {
  return mt_seed((uint32_t)a * 100u + (uint32_t)b, (uint32_t)it, (uint32_t)what + 500);
}

static void run(MPI_Comm comm, const char *name) {
  int rank, size;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  const int left = (rank - 1 + size) % size, right = (rank + 1) % size;
  for (int it = 0; it < ITERATIONS; it++) {
    size_t bcast_bytes = (size_t)100000 << (it % 2), block = 1000 + (size_t)it * 333, small = 64;
    unsigned char *bcast_buf = mt_malloc(bcast_bytes), *bcast2 = mt_malloc(small);
    unsigned char *ag_send = mt_malloc(block), *ag_recv = mt_malloc(block * (size_t)size);
    unsigned char *a2a_send = mt_malloc(small * (size_t)size), *a2a_recv = mt_malloc(small * (size_t)size);
    unsigned char *g_send = mt_malloc(block), *g_recv = mt_malloc(block * (size_t)size);
    unsigned char *s_send = mt_malloc(block * (size_t)size), *s_recv = mt_malloc(block);
    unsigned char p2p_out[3][32], p2p_in[3][32];
    const int groot = size - 1, sroot = 1 % size;

    /* Wildcard receives first: only the user's messages may match them.
     * MPICH 4.0 (the reference) hangs in MPI_Ialltoall on a one-rank
     * communicator while such a receive is pending, so there the receives
     * are posted after the collectives, except for Ferry. */
    MPI_Request p2p[6];
    MPI_Status p2p_st[6];
    const int wildcard_first = size > 1 || mt_is_ferry();
    for (int t = 0; t < 3 && wildcard_first; t++)
      MPI_Irecv(p2p_in[t], 32, MPI_BYTE, MPI_ANY_SOURCE, MPI_ANY_TAG, comm, &p2p[t]);

    if (rank == 0) mt_fill(bcast_buf, bcast_bytes, seed_of(0, 0, it, 0));
    mt_fill(ag_send, block, seed_of(rank, 0, it, 1));
    for (int j = 0; j < size; j++) mt_fill(a2a_send + (size_t)j * small, small, seed_of(rank, j, it, 2));
    mt_fill(g_send, block, seed_of(rank, 0, it, 3));
    if (rank == sroot)
      for (int j = 0; j < size; j++) mt_fill(s_send + (size_t)j * block, block, seed_of(j, 0, it, 4));

    MPI_Request coll[NCOLL];
    MPI_Ibcast(bcast_buf, (int)bcast_bytes, MPI_BYTE, 0, comm, &coll[0]);
    MPI_Iallgather(ag_send, (int)block, MPI_BYTE, ag_recv, (int)block, MPI_BYTE, comm, &coll[1]);
    /* User messages in the middle of the collectives, tags 0 and 1. */
    for (int t = 0; t < 2; t++) {
      mt_fill(p2p_out[t], 32, seed_of(rank, t, it, 9));
      MPI_Isend(p2p_out[t], 32, MPI_BYTE, right, t, comm, &p2p[3 + t]);
    }
    MPI_Ialltoall(a2a_send, (int)small, MPI_BYTE, a2a_recv, (int)small, MPI_BYTE, comm, &coll[2]);
    MPI_Igather(g_send, (int)block, MPI_BYTE, g_recv, (int)block, MPI_BYTE, groot, comm, &coll[3]);
    MPI_Iscatter(s_send, (int)block, MPI_BYTE, s_recv, (int)block, MPI_BYTE, sroot, comm, &coll[4]);
    MPI_Ibarrier(comm, &coll[5]);
    /* A blocking collective while the others are outstanding. */
    if (rank == size - 1) mt_fill(bcast2, small, seed_of(size - 1, 0, it, 5));
    MPI_Bcast(bcast2, (int)small, MPI_BYTE, size - 1, comm);
    CHECK_PATTERN(bcast2, small, seed_of(size - 1, 0, it, 5), "%s: MPI_Bcast among nonblocking collectives", name);
    mt_fill(p2p_out[2], 32, seed_of(rank, 2, it, 9));
    MPI_Isend(p2p_out[2], 32, MPI_BYTE, right, 2, comm, &p2p[5]);
    MPI_Ibarrier(comm, &coll[6]);
    MPI_Ibcast(bcast2, (int)small, MPI_BYTE, 0, comm, &coll[7]);

    /* Complete the collectives last to first, then the user's messages. */
    for (int i = NCOLL - 1; i >= 0; i--) MPI_Wait(&coll[i], MPI_STATUS_IGNORE);
    for (int t = 0; t < 3 && !wildcard_first; t++)
      MPI_Irecv(p2p_in[t], 32, MPI_BYTE, MPI_ANY_SOURCE, MPI_ANY_TAG, comm, &p2p[t]);
    MPI_Waitall(6, p2p, p2p_st);

    CHECK_PATTERN(bcast_buf, bcast_bytes, seed_of(0, 0, it, 0), "%s: MPI_Ibcast", name);
    for (int j = 0; j < size; j++) {
      CHECK_PATTERN(ag_recv + (size_t)j * block, block, seed_of(j, 0, it, 1), "%s: MPI_Iallgather block %d", name, j);
      CHECK_PATTERN(a2a_recv + (size_t)j * small, small, seed_of(j, rank, it, 2), "%s: MPI_Ialltoall block %d", name,
                    j);
      if (rank == groot)
        CHECK_PATTERN(g_recv + (size_t)j * block, block, seed_of(j, 0, it, 3), "%s: MPI_Igather block %d", name, j);
    }
    CHECK_PATTERN(s_recv, block, seed_of(rank, 0, it, 4), "%s: MPI_Iscatter", name);
    /* The wildcard receives got the three user messages, in order. */
    for (int t = 0; t < 3; t++) {
      CHECK_STATUS(p2p_st[t], left, t, MPI_BYTE, 32, "wildcard receive");
      CHECK_PATTERN(p2p_in[t], 32, seed_of(left, t, it, 9), "%s: user message with tag %d", name, t);
    }
    free(bcast_buf);
    free(bcast2);
    free(ag_send);
    free(ag_recv);
    free(a2a_send);
    free(a2a_recv);
    free(g_send);
    free(g_recv);
    free(s_send);
    free(s_recv);
  }
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  for_each_comm(run);
  mt_pass();
  MPI_Finalize();
  return 0;
}
