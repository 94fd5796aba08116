/*
 * Persistent collectives (MPI-4.0 §6.13): every MPI_X_init, started several
 * times with new buffer contents each time (a start reads the buffers as
 * they are then), results checked after each MPI_Wait; MPI_Startall of
 * several at once; MPI_Test polling to completion; MPI_Request_free of an
 * inactive request; MPI_Start and MPI_Request_free of an active request
 * fail with MPI_ERR_REQUEST, and the request still completes; the _c
 * (MPI_Count) forms; a user operation and a derived datatype freed after
 * init; and an intercommunicator (bcast, allreduce, allgather).
 */
#define TEST_NAME "persistent_collectives"
#include "../mpitest.h"

enum { kStarts = 3, kN = 1000 };

static int rank, size;

/* The value rank r contributes at index i in start s. */
static int val(int r, int i, int s) { return r * 1000 + i * 7 + s * 31; }

static void wait_ok(MPI_Request *r, const char *what) {
  CHECK(*r != MPI_REQUEST_NULL, "%s: no request", what);
  CHECK_MPI(MPI_Wait(r, MPI_STATUS_IGNORE));
  /* A persistent request stays allocated, inactive (§3.9). */
  CHECK(*r != MPI_REQUEST_NULL, "%s: MPI_Wait freed a persistent request", what);
}

static void test_allreduce_reduce_bcast(void) {
  int *in = mt_malloc(sizeof(int) * kN), *out = mt_malloc(sizeof(int) * kN), *root_out = mt_malloc(sizeof(int) * kN);
  int *b = mt_malloc(sizeof(int) * kN);
  MPI_Request ar, rd, bc;
  CHECK_MPI(MPI_Allreduce_init(in, out, kN, MPI_INT, MPI_SUM, MPI_COMM_WORLD, MPI_INFO_NULL, &ar));
  CHECK_MPI(MPI_Reduce_init(in, root_out, kN, MPI_INT, MPI_MAX, size - 1, MPI_COMM_WORLD, MPI_INFO_NULL, &rd));
  CHECK_MPI(MPI_Bcast_init(b, kN, MPI_INT, 0, MPI_COMM_WORLD, MPI_INFO_NULL, &bc));
  for (int s = 0; s < kStarts; s++) {
    for (int i = 0; i < kN; i++) in[i] = val(rank, i, s), out[i] = -1, root_out[i] = -1, b[i] = rank == 0 ? val(0, i, s) : -1;
    CHECK_MPI(MPI_Start(&ar));
    wait_ok(&ar, "allreduce");
    CHECK_MPI(MPI_Start(&rd));
    wait_ok(&rd, "reduce");
    CHECK_MPI(MPI_Start(&bc));
    /* Poll with MPI_Test: the progress engine runs the schedule. */
    int done = 0;
    while (!done) CHECK_MPI(MPI_Test(&bc, &done, MPI_STATUS_IGNORE));
    CHECK(bc != MPI_REQUEST_NULL, "MPI_Test freed a persistent request");
    for (int i = 0; i < kN; i++) {
      long want = 0;
      for (int r = 0; r < size; r++) want += val(r, i, s);
      CHECK(out[i] == want, "allreduce start %d: out[%d] = %d, want %ld", s, i, out[i], want);
      if (rank == size - 1)
        CHECK(root_out[i] == val(size - 1, i, s), "reduce start %d: [%d] = %d", s, i, root_out[i]);
      CHECK(b[i] == val(0, i, s), "bcast start %d: b[%d] = %d", s, i, b[i]);
    }
  }
  CHECK_MPI(MPI_Request_free(&ar));
  CHECK(ar == MPI_REQUEST_NULL, "MPI_Request_free left the handle");
  CHECK_MPI(MPI_Request_free(&rd));
  CHECK_MPI(MPI_Request_free(&bc));
  free(in), free(out), free(root_out), free(b);
}

