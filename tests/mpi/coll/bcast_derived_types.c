/*
 * The data-movement collectives with a derived datatype on one side and
 * plain MPI_INT on the other (same type signature, different type maps):
 * a vector of 3 blocks of 2 ints with stride 3, resized to an extent of 10
 * ints, so that elements are non-contiguous, have holes inside and gaps
 * between them, and displacements count in extents. Covered: bcast,
 * gather(v), scatter(v), allgather(v) (also MPI_IN_PLACE), alltoall(v, w)
 * and a nonblocking call whose datatype is freed before it completes;
 * holes and gaps must stay untouched. Values are a function of (rank,
 * index). Run with several algorithm overrides (CMakeLists.txt).
 */
#define TEST_NAME "bcast_derived_types"
#include "../mpitest.h"
#include "test_comms.h"

#define NB 3      /* blocks per element */
#define BL 2      /* ints per block */
#define STRIDE 3  /* ints between block starts */
#define EXT 10    /* ints between element starts (resized) */
#define PER (NB * BL)
#define HOLE (-7)

static MPI_Datatype vec;

/* Where logical int k of a typed buffer lies. */
static long offset_of(long k) { return k / PER * EXT + (k % PER) / BL * STRIDE + k % BL; }
static int value(int rank, long k, int salt) { return rank * 1000003 + (int)k * 7 + salt; }

/* A typed buffer of n elements: data from (rank, first..), holes = HOLE. */
static int *typed(long n, int rank, long first, int salt) {
  int *b = mt_malloc(sizeof(int) * (size_t)(n * EXT + 1));
  for (long i = 0; i < n * EXT + 1; i++) b[i] = HOLE;
  for (long k = 0; k < n * PER; k++) b[offset_of(k)] = value(rank, first + k, salt);
  return b;
}

static void check_typed(const int *b, long n, int rank, long first, int salt, const char *what, const char *name) {
  long k = 0;
  for (long i = 0; i < n * EXT + 1; i++) {
    int want = HOLE;
    if (k < n * PER && offset_of(k) == i) want = value(rank, first + k++, salt);
    CHECK(b[i] == want, "%s: %s: int %ld of the typed buffer is %d, expected %d", name, what, i, b[i], want);
  }
}

static void check_plain(const int *b, long n_ints, int rank, long first, int salt, const char *what,
                        const char *name) {
  for (long k = 0; k < n_ints; k++)
    CHECK(b[k] == value(rank, first + k, salt), "%s: %s: int %ld is %d, expected %d", name, what, k, b[k],
          value(rank, first + k, salt));
}

