/*
 * Collectives on an intercommunicator (MPI-3.1 §5.2.2), blocking and
 * nonblocking, between the even and the odd ranks of MPI_COMM_WORLD: each
 * group's data must reach the other group. Rooted operations run once with
 * the root in each group (MPI_ROOT at the root, MPI_PROC_NULL at the rest of
 * its group, the root's rank in the other group). Every value says which
 * world rank sent it. Reduce_scatter(_block) scatter the other group's
 * reduction by this group's counts. Reduce and allreduce also of 0 elements.
 * Run with 2 or more ranks.
 */
#define TEST_NAME "intercomm_coll"
#include "mpitest.h"

static int rank, size, odd, lrank, lsize, rsize;

/* World rank of remote rank j. */
static int remote_world(int j) { return 2 * j + (odd ? 0 : 1); }
static int value(int world, int k) { return 100 * world + k; }

#define RUN(nb, blocking, nonblocking)                    \
  do {                                                    \
    if (nb) {                                             \
      MPI_Request req_;                                   \
      CHECK_MPI(nonblocking);                             \
      CHECK_MPI(MPI_Wait(&req_, MPI_STATUS_IGNORE));      \
    } else {                                              \
      CHECK_MPI(blocking);                                \
    }                                                     \
  } while (0)
#define REQ &req_

static void rooted(MPI_Comm inter, int nb, int root_group) {
  /* The root: local rank 0 of group `root_group` (0: evens, 1: odds). */
  const int in_root_group = odd == root_group;
  const int root = in_root_group ? (lrank == 0 ? MPI_ROOT : MPI_PROC_NULL) : 0;
  const int root_world = root_group;  /* world rank of that root */
  int buf[4], *all = mt_malloc(sizeof(int) * 4 * (size_t)(rsize + 1));

  /* Bcast */
  for (int k = 0; k < 4; k++) buf[k] = root == MPI_ROOT ? value(rank, k) : -1;
  RUN(nb, MPI_Bcast(buf, 4, MPI_INT, root, inter), MPI_Ibcast(buf, 4, MPI_INT, root, inter, REQ));
  for (int k = 0; k < 4; k++) {
    int want = in_root_group ? (root == MPI_ROOT ? value(rank, k) : -1) : value(root_world, k);
    CHECK(buf[k] == want, "bcast (root in group %d): [%d] = %d, want %d", root_group, k, buf[k], want);
  }

  /* Reduce: the sum of the other group's world ranks, at the root. */
  int mine = rank, sum = -1, want_sum = 0;
  for (int j = 0; j < rsize; j++) want_sum += remote_world(j);
  RUN(nb, MPI_Reduce(&mine, &sum, 1, MPI_INT, MPI_SUM, root, inter),
      MPI_Ireduce(&mine, &sum, 1, MPI_INT, MPI_SUM, root, inter, REQ));
  if (root == MPI_ROOT) CHECK(sum == want_sum, "reduce at the root: %d, want %d", sum, want_sum);
  else CHECK(sum == -1, "reduce wrote recvbuf off the root: %d", sum);
  /* Of nothing: the group with 2 or more ranks reduces locally first, count 0 included. */
  RUN(nb, MPI_Reduce(&mine, &sum, 0, MPI_INT, MPI_SUM, root, inter),
      MPI_Ireduce(&mine, &sum, 0, MPI_INT, MPI_SUM, root, inter, REQ));
  CHECK(sum == (root == MPI_ROOT ? want_sum : -1), "reduce of 0 ints wrote recvbuf: %d", sum);

  /* Gather: two ints from every process of the other group. */
  int two[2] = {value(rank, 0), value(rank, 1)};
  for (int i = 0; i < 2 * rsize; i++) all[i] = -1;
  RUN(nb, MPI_Gather(two, 2, MPI_INT, all, 2, MPI_INT, root, inter),
      MPI_Igather(two, 2, MPI_INT, all, 2, MPI_INT, root, inter, REQ));
  if (root == MPI_ROOT)
    for (int j = 0; j < rsize; j++)
      CHECK(all[2 * j] == value(remote_world(j), 0) && all[2 * j + 1] == value(remote_world(j), 1),
            "gather: block %d = %d %d", j, all[2 * j], all[2 * j + 1]);

  /* Scatterv: block j (j + 1 ints, reversed layout) to remote rank j. */
  int *counts = mt_malloc(sizeof(int) * (size_t)rsize), *displs = mt_malloc(sizeof(int) * (size_t)rsize);
  int *src = mt_malloc(sizeof(int) * (size_t)(rsize * (rsize + 1) / 2 + 1)), at = 0;
  for (int j = rsize - 1; j >= 0; j--) {
    counts[j] = j + 1, displs[j] = at;
    for (int k = 0; k <= j; k++) src[at + k] = value(rank, 10 * j + k);
    at += j + 1;
  }
  for (int k = 0; k < 4; k++) buf[k] = -1;
  int expect = in_root_group ? 0 : lrank + 1;
  RUN(nb, MPI_Scatterv(src, counts, displs, MPI_INT, buf, expect, MPI_INT, root, inter),
      MPI_Iscatterv(src, counts, displs, MPI_INT, buf, expect, MPI_INT, root, inter, REQ));
  if (!in_root_group)
    for (int k = 0; k < expect && k < 4; k++)
      CHECK(buf[k] == value(root_world, 10 * lrank + k), "scatterv [%d] = %d", k, buf[k]);
  free(all), free(counts), free(displs), free(src);
}