/* Every data-movement collective at once, started by MPI_Startall. */
static void test_startall_data_movement(void) {
  const int n = 5;
  int *sb = mt_malloc(sizeof(int) * n * size), *g = mt_malloc(sizeof(int) * n * size),
      *gv = mt_malloc(sizeof(int) * n * size), *sc = mt_malloc(sizeof(int) * n),
      *scv = mt_malloc(sizeof(int) * n), *ag = mt_malloc(sizeof(int) * n * size),
      *agv = mt_malloc(sizeof(int) * n * size), *a2a = mt_malloc(sizeof(int) * n * size),
      *a2av = mt_malloc(sizeof(int) * n * size), *a2aw = mt_malloc(sizeof(int) * n * size),
      *rs = mt_malloc(sizeof(int) * n), *rsb = mt_malloc(sizeof(int) * n), *sn = mt_malloc(sizeof(int) * n),
      *ex = mt_malloc(sizeof(int) * n), *mine = mt_malloc(sizeof(int) * n);
  int *counts = mt_malloc(sizeof(int) * size), *displs = mt_malloc(sizeof(int) * size),
      *bdispls = mt_malloc(sizeof(int) * size);
  MPI_Datatype *types = mt_malloc(sizeof(MPI_Datatype) * size);
  for (int r = 0; r < size; r++) counts[r] = n, displs[r] = r * n, bdispls[r] = r * n * (int)sizeof(int), types[r] = MPI_INT;
  MPI_Request req[14];
  int k = 0;
  CHECK_MPI(MPI_Gather_init(mine, n, MPI_INT, g, n, MPI_INT, 0, MPI_COMM_WORLD, MPI_INFO_NULL, &req[k++]));
  CHECK_MPI(MPI_Gatherv_init(mine, n, MPI_INT, gv, counts, displs, MPI_INT, 0, MPI_COMM_WORLD, MPI_INFO_NULL, &req[k++]));
  CHECK_MPI(MPI_Scatter_init(sb, n, MPI_INT, sc, n, MPI_INT, 0, MPI_COMM_WORLD, MPI_INFO_NULL, &req[k++]));
  CHECK_MPI(MPI_Scatterv_init(sb, counts, displs, MPI_INT, scv, n, MPI_INT, 0, MPI_COMM_WORLD, MPI_INFO_NULL, &req[k++]));
  CHECK_MPI(MPI_Allgather_init(mine, n, MPI_INT, ag, n, MPI_INT, MPI_COMM_WORLD, MPI_INFO_NULL, &req[k++]));
  CHECK_MPI(MPI_Allgatherv_init(mine, n, MPI_INT, agv, counts, displs, MPI_INT, MPI_COMM_WORLD, MPI_INFO_NULL, &req[k++]));
  CHECK_MPI(MPI_Alltoall_init(sb, n, MPI_INT, a2a, n, MPI_INT, MPI_COMM_WORLD, MPI_INFO_NULL, &req[k++]));
  CHECK_MPI(MPI_Alltoallv_init(sb, counts, displs, MPI_INT, a2av, counts, displs, MPI_INT, MPI_COMM_WORLD,
                               MPI_INFO_NULL, &req[k++]));
  CHECK_MPI(MPI_Alltoallw_init(sb, counts, bdispls, types, a2aw, counts, bdispls, types, MPI_COMM_WORLD,
                               MPI_INFO_NULL, &req[k++]));
  CHECK_MPI(MPI_Reduce_scatter_init(sb, rs, counts, MPI_INT, MPI_SUM, MPI_COMM_WORLD, MPI_INFO_NULL, &req[k++]));
  CHECK_MPI(MPI_Reduce_scatter_block_init(sb, rsb, n, MPI_INT, MPI_SUM, MPI_COMM_WORLD, MPI_INFO_NULL, &req[k++]));
  CHECK_MPI(MPI_Scan_init(mine, sn, n, MPI_INT, MPI_SUM, MPI_COMM_WORLD, MPI_INFO_NULL, &req[k++]));
  CHECK_MPI(MPI_Exscan_init(mine, ex, n, MPI_INT, MPI_SUM, MPI_COMM_WORLD, MPI_INFO_NULL, &req[k++]));
  CHECK_MPI(MPI_Barrier_init(MPI_COMM_WORLD, MPI_INFO_NULL, &req[k++]));
  for (int s = 0; s < kStarts; s++) {
    /* sb: block j goes to rank j; mine: this rank's block. */
    for (int i = 0; i < n; i++) mine[i] = val(rank, i, s);
    for (int j = 0; j < size; j++)
      for (int i = 0; i < n; i++) sb[j * n + i] = val(rank, j * n + i, s);
    CHECK_MPI(MPI_Startall(k, req));
    CHECK_MPI(MPI_Waitall(k, req, MPI_STATUSES_IGNORE));
    for (int j = 0; j < size; j++)
      for (int i = 0; i < n; i++) {
        if (rank == 0) {
          CHECK(g[j * n + i] == val(j, i, s), "gather start %d: block %d [%d]", s, j, i);
          CHECK(gv[j * n + i] == val(j, i, s), "gatherv start %d: block %d [%d]", s, j, i);
        }
        CHECK(ag[j * n + i] == val(j, i, s), "allgather start %d: block %d [%d]", s, j, i);
        CHECK(agv[j * n + i] == val(j, i, s), "allgatherv start %d: block %d [%d]", s, j, i);
        CHECK(a2a[j * n + i] == val(j, rank * n + i, s), "alltoall start %d: block %d [%d]", s, j, i);
        CHECK(a2av[j * n + i] == val(j, rank * n + i, s), "alltoallv start %d: block %d [%d]", s, j, i);
        CHECK(a2aw[j * n + i] == val(j, rank * n + i, s), "alltoallw start %d: block %d [%d]", s, j, i);
      }
    for (int i = 0; i < n; i++) {
      CHECK(sc[i] == val(0, rank * n + i, s), "scatter start %d: [%d] = %d", s, i, sc[i]);
      CHECK(scv[i] == val(0, rank * n + i, s), "scatterv start %d: [%d] = %d", s, i, scv[i]);
      long sum = 0, prefix = 0;
      for (int r = 0; r < size; r++) sum += val(r, rank * n + i, s);
      for (int r = 0; r <= rank; r++) prefix += val(r, i, s);
      CHECK(rs[i] == sum, "reduce_scatter start %d: [%d] = %d, want %ld", s, i, rs[i], sum);
      CHECK(rsb[i] == sum, "reduce_scatter_block start %d: [%d] = %d, want %ld", s, i, rsb[i], sum);
      CHECK(sn[i] == prefix, "scan start %d: [%d] = %d, want %ld", s, i, sn[i], prefix);
      if (rank > 0) CHECK(ex[i] == prefix - val(rank, i, s), "exscan start %d: [%d] = %d", s, i, ex[i]);
    }
  }
  for (int i = 0; i < k; i++) CHECK_MPI(MPI_Request_free(&req[i]));
  free(sb), free(g), free(gv), free(sc), free(scv), free(ag), free(agv), free(a2a), free(a2av), free(a2aw);
  free(rs), free(rsb), free(sn), free(ex), free(mine), free(counts), free(displs), free(bdispls), free(types);
}

