/*
 * MPI_Alltoall, MPI_Alltoallv, MPI_Alltoallw and their nonblocking forms
 * deliver block (i -> j) of every pair: blocks from 0 B to 128 KiB,
 * MPI_IN_PLACE (recvbuf is sent and replaced), a receive type different
 * from the send type, unequal per-pair counts at displacements in reverse
 * order with gaps (gaps untouched), per-peer datatypes (MPI_BYTE and
 * MPI_INT alternating) with byte displacements in the w form, and several
 * nonblocking calls outstanding at once. Run once per algorithm
 * (FERRY_ALLTOALL_ALGORITHM) and with the selection table's choice, on the
 * communicators of test_comms.h.
 */
#define TEST_NAME "alltoall_algorithms"
#include "../mpitest.h"
#include "test_comms.h"

static const size_t sizes[] = {0, 1, 8, 100, 256, 1028, 16384, 131072};
#define NSIZES (sizeof sizes / sizeof sizes[0])
#define GAP 4

/* The block that rank `from` sends to rank `to`. */
static uint32_t seed_of(int from, int to, size_t s, int form) {
  return mt_seed((uint32_t)from * 1000u + (uint32_t)to, (uint32_t)s, (uint32_t)form + 400);
}

/* v and w forms: bytes from `from` to `to`, a multiple of 4 (w form uses
 * MPI_INT for odd peers). */
static size_t vbytes(size_t bytes, int from, int to) { return (bytes / 4) * (size_t)((from + 2 * to) % 4) / 2 * 4; }