static void exchanges(MPI_Comm inter, int nb) {
  RUN(nb, MPI_Barrier(inter), MPI_Ibarrier(inter, REQ));

  /* Allreduce: every process gets the other group's sum and max. */
  int in[2] = {rank, rank}, out[2] = {-1, -1}, want_sum = 0, want_max = 0;
  for (int j = 0; j < rsize; j++) want_sum += remote_world(j), want_max = remote_world(j) > want_max ? remote_world(j) : want_max;
  RUN(nb, MPI_Allreduce(in, out, 1, MPI_INT, MPI_SUM, inter),
      MPI_Iallreduce(in, out, 1, MPI_INT, MPI_SUM, inter, REQ));
  CHECK(out[0] == want_sum, "allreduce sum %d, want %d", out[0], want_sum);
  RUN(nb, MPI_Allreduce(in + 1, out + 1, 1, MPI_INT, MPI_MAX, inter),
      MPI_Iallreduce(in + 1, out + 1, 1, MPI_INT, MPI_MAX, inter, REQ));
  CHECK(out[1] == want_max, "allreduce max %d, want %d", out[1], want_max);
  RUN(nb, MPI_Allreduce(in, out, 0, MPI_INT, MPI_SUM, inter), MPI_Iallreduce(in, out, 0, MPI_INT, MPI_SUM, inter, REQ));
  CHECK(out[0] == want_sum && out[1] == want_max, "allreduce of 0 ints wrote recvbuf: %d %d", out[0], out[1]);

  /* Allgather and alltoall. */
  int *all = mt_malloc(sizeof(int) * 2 * (size_t)rsize), *send = mt_malloc(sizeof(int) * 2 * (size_t)rsize);
  int two[2] = {value(rank, 0), value(rank, 1)};
  RUN(nb, MPI_Allgather(two, 2, MPI_INT, all, 2, MPI_INT, inter),
      MPI_Iallgather(two, 2, MPI_INT, all, 2, MPI_INT, inter, REQ));
  for (int j = 0; j < rsize; j++)
    CHECK(all[2 * j] == value(remote_world(j), 0) && all[2 * j + 1] == value(remote_world(j), 1),
          "allgather block %d: %d %d", j, all[2 * j], all[2 * j + 1]);
  for (int j = 0; j < rsize; j++) send[2 * j] = value(rank, 2 * j), send[2 * j + 1] = value(rank, 2 * j + 1);
  RUN(nb, MPI_Alltoall(send, 2, MPI_INT, all, 2, MPI_INT, inter),
      MPI_Ialltoall(send, 2, MPI_INT, all, 2, MPI_INT, inter, REQ));
  for (int j = 0; j < rsize; j++)
    CHECK(all[2 * j] == value(remote_world(j), 2 * lrank) && all[2 * j + 1] == value(remote_world(j), 2 * lrank + 1),
          "alltoall block %d: %d %d", j, all[2 * j], all[2 * j + 1]);
  free(all), free(send);

  /* Reduce_scatter: the other group's vectors summed, scattered by my
   * group's counts. Counts rsize each (one more for rank 0) give both
   * groups vectors of lsize * rsize + 1 elements, as MPI-3.1 §5.10.1 asks. */
  int total = lsize * rsize + 1, remote_sum = 0;
  for (int j = 0; j < rsize; j++) remote_sum += remote_world(j);
  int *vec = mt_malloc(sizeof(int) * (size_t)total), *got = mt_malloc(sizeof(int) * (size_t)(rsize + 1));
  int *counts = mt_malloc(sizeof(int) * (size_t)lsize);
  for (int k = 0; k < total; k++) vec[k] = value(rank, k);
  for (int i = 0; i < lsize; i++) counts[i] = rsize + (i == 0);
  int first = lrank == 0 ? 0 : lrank * rsize + 1;
  RUN(nb, MPI_Reduce_scatter(vec, got, counts, MPI_INT, MPI_SUM, inter),
      MPI_Ireduce_scatter(vec, got, counts, MPI_INT, MPI_SUM, inter, REQ));
  for (int k = 0; k < counts[lrank]; k++)
    CHECK(got[k] == 100 * remote_sum + rsize * (first + k), "reduce_scatter element %d: %d, want %d", k, got[k],
          100 * remote_sum + rsize * (first + k));
  /* Reduce_scatter_block: rsize elements each needs lsize * rsize on both sides. */
  RUN(nb, MPI_Reduce_scatter_block(vec, got, rsize, MPI_INT, MPI_SUM, inter),
      MPI_Ireduce_scatter_block(vec, got, rsize, MPI_INT, MPI_SUM, inter, REQ));
  for (int k = 0; k < rsize; k++)
    CHECK(got[k] == 100 * remote_sum + rsize * (lrank * rsize + k), "reduce_scatter_block element %d: %d", k, got[k]);
  free(vec), free(got), free(counts);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  CHECK(size >= 2, "needs 2 or more ranks");
  odd = rank % 2;
  MPI_Comm half, inter;
  CHECK_MPI(MPI_Comm_split(MPI_COMM_WORLD, odd, rank, &half));
  CHECK_MPI(MPI_Intercomm_create(half, 0, MPI_COMM_WORLD, odd ? 0 : 1, 7, &inter));
  MPI_Comm_rank(inter, &lrank);
  MPI_Comm_size(inter, &lsize);
  MPI_Comm_remote_size(inter, &rsize);
  for (int nb = 0; nb < 2; nb++) {
    rooted(inter, nb, 0);
    rooted(inter, nb, 1);
    exchanges(inter, nb);
  }
  MPI_Comm_free(&inter);
  MPI_Comm_free(&half);
  mt_pass();
  MPI_Finalize();
  return 0;
}