/* The _c forms: MPI_Count counts, MPI_Aint displacements. */
static void test_large_count_forms(void) {
  const int n = 4;
  int *mine = mt_malloc(sizeof(int) * n), *agv = mt_malloc(sizeof(int) * n * size), *ar = mt_malloc(sizeof(int) * n);
  MPI_Count *counts = mt_malloc(sizeof(MPI_Count) * size);
  MPI_Aint *displs = mt_malloc(sizeof(MPI_Aint) * size);
  for (int r = 0; r < size; r++) counts[r] = n, displs[r] = (MPI_Aint)(size - 1 - r) * n; /* reversed blocks */
  MPI_Request req[2];
  CHECK_MPI(MPI_Allgatherv_init_c(mine, n, MPI_INT, agv, counts, displs, MPI_INT, MPI_COMM_WORLD, MPI_INFO_NULL,
                                  &req[0]));
  CHECK_MPI(MPI_Allreduce_init_c(mine, ar, (MPI_Count)n, MPI_INT, MPI_SUM, MPI_COMM_WORLD, MPI_INFO_NULL, &req[1]));
  for (int s = 0; s < kStarts; s++) {
    for (int i = 0; i < n; i++) mine[i] = val(rank, i, s);
    CHECK_MPI(MPI_Startall(2, req));
    CHECK_MPI(MPI_Waitall(2, req, MPI_STATUSES_IGNORE));
    for (int j = 0; j < size; j++)
      for (int i = 0; i < n; i++)
        CHECK(agv[(size - 1 - j) * n + i] == val(j, i, s), "allgatherv_init_c start %d: block %d [%d]", s, j, i);
    for (int i = 0; i < n; i++) {
      long sum = 0;
      for (int r = 0; r < size; r++) sum += val(r, i, s);
      CHECK(ar[i] == sum, "allreduce_init_c start %d: [%d]", s, i);
    }
  }
  /* The blocking and nonblocking _c forms too. */
  int x = rank == 0 ? 4242 : 0;
  CHECK_MPI(MPI_Bcast_c(&x, 1, MPI_INT, 0, MPI_COMM_WORLD));
  CHECK(x == 4242, "MPI_Bcast_c: %d", x);
  MPI_Request r;
  int one = 1, total = 0;
  CHECK_MPI(MPI_Iallreduce_c(&one, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &r));
  CHECK_MPI(MPI_Wait(&r, MPI_STATUS_IGNORE));
  CHECK(total == size, "MPI_Iallreduce_c: %d, want %d", total, size);
  CHECK_MPI(MPI_Request_free(&req[0]));
  CHECK_MPI(MPI_Request_free(&req[1]));
  free(mine), free(agv), free(ar), free(counts), free(displs);
}