static void run(MPI_Comm comm, const char *name) {
  int rank, size;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  static const long counts[] = {0, 1, 5, 3000, 40000};
  for (size_t c = 0; c < sizeof counts / sizeof counts[0]; c++) {
    const long n = counts[c];
    const int salt = (int)c * 13;

    /* Bcast: the root sends typed; even ranks receive plain, odd typed. */
    for (int root = 0; root < size; root += size > 1 ? size - 1 : 1) {
      int *b;
      if (rank == root || rank % 2) {
        b = rank == root ? typed(n, root, 0, salt) : typed(n, -1, 0, 0);
        MPI_Bcast(b, (int)n, vec, root, comm);
        check_typed(b, n, root, 0, salt, "MPI_Bcast into the derived type", name);
      } else {
        b = mt_malloc(sizeof(int) * (size_t)(n * PER + 1));
        MPI_Bcast(b, (int)(n * PER), MPI_INT, root, comm);
        check_plain(b, n * PER, root, 0, salt, "MPI_Bcast into MPI_INT", name);
      }
      free(b);
    }
    if (n > 3000) continue; /* the rest moves p times as much */

    /* Gather: typed sends, plain receive at the root; and the reverse. */
    int root = size - 1;
    int *mine = typed(n, rank, 0, salt);
    int *plain_all = mt_malloc(sizeof(int) * (size_t)(n * PER * size + 1));
    MPI_Gather(mine, (int)n, vec, plain_all, (int)(n * PER), MPI_INT, root, comm);
    if (rank == root)
      for (int r = 0; r < size; r++)
        check_plain(plain_all + (long)r * n * PER, n * PER, r, 0, salt, "MPI_Gather typed to MPI_INT", name);
    int *plain = mt_malloc(sizeof(int) * (size_t)(n * PER + 1));
    for (long k = 0; k < n * PER; k++) plain[k] = value(rank, k, salt + 1);
    int *typed_all = typed(n * size, -1, 0, 0);
    MPI_Gather(plain, (int)(n * PER), MPI_INT, typed_all, (int)n, vec, 0, comm);
    if (rank == 0)
      for (long k = 0; k < n * PER * size; k++) {
        int r = (int)(k / (n * PER));
        CHECK(typed_all[offset_of(k)] == value(r, k % (n * PER), salt + 1), "%s: MPI_Gather into the derived type",
              name);
      }
    free(typed_all);

    /* Scatter: typed at the root, plain at the others. */
    int *src = typed(n * size, 0, 0, salt + 2);
    memset(plain, 0, sizeof(int) * (size_t)(n * PER));
    MPI_Scatter(src, (int)n, vec, plain, (int)(n * PER), MPI_INT, 0, comm);
    check_plain(plain, n * PER, 0, (long)rank * n * PER, salt + 2, "MPI_Scatter from the derived type", name);
    free(src);

    /* Allgather into the derived type, MPI_IN_PLACE: the own element is
     * already in place. */
    int *all = typed(n * size, -1, 0, 0);
    for (long k = 0; k < n * PER; k++)
      all[offset_of((long)rank * n * PER + k)] = value(0, (long)rank * n * PER + k, salt + 3);
    MPI_Allgather(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, all, (int)n, vec, comm);
    check_typed(all, n * size, 0, 0, salt + 3, "MPI_Allgather (MPI_IN_PLACE) into the derived type", name);
    free(all);

    /* Allgatherv and gatherv with displacements in extents, reversed. */
    int *rc = mt_malloc(sizeof(int) * (size_t)size), *dp = mt_malloc(sizeof(int) * (size_t)size);
    for (int r = 0; r < size; r++) {
      rc[r] = (int)n;
      dp[r] = (int)((size - 1 - r) * n);
    }
    all = typed(n * size, -1, 0, 0);
    MPI_Allgatherv(plain, (int)(n * PER), MPI_INT, all, rc, dp, vec, comm);
    for (int r = 0; r < size; r++)
      for (long k = 0; k < n * PER; k++)
        CHECK(all[offset_of((long)dp[r] * PER + k)] == value(0, (long)r * n * PER + k, salt + 2),
              "%s: MPI_Allgatherv into the derived type, block of rank %d", name, r);
    free(all);

    /* Alltoall: typed to plain; alltoallw: typed to odd peers, plain to even. */
    src = typed(n * size, rank, 0, salt + 4);
    int *dst = mt_malloc(sizeof(int) * (size_t)(n * PER * size + 1));
    MPI_Alltoall(src, (int)n, vec, dst, (int)(n * PER), MPI_INT, comm);
    for (int r = 0; r < size; r++)
      check_plain(dst + (long)r * n * PER, n * PER, r, (long)rank * n * PER, salt + 4, "MPI_Alltoall", name);
    int *sc = mt_malloc(sizeof(int) * (size_t)size), *sd = mt_malloc(sizeof(int) * (size_t)size);
    int *wrc = mt_malloc(sizeof(int) * (size_t)size), *wrd = mt_malloc(sizeof(int) * (size_t)size);
    MPI_Datatype *st = mt_malloc(sizeof(MPI_Datatype) * (size_t)size);
    MPI_Datatype *rt = mt_malloc(sizeof(MPI_Datatype) * (size_t)size);
    for (int j = 0; j < size; j++) {
      st[j] = j % 2 ? vec : MPI_INT;
      sc[j] = j % 2 ? (int)n : (int)(n * PER);
      sd[j] = (int)(sizeof(int) * (size_t)(j * n * EXT));
      rt[j] = MPI_INT;
      wrc[j] = (int)(n * PER);
      wrd[j] = (int)(sizeof(int) * (size_t)(j * n * PER));
    }
    /* Even peers get plain ints: sent from a plain copy placed after the
     * typed data in the same buffer (displacements are from one base). */
    const long typed_ints = n * size * EXT + 1;
    int *wsrc = mt_malloc(sizeof(int) * (size_t)(typed_ints + n * PER * size));
    memcpy(wsrc, src, sizeof(int) * (size_t)typed_ints);
    for (long k = 0; k < n * PER * size; k++) wsrc[typed_ints + k] = value(rank, k, salt + 4);
    for (int j = 0; j < size; j++)
      if (j % 2 == 0) sd[j] = (int)(sizeof(int) * (size_t)(typed_ints + (long)j * n * PER));
    memset(dst, 0, sizeof(int) * (size_t)(n * PER * size));
    MPI_Request req;
    MPI_Datatype dup;
    MPI_Type_dup(vec, &dup);
    for (int j = 0; j < size; j++)
      if (j % 2) st[j] = dup;
    MPI_Ialltoallw(wsrc, sc, sd, st, dst, wrc, wrd, rt, comm, &req);
    MPI_Type_free(&dup); /* freed while the collective is pending */
    MPI_Wait(&req, MPI_STATUS_IGNORE);
    for (int r = 0; r < size; r++)
      check_plain(dst + (long)r * n * PER, n * PER, r, (long)rank * n * PER, salt + 4, "MPI_Ialltoallw", name);
    free(wsrc);
    free(sc);
    free(sd);
    free(wrc);
    free(wrd);
    free(st);
    free(rt);
    free(src);
    free(dst);
    free(rc);
    free(dp);
    free(mine);
    free(plain);
    free(plain_all);
  }
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  MPI_Datatype v;
  MPI_Type_vector(NB, BL, STRIDE, MPI_INT, &v);
  MPI_Type_create_resized(v, 0, (MPI_Aint)(EXT * sizeof(int)), &vec);
  MPI_Type_commit(&vec);
  MPI_Type_free(&v);
  for_each_comm(run);
  MPI_Type_free(&vec);
  mt_pass();
  MPI_Finalize();
  return 0;
}