static void run(MPI_Comm comm, const char *name) {
  int rank, size;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  for (size_t s = 0; s < NSIZES; s++) {
    size_t bytes = sizes[s], total = bytes * (size_t)size;
    unsigned char *send = mt_malloc(total), *recv = mt_malloc(total);

    for (int form = 0; form < 4; form++) {
      /* 0: separate buffers; 1: MPI_IN_PLACE; 2: MPI_BYTE sent, MPI_INT
       * received; 3: three nonblocking calls outstanding at once. */
      if (form == 2 && bytes % 4 != 0) continue;
      for (int j = 0; j < size; j++) mt_fill(send + (size_t)j * bytes, bytes, seed_of(rank, j, s, form));
      memset(recv, 0xee, total);
      if (form == 0) {
        MPI_Alltoall(send, (int)bytes, MPI_BYTE, recv, (int)bytes, MPI_BYTE, comm);
      } else if (form == 1) {
        memcpy(recv, send, total);
        MPI_Alltoall(MPI_IN_PLACE, -1, MPI_DATATYPE_NULL, recv, (int)bytes, MPI_BYTE, comm);
      } else if (form == 2) {
        MPI_Alltoall(send, (int)bytes, MPI_BYTE, recv, (int)(bytes / 4), MPI_INT, comm);
      } else {
        unsigned char *recv2 = mt_malloc(total), *recv3 = mt_malloc(total);
        MPI_Request reqs[3];
        memcpy(recv3, send, total);
        MPI_Ialltoall(send, (int)bytes, MPI_BYTE, recv, (int)bytes, MPI_BYTE, comm, &reqs[0]);
        MPI_Ialltoall(send, (int)bytes, MPI_BYTE, recv2, (int)bytes, MPI_BYTE, comm, &reqs[1]);
        MPI_Ialltoall(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, recv3, (int)bytes, MPI_BYTE, comm, &reqs[2]);
        MPI_Waitall(3, reqs, MPI_STATUSES_IGNORE);
        for (int i = 0; i < size; i++) {
          CHECK_PATTERN(recv2 + (size_t)i * bytes, bytes, seed_of(i, rank, s, form),
                        "%s: second MPI_Ialltoall block from rank %d", name, i);
          CHECK_PATTERN(recv3 + (size_t)i * bytes, bytes, seed_of(i, rank, s, form),
                        "%s: MPI_Ialltoall (MPI_IN_PLACE) block from rank %d", name, i);
        }
        free(recv2);
        free(recv3);
      }
      for (int i = 0; i < size; i++)
        CHECK_PATTERN(recv + (size_t)i * bytes, bytes, seed_of(i, rank, s, form),
                      "%s: MPI_%sAlltoall (form %d) block from rank %d (%zu bytes)", name, form == 3 ? "I" : "",
                      form, i, bytes);
    }
    free(send);
    free(recv);

    /* Alltoallv and alltoallw: unequal blocks, reverse order, gaps. */
    int *scounts = mt_malloc(sizeof(int) * (size_t)size), *sdispls = mt_malloc(sizeof(int) * (size_t)size);
    int *rcounts = mt_malloc(sizeof(int) * (size_t)size), *rdispls = mt_malloc(sizeof(int) * (size_t)size);
    int *wscounts = mt_malloc(sizeof(int) * (size_t)size), *wrcounts = mt_malloc(sizeof(int) * (size_t)size);
    MPI_Datatype *stypes = mt_malloc(sizeof(MPI_Datatype) * (size_t)size);
    MPI_Datatype *rtypes = mt_malloc(sizeof(MPI_Datatype) * (size_t)size);
    size_t stotal = 0, rtotal = 0;
    for (int j = size - 1; j >= 0; j--) {
      scounts[j] = (int)vbytes(bytes, rank, j);
      rcounts[j] = (int)vbytes(bytes, j, rank);
      sdispls[j] = (int)stotal;
      rdispls[j] = (int)rtotal;
      stotal += (size_t)scounts[j] + GAP;
      rtotal += (size_t)rcounts[j] + GAP;
      stypes[j] = rtypes[j] = j % 2 ? MPI_INT : MPI_BYTE;
      wscounts[j] = j % 2 ? scounts[j] / 4 : scounts[j];
    }
    for (int j = 0; j < size; j++) wrcounts[j] = rank % 2 ? rcounts[j] / 4 : rcounts[j];
    /* w form: a rank sends to peer j as MPI_INT if j is odd, else as
     * MPI_BYTE, so it receives everything as MPI_INT if it is odd itself. */
    for (int j = 0; j < size; j++) rtypes[j] = rank % 2 ? MPI_INT : MPI_BYTE;
    unsigned char *vsend = mt_malloc(stotal), *vrecv = mt_malloc(rtotal);
    for (int form = 0; form < 4; form++) {
      /* 0, 1: Alltoallv blocking and nonblocking; 2, 3: Alltoallw. */
      for (int j = 0; j < size; j++) mt_fill(vsend + sdispls[j], (size_t)scounts[j], seed_of(rank, j, s, 10 + form));
      memset(vrecv, 0xee, rtotal);
      MPI_Request req;
      if (form == 0) {
        MPI_Alltoallv(vsend, scounts, sdispls, MPI_BYTE, vrecv, rcounts, rdispls, MPI_BYTE, comm);
      } else if (form == 1) {
        MPI_Ialltoallv(vsend, scounts, sdispls, MPI_BYTE, vrecv, rcounts, rdispls, MPI_BYTE, comm, &req);
        MPI_Wait(&req, MPI_STATUS_IGNORE);
      } else if (form == 2) {
        MPI_Alltoallw(vsend, wscounts, sdispls, stypes, vrecv, wrcounts, rdispls, rtypes, comm);
      } else {
        MPI_Ialltoallw(vsend, wscounts, sdispls, stypes, vrecv, wrcounts, rdispls, rtypes, comm, &req);
        MPI_Wait(&req, MPI_STATUS_IGNORE);
      }
      for (int i = 0; i < size; i++) {
        CHECK_PATTERN(vrecv + rdispls[i], (size_t)rcounts[i], seed_of(i, rank, s, 10 + form),
                      "%s: %s block from rank %d", name,
                      form == 0 ? "MPI_Alltoallv" : form == 1 ? "MPI_Ialltoallv" : form == 2 ? "MPI_Alltoallw"
                                                                                            : "MPI_Ialltoallw",
                      i);
        for (int g = 0; g < GAP; g++)
          CHECK(vrecv[rdispls[i] + rcounts[i] + g] == 0xee, "%s: alltoallv/w wrote into the gap after block %d",
                name, i);
      }
    }

    /* MPI_IN_PLACE for the v and w forms: a symmetric layout (the block
     * i -> j as long as j -> i), unequal blocks, reverse order. */
    size_t itotal = 0;
    for (int j = size - 1; j >= 0; j--) {
      rcounts[j] = (int)(bytes / 4 * (size_t)((rank + j) % 3) / 2 * 4);
      rdispls[j] = (int)itotal;
      itotal += (size_t)rcounts[j] + GAP;
      wrcounts[j] = rank % 2 == 0 && j % 2 == 0 ? rcounts[j] : rcounts[j] / 4;
      rtypes[j] = rank % 2 == 0 && j % 2 == 0 ? MPI_BYTE : MPI_INT;
    }
    unsigned char *ibuf = mt_malloc(itotal);
    for (int form = 0; form < 3; form++) {
      memset(ibuf, 0xee, itotal);
      for (int j = 0; j < size; j++) mt_fill(ibuf + rdispls[j], (size_t)rcounts[j], seed_of(rank, j, s, 20 + form));
      if (form == 0) {
        MPI_Alltoallv(MPI_IN_PLACE, NULL, NULL, MPI_DATATYPE_NULL, ibuf, rcounts, rdispls, MPI_BYTE, comm);
      } else if (form == 1) {
        MPI_Alltoallw(MPI_IN_PLACE, NULL, NULL, NULL, ibuf, wrcounts, rdispls, rtypes, comm);
      } else {
        MPI_Request req;
        MPI_Ialltoallv(MPI_IN_PLACE, NULL, NULL, MPI_DATATYPE_NULL, ibuf, rcounts, rdispls, MPI_BYTE, comm, &req);
        MPI_Wait(&req, MPI_STATUS_IGNORE);
      }
      for (int i = 0; i < size; i++) {
        CHECK_PATTERN(ibuf + rdispls[i], (size_t)rcounts[i], seed_of(i, rank, s, 20 + form),
                      "%s: %s (MPI_IN_PLACE) block from rank %d", name,
                      form == 1 ? "MPI_Alltoallw" : form == 2 ? "MPI_Ialltoallv" : "MPI_Alltoallv", i);
        for (int g = 0; g < GAP; g++)
          CHECK(ibuf[rdispls[i] + rcounts[i] + g] == 0xee, "%s: in-place alltoallv/w wrote into a gap", name);
      }
    }
    free(ibuf);
    free(vsend);
    free(vrecv);
    free(scounts);
    free(sdispls);
    free(rcounts);
    free(rdispls);
    free(wscounts);
    free(wrcounts);
    free(stypes);
    free(rtypes);
  }
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  for_each_comm(run);
  mt_pass();
  MPI_Finalize();
  return 0;
}