static void test_errors_and_free(void) {
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  MPI_Request r;
  int v = rank, sum = 0;
  CHECK_MPI(MPI_Allreduce_init(&v, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD, MPI_INFO_NULL, &r));
  /* A request never started can be freed (it is inactive). */
  MPI_Request unused;
  CHECK_MPI(MPI_Barrier_init(MPI_COMM_WORLD, MPI_INFO_NULL, &unused));
  CHECK_MPI(MPI_Request_free(&unused));
  /* Waiting on an inactive persistent request returns at once, empty. */
  MPI_Status st;
  CHECK_MPI(MPI_Wait(&r, &st));
  CHECK_MPI(MPI_Start(&r));
  /* Starting it again while active is an error (MPI-4.0 §3.9). */
  int err = MPI_Start(&r), cls = -1;
  CHECK(err != MPI_SUCCESS, "MPI_Start of an active persistent collective succeeded");
  MPI_Error_class(err, &cls);
  CHECK(cls == MPI_ERR_REQUEST, "MPI_Start of an active request: class %d, want MPI_ERR_REQUEST", cls);
  CHECK_MPI(MPI_Wait(&r, MPI_STATUS_IGNORE));
  CHECK(sum == size * (size - 1) / 2, "allreduce after the failed start: %d", sum);
  /* Bad arguments: a bad info handle, a NULL request, a negative count. */
  MPI_Request bad;
  err = MPI_Bcast_init(&v, 1, MPI_INT, 0, MPI_COMM_WORLD, (MPI_Info)0x12345, &bad);
  MPI_Error_class(err, &cls);
  CHECK(cls == MPI_ERR_INFO, "Bcast_init with a bad info: class %d, want MPI_ERR_INFO", cls);
  err = MPI_Bcast_init(&v, 1, MPI_INT, 0, MPI_COMM_WORLD, MPI_INFO_NULL, NULL);
  MPI_Error_class(err, &cls);
  CHECK(cls == MPI_ERR_ARG, "Bcast_init with a NULL request: class %d, want MPI_ERR_ARG", cls);
  err = MPI_Allreduce_init_c(&v, &sum, -1, MPI_INT, MPI_SUM, MPI_COMM_WORLD, MPI_INFO_NULL, &bad);
  MPI_Error_class(err, &cls);
  CHECK(cls == MPI_ERR_COUNT, "Allreduce_init_c with count -1: class %d, want MPI_ERR_COUNT", cls);
  /* Freeing an active persistent collective is erroneous (MPI-4.0 §6.13):
   * nothing would tell when it stops writing `sum`, a local of this
   * function. It fails, and the request stays, to be completed and freed. */
  sum = -1;
  CHECK_MPI(MPI_Start(&r));
  MPI_Request before = r;
  err = MPI_Request_free(&r);
  CHECK(err != MPI_SUCCESS, "MPI_Request_free of an active persistent collective succeeded");
  MPI_Error_class(err, &cls);
  CHECK(cls == MPI_ERR_REQUEST, "MPI_Request_free of an active request: class %d, want MPI_ERR_REQUEST", cls);
  CHECK(r == before, "the failed MPI_Request_free changed the handle to 0x%x", (unsigned)r);
  CHECK_MPI(MPI_Wait(&r, MPI_STATUS_IGNORE));
  CHECK(sum == size * (size - 1) / 2, "allreduce after the failed free: %d", sum);
  CHECK_MPI(MPI_Request_free(&r));
  CHECK(r == MPI_REQUEST_NULL, "MPI_Request_free of the completed request left the handle");
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
}

/* The operation and datatype handles may be freed after init: the
 * persistent request keeps what it uses (MPI-4.0 §6.13, MPI-3.1 §4.1.9). */
static void max_abs(void *in, void *inout, int *len, MPI_Datatype *type) {
  (void)type;
  for (int i = 0; i < *len; i++) {
    int a = abs(((int *)in)[i]), b = abs(((int *)inout)[i]);
    ((int *)inout)[i] = a > b ? a : b;
  }
}

static void test_freed_handles(void) {
  MPI_Op op;
  MPI_Datatype pairs;
  MPI_Op_create(max_abs, 1, &op);
  MPI_Type_vector(3, 1, 2, MPI_INT, &pairs); /* every other int of 6 */
  MPI_Type_commit(&pairs);
  int in = 0, out = 0, b[6];
  MPI_Request req[2];
  CHECK_MPI(MPI_Allreduce_init(&in, &out, 1, MPI_INT, op, MPI_COMM_WORLD, MPI_INFO_NULL, &req[0]));
  CHECK_MPI(MPI_Bcast_init(b, 1, pairs, 0, MPI_COMM_WORLD, MPI_INFO_NULL, &req[1]));
  MPI_Op_free(&op);
  MPI_Type_free(&pairs);
  for (int s = 0; s < kStarts; s++) {
    in = (rank % 2 ? -1 : 1) * (rank * 10 + s);
    for (int i = 0; i < 6; i++) b[i] = rank == 0 ? val(0, i, s) : -1;
    CHECK_MPI(MPI_Startall(2, req));
    CHECK_MPI(MPI_Waitall(2, req, MPI_STATUSES_IGNORE));
    CHECK(out == (size - 1) * 10 + s, "freed op, start %d: %d, want %d", s, out, (size - 1) * 10 + s);
    for (int i = 0; i < 6; i++) {
      int want = i % 2 == 0 || rank == 0 ? val(0, i, s) : -1;
      CHECK(b[i] == want, "freed type, start %d: b[%d] = %d, want %d", s, i, b[i], want);
    }
  }
  CHECK_MPI(MPI_Request_free(&req[0]));
  CHECK_MPI(MPI_Request_free(&req[1]));
}

/* Intercommunicator: even world ranks against odd ones. */
static void test_intercomm(void) {
  if (size < 2) return;
  MPI_Comm local, inter;
  int color = rank % 2;
  MPI_Comm_split(MPI_COMM_WORLD, color, rank, &local);
  MPI_Intercomm_create(local, 0, MPI_COMM_WORLD, color == 0 ? 1 : 0, 77, &inter);
  int lrank, lsize, rsize;
  MPI_Comm_rank(inter, &lrank);
  MPI_Comm_size(inter, &lsize);
  MPI_Comm_remote_size(inter, &rsize);
  int b = 0, in = 0, out = 0;
  int *ag = mt_malloc(sizeof(int) * rsize);
  MPI_Request req[3];
  /* Bcast from rank 0 of the even group to the odd group. */
  int root = color == 0 ? (lrank == 0 ? MPI_ROOT : MPI_PROC_NULL) : 0;
  CHECK_MPI(MPI_Bcast_init(&b, 1, MPI_INT, root, inter, MPI_INFO_NULL, &req[0]));
  CHECK_MPI(MPI_Allreduce_init(&in, &out, 1, MPI_INT, MPI_SUM, inter, MPI_INFO_NULL, &req[1]));
  CHECK_MPI(MPI_Allgather_init(&in, 1, MPI_INT, ag, 1, MPI_INT, inter, MPI_INFO_NULL, &req[2]));
  for (int s = 0; s < kStarts; s++) {
    b = (color == 0 && lrank == 0) ? 900 + s : -1;
    in = val(color, lrank, s);
    CHECK_MPI(MPI_Startall(3, req));
    CHECK_MPI(MPI_Waitall(3, req, MPI_STATUSES_IGNORE));
    if (color == 1) CHECK(b == 900 + s, "intercomm bcast start %d: %d", s, b);
    long want = 0;
    for (int r = 0; r < rsize; r++) want += val(1 - color, r, s);
    CHECK(out == want, "intercomm allreduce start %d: %d, want %ld", s, out, want);
    for (int r = 0; r < rsize; r++) CHECK(ag[r] == val(1 - color, r, s), "intercomm allgather start %d: [%d]", s, r);
  }
  for (int i = 0; i < 3; i++) CHECK_MPI(MPI_Request_free(&req[i]));
  free(ag);
  MPI_Comm_free(&inter);
  MPI_Comm_free(&local);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  test_allreduce_reduce_bcast();
  test_startall_data_movement();
  test_large_count_forms();
  test_errors_and_free();
  test_freed_handles();
  test_intercomm();
  mt_pass();
  MPI_Finalize();
  return 0;
}
