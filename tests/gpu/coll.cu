/* Every blocking collective with GPU buffers (README "GPU buffers"), at any
 * rank count (run.sh uses 2, 3 and 4 ranks on one GPU), with MPI_IN_PLACE
 * where the standard allows it, every predefined reduction on int, float
 * and double that applies, and a user-defined op; the results are compared
 * with what the same call gives on host buffers; 32 MiB allreduces, one
 * with GPU buffers on some ranks and host buffers on others. Nonblocking
 * and persistent forms, on the GPU buffers themselves or staged, must give
 * the right answer. */
#define TEST_NAME "gpu_coll"
#include "gpu_test.h"

static int rank, size;

/* A device copy of n ints. */
static int* to_gpu(const int* h, size_t n) {
  int* d = NULL;
  CHECK_CUDA(cudaMalloc(&d, (n ? n : 1) * sizeof(int)));
  if (n) CHECK_CUDA(cudaMemcpy(d, h, n * sizeof(int), cudaMemcpyHostToDevice));
  return d;
}
static void from_gpu(int* h, const int* d, size_t n) {
  if (n) CHECK_CUDA(cudaMemcpy(h, d, n * sizeof(int), cudaMemcpyDeviceToHost));
  cudaFree((void*)d);
}
static void same(const int* got, const int* want, size_t n, const char* what) {
  for (size_t i = 0; i < n; i++) CHECK(got[i] == want[i], "%s: element %zu is %d, expected %d", what, i, got[i], want[i]);
}
static int* filled(size_t n, int salt) {
  int* h = (int*)malloc((n ? n : 1) * sizeof(int));
  for (size_t i = 0; i < n; i++) h[i] = (int)(i * 31 + rank * 1000 + salt) % 9973 - 4000;
  return h;
}

static void user_max(void* in, void* inout, int* len, MPI_Datatype* t) {
  for (int i = 0; i < *len; i++) ((int*)inout)[i] = ((int*)in)[i] > ((int*)inout)[i] ? ((int*)in)[i] : ((int*)inout)[i];
}

/* Runs one reduction on host buffers and on GPU buffers and compares. */
template <typename T>
static void reduction(MPI_Datatype type, MPI_Op op, const char* name, int n) {
  T *hs = (T*)malloc(n * sizeof(T)), *hr = (T*)malloc(n * sizeof(T)), *gr = (T*)malloc(n * sizeof(T));
  for (int i = 0; i < n; i++) hs[i] = (T)((i % 7) + 1 + (rank % 3));
  CHECK_MPI(MPI_Allreduce(hs, hr, n, type, op, MPI_COMM_WORLD));
  T *ds = NULL, *dr = NULL;
  CHECK_CUDA(cudaMalloc(&ds, n * sizeof(T)));
  CHECK_CUDA(cudaMalloc(&dr, n * sizeof(T)));
  CHECK_CUDA(cudaMemcpy(ds, hs, n * sizeof(T), cudaMemcpyHostToDevice));
  CHECK_MPI(MPI_Allreduce(ds, dr, n, type, op, MPI_COMM_WORLD));
  CHECK_CUDA(cudaMemcpy(gr, dr, n * sizeof(T), cudaMemcpyDeviceToHost));
  CHECK(memcmp(gr, hr, n * sizeof(T)) == 0, "allreduce %s: GPU result differs from host result", name);
  /* In place, on the GPU. */
  CHECK_MPI(MPI_Allreduce(MPI_IN_PLACE, ds, n, type, op, MPI_COMM_WORLD));
  CHECK_CUDA(cudaMemcpy(gr, ds, n * sizeof(T), cudaMemcpyDeviceToHost));
  CHECK(memcmp(gr, hr, n * sizeof(T)) == 0, "allreduce %s in place: GPU result differs", name);
  cudaFree(ds);
  cudaFree(dr);
  free(hs);
  free(hr);
  free(gr);
}

/* The one-pass allreduce over CUDA IPC (issue 33, coll/device_onepass.h):
 * above its threshold (FERRY_CUDA_ONEPASS_THRESHOLD, default 1 MiB), counts
 * that the rank count does not divide and that are no whole 16-byte units,
 * buffers that start inside their allocation (the bytes around them must
 * keep theirs), in place, the same buffers twice (the cached exports and
 * mappings), several ops and types; compared with the host result. */
template <typename T>
static void onepass_case(MPI_Datatype type, MPI_Op op, const char* name, size_t n, size_t offset, bool in_place,
                         MPI_Comm comm) {
  int me = 0;
  MPI_Comm_rank(comm, &me);
  T *hs = (T*)malloc(n * sizeof(T)), *want = (T*)malloc(n * sizeof(T)), *got = (T*)malloc(n * sizeof(T));
  for (size_t i = 0; i < n; i++) hs[i] = (T)((i * 7 + (size_t)me * 3) % 11 + 1);
  CHECK_MPI(MPI_Allreduce(hs, want, (int)n, type, op, comm));
  const size_t total = n + 2 * offset;
  T *ds = NULL, *dr = NULL;
  CHECK_CUDA(cudaMalloc(&ds, total * sizeof(T)));
  CHECK_CUDA(cudaMalloc(&dr, total * sizeof(T)));
  for (int again = 0; again < 2; again++) {
    CHECK_CUDA(cudaMemset(dr, 0xab, total * sizeof(T)));
    CHECK_CUDA(cudaMemcpy(in_place ? dr + offset : ds + offset, hs, n * sizeof(T), cudaMemcpyHostToDevice));
    CHECK_MPI(MPI_Allreduce(in_place ? MPI_IN_PLACE : (void*)(ds + offset), dr + offset, (int)n, type, op, comm));
    CHECK_CUDA(cudaMemcpy(got, dr + offset, n * sizeof(T), cudaMemcpyDeviceToHost));
    for (size_t i = 0; i < n; i++)
      CHECK(memcmp(&got[i], &want[i], sizeof(T)) == 0,
            "one-pass allreduce %s of %zu (offset %zu%s, call %d): element %zu is %g, expected %g", name, n, offset,
            in_place ? ", in place" : "", again + 1, i, (double)got[i], (double)want[i]);
    unsigned char edge[64];
    size_t edge_bytes = offset * sizeof(T) < sizeof edge ? offset * sizeof(T) : sizeof edge;
    if (edge_bytes > 0) {
      CHECK_CUDA(cudaMemcpy(edge, dr, edge_bytes, cudaMemcpyDeviceToHost));
      for (size_t i = 0; i < edge_bytes; i++)
        CHECK(edge[i] == 0xab, "one-pass allreduce %s: byte %zu before the buffer changed", name, i);
      CHECK_CUDA(cudaMemcpy(edge, dr + offset + n, edge_bytes, cudaMemcpyDeviceToHost));
      for (size_t i = 0; i < edge_bytes; i++)
        CHECK(edge[i] == 0xab, "one-pass allreduce %s: byte %zu after the buffer changed", name, i);
    }
  }
  cudaFree(ds);
  cudaFree(dr);
  free(hs);
  free(want);
  free(got);
}

/* The other one-pass collectives, above the threshold: reduce_scatter_block
 * (blocks of an odd element count), allgather (in place and not, a receive
 * buffer inside its allocation), bcast from the last rank; twice each. */
static void onepass_others(MPI_Comm comm) {
  int me = 0, p = 0;
  MPI_Comm_rank(comm, &me);
  MPI_Comm_size(comm, &p);
  const size_t block = ((size_t)1 << 20) / sizeof(int) + 3; /* ints, over 1 MiB in all at any p */
  const size_t all = block * p;
  int* h = (int*)malloc(all * sizeof(int));
  int* want = (int*)malloc(all * sizeof(int));
  int* got = (int*)malloc(all * sizeof(int));
  int *ds = NULL, *dr = NULL;
  CHECK_CUDA(cudaMalloc(&ds, (all + 8) * sizeof(int)));
  CHECK_CUDA(cudaMalloc(&dr, (all + 8) * sizeof(int)));
  for (int again = 0; again < 2; again++) {
    /* reduce_scatter_block */
    for (size_t i = 0; i < all; i++) h[i] = (int)(i % 1000) + me * 7 + again;
    CHECK_MPI(MPI_Reduce_scatter_block(h, want, (int)block, MPI_INT, MPI_SUM, comm));
    CHECK_CUDA(cudaMemcpy(ds, h, all * sizeof(int), cudaMemcpyHostToDevice));
    CHECK_MPI(MPI_Reduce_scatter_block(ds, dr, (int)block, MPI_INT, MPI_SUM, comm));
    CHECK_CUDA(cudaMemcpy(got, dr, block * sizeof(int), cudaMemcpyDeviceToHost));
    for (size_t i = 0; i < block; i++)
      CHECK(got[i] == want[i], "one-pass reduce_scatter_block (call %d): element %zu is %d, expected %d", again + 1,
            i, got[i], want[i]);
    /* allgather, not in place, into a buffer 8 ints into its allocation */
    for (size_t i = 0; i < block; i++) h[i] = (int)(i * 5) + me * 100000 + again;
    CHECK_MPI(MPI_Allgather(h, (int)block, MPI_INT, want, (int)block, MPI_INT, comm));
    CHECK_CUDA(cudaMemcpy(ds, h, block * sizeof(int), cudaMemcpyHostToDevice));
    CHECK_MPI(MPI_Allgather(ds, (int)block, MPI_INT, dr + 8, (int)block, MPI_INT, comm));
    CHECK_CUDA(cudaMemcpy(got, dr + 8, all * sizeof(int), cudaMemcpyDeviceToHost));
    for (size_t i = 0; i < all; i++)
      CHECK(got[i] == want[i], "one-pass allgather (call %d): element %zu is %d, expected %d", again + 1, i, got[i],
            want[i]);
    /* allgather in place */
    CHECK_CUDA(cudaMemset(dr, 0, all * sizeof(int)));
    CHECK_CUDA(cudaMemcpy(dr + me * block, h, block * sizeof(int), cudaMemcpyHostToDevice));
    CHECK_MPI(MPI_Allgather(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, dr, (int)block, MPI_INT, comm));
    CHECK_CUDA(cudaMemcpy(got, dr, all * sizeof(int), cudaMemcpyDeviceToHost));
    for (size_t i = 0; i < all; i++)
      CHECK(got[i] == want[i], "one-pass allgather in place (call %d): element %zu is %d, expected %d", again + 1, i,
            got[i], want[i]);
    /* bcast from the last rank */
    for (size_t i = 0; i < all; i++) h[i] = me == p - 1 ? (int)(i * 3) + again : -1;
    CHECK_CUDA(cudaMemcpy(dr, h, all * sizeof(int), cudaMemcpyHostToDevice));
    CHECK_MPI(MPI_Bcast(dr, (int)all, MPI_INT, p - 1, comm));
    CHECK_CUDA(cudaMemcpy(got, dr, all * sizeof(int), cudaMemcpyDeviceToHost));
    for (size_t i = 0; i < all; i++)
      CHECK(got[i] == (int)(i * 3) + again, "one-pass bcast (call %d): element %zu is %d", again + 1, i, got[i]);
  }
  cudaFree(ds);
  cudaFree(dr);
  free(h);
  free(want);
  free(got);
}

static void onepass_checks(MPI_Comm comm) {
  onepass_others(comm);
  const size_t mib = (size_t)1 << 20;
  onepass_case<float>(MPI_FLOAT, MPI_SUM, "float sum", 16 * mib / 4, 0, false, comm);   /* 16 MiB, even */
  onepass_case<float>(MPI_FLOAT, MPI_SUM, "float sum", mib / 4 * 3 + 7, 0, false, comm); /* uneven, a tail */
  onepass_case<float>(MPI_FLOAT, MPI_SUM, "float sum", mib / 4 * 3 + 7, 5, true, comm);  /* unaligned, in place */
  onepass_case<float>(MPI_FLOAT, MPI_PROD, "float prod", mib / 4 + 3, 0, false, comm);
  onepass_case<double>(MPI_DOUBLE, MPI_SUM, "double sum", mib / 8 * 5 + 1, 2, false, comm);
  onepass_case<double>(MPI_DOUBLE, MPI_MIN, "double min", mib / 8 * 2 + 3, 0, true, comm);
  onepass_case<int>(MPI_INT, MPI_MAX, "int max", mib / 4 * 2 + 1, 4, false, comm);
  onepass_case<int>(MPI_INT, MPI_BXOR, "int bxor", mib / 4 + 9, 0, true, comm);
  onepass_case<long long>(MPI_LONG_LONG, MPI_SUM, "long long sum", mib / 8 * 3 + 5, 0, false, comm);
  onepass_case<unsigned char>(MPI_UNSIGNED_CHAR, MPI_MAX, "unsigned char max", 2 * mib + 13, 3, false, comm);
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  int gpus = 0;
  cudaGetDeviceCount(&gpus);
  cudaSetDevice(rank % (gpus ? gpus : 1));
  const size_t counts[] = {1, 1000, 300000};

  /* --onepass: only the one-pass checks (run.sh runs them with
   * FERRY_DEBUG=cuda and looks for the path's line), on the world and, at 4
   * ranks or more, on two halves (communicator ranks that are not the
   * world's). */
  onepass_checks(MPI_COMM_WORLD);
  if (size >= 4) {
    MPI_Comm half;
    CHECK_MPI(MPI_Comm_split(MPI_COMM_WORLD, rank % 2, size - rank, &half));
    onepass_checks(half);
    CHECK_MPI(MPI_Comm_free(&half));
  }
  if (argc > 1 && strcmp(argv[1], "--onepass") == 0) {
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0) printf("gpu_coll --onepass: OK (%d ranks)\n", size);
    MPI_Finalize();
    return 0;
  }

  for (size_t n : counts) {
    int N = (int)n;
    int *hs = filled(n, 1), *want = (int*)malloc(n * size * sizeof(int)), *got = (int*)malloc(n * size * sizeof(int));

    /* Bcast from the last rank. */
    memcpy(want, hs, n * sizeof(int));
    CHECK_MPI(MPI_Bcast(want, N, MPI_INT, size - 1, MPI_COMM_WORLD));
    int* d = to_gpu(hs, n);
    CHECK_MPI(MPI_Bcast(d, N, MPI_INT, size - 1, MPI_COMM_WORLD));
    from_gpu(got, d, n);
    same(got, want, n, "bcast");

    /* Reduce (sum) to rank 0, and in place. */
    CHECK_MPI(MPI_Reduce(hs, want, N, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD));
    int* ds = to_gpu(hs, n);
    int* dr = to_gpu(hs, n);
    CHECK_MPI(MPI_Reduce(ds, dr, N, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD));
    from_gpu(got, dr, n);
    if (rank == 0) same(got, want, n, "reduce");
    dr = to_gpu(hs, n);
    CHECK_MPI(MPI_Reduce(rank == 0 ? MPI_IN_PLACE : ds, dr, N, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD));
    from_gpu(got, dr, n);
    if (rank == 0) same(got, want, n, "reduce in place");
    cudaFree(ds);

    /* Allgather, and in place. */
    CHECK_MPI(MPI_Allgather(hs, N, MPI_INT, want, N, MPI_INT, MPI_COMM_WORLD));
    ds = to_gpu(hs, n);
    int* zero = (int*)calloc(n * size, sizeof(int));
    dr = to_gpu(zero, n * size);
    CHECK_MPI(MPI_Allgather(ds, N, MPI_INT, dr, N, MPI_INT, MPI_COMM_WORLD));
    from_gpu(got, dr, n * size);
    same(got, want, n * size, "allgather");
    memcpy(zero + n * rank, hs, n * sizeof(int));
    dr = to_gpu(zero, n * size);
    CHECK_MPI(MPI_Allgather(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, dr, N, MPI_INT, MPI_COMM_WORLD));
    from_gpu(got, dr, n * size);
    same(got, want, n * size, "allgather in place");

    /* Gather and scatter through rank 1 % size. */
    int root = 1 % size;
    CHECK_MPI(MPI_Gather(hs, N, MPI_INT, want, N, MPI_INT, root, MPI_COMM_WORLD));
    dr = to_gpu(zero, n * size);
    CHECK_MPI(MPI_Gather(ds, N, MPI_INT, dr, N, MPI_INT, root, MPI_COMM_WORLD));
    from_gpu(got, dr, n * size);
    if (rank == root) same(got, want, n * size, "gather");
    int* big = filled(n * size, 5);
    int* dbig = to_gpu(big, n * size);
    CHECK_MPI(MPI_Scatter(big, N, MPI_INT, want, N, MPI_INT, root, MPI_COMM_WORLD));
    dr = to_gpu(zero, n);
    CHECK_MPI(MPI_Scatter(dbig, N, MPI_INT, dr, N, MPI_INT, root, MPI_COMM_WORLD));
    from_gpu(got, dr, n);
    same(got, want, n, "scatter");

    /* Alltoall and alltoallv (equal blocks). */
    CHECK_MPI(MPI_Alltoall(big, N, MPI_INT, want, N, MPI_INT, MPI_COMM_WORLD));
    dr = to_gpu(zero, n * size);
    CHECK_MPI(MPI_Alltoall(dbig, N, MPI_INT, dr, N, MPI_INT, MPI_COMM_WORLD));
    from_gpu(got, dr, n * size);
    same(got, want, n * size, "alltoall");
    int *cnt = (int*)malloc(size * sizeof(int)), *dsp = (int*)malloc(size * sizeof(int));
    for (int i = 0; i < size; i++) cnt[i] = N, dsp[i] = i * N;
    dr = to_gpu(zero, n * size);
    CHECK_MPI(MPI_Alltoallv(dbig, cnt, dsp, MPI_INT, dr, cnt, dsp, MPI_INT, MPI_COMM_WORLD));
    from_gpu(got, dr, n * size);
    same(got, want, n * size, "alltoallv");
    dr = to_gpu(zero, n * size);
    CHECK_MPI(MPI_Allgatherv(ds, N, MPI_INT, dr, cnt, dsp, MPI_INT, MPI_COMM_WORLD));
    CHECK_MPI(MPI_Allgather(hs, N, MPI_INT, want, N, MPI_INT, MPI_COMM_WORLD));
    from_gpu(got, dr, n * size);
    same(got, want, n * size, "allgatherv");
    dr = to_gpu(zero, n * size);
    CHECK_MPI(MPI_Gatherv(ds, N, MPI_INT, dr, cnt, dsp, MPI_INT, 0, MPI_COMM_WORLD));
    from_gpu(got, dr, n * size);
    if (rank == 0) same(got, want, n * size, "gatherv");
    CHECK_MPI(MPI_Scatter(big, N, MPI_INT, want, N, MPI_INT, 0, MPI_COMM_WORLD));
    dr = to_gpu(zero, n);
    CHECK_MPI(MPI_Scatterv(dbig, cnt, dsp, MPI_INT, dr, N, MPI_INT, 0, MPI_COMM_WORLD));
    from_gpu(got, dr, n);
    same(got, want, n, "scatterv");

    /* Reduce_scatter_block, reduce_scatter, scan, exscan. */
    CHECK_MPI(MPI_Reduce_scatter_block(big, want, N, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
    dr = to_gpu(zero, n);
    CHECK_MPI(MPI_Reduce_scatter_block(dbig, dr, N, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
    from_gpu(got, dr, n);
    same(got, want, n, "reduce_scatter_block");
    dr = to_gpu(zero, n);
    CHECK_MPI(MPI_Reduce_scatter(dbig, dr, cnt, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
    from_gpu(got, dr, n);
    same(got, want, n, "reduce_scatter");
    CHECK_MPI(MPI_Scan(hs, want, N, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
    dr = to_gpu(zero, n);
    CHECK_MPI(MPI_Scan(ds, dr, N, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
    from_gpu(got, dr, n);
    same(got, want, n, "scan");
    CHECK_MPI(MPI_Exscan(hs, want, N, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
    dr = to_gpu(zero, n);
    CHECK_MPI(MPI_Exscan(ds, dr, N, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
    from_gpu(got, dr, n);
    if (rank > 0) same(got, want, n, "exscan");

    /* A user-defined op on device data (staged to the host). */
    MPI_Op mx;
    MPI_Op_create(user_max, 1, &mx);
    CHECK_MPI(MPI_Allreduce(hs, want, N, MPI_INT, mx, MPI_COMM_WORLD));
    dr = to_gpu(zero, n);
    CHECK_MPI(MPI_Allreduce(ds, dr, N, MPI_INT, mx, MPI_COMM_WORLD));
    from_gpu(got, dr, n);
    same(got, want, n, "allreduce with a user op");
    MPI_Op_free(&mx);

    cudaFree(ds);
    cudaFree(dbig);
    free(big);
    free(zero);
    free(cnt);
    free(dsp);
    free(hs);
    free(want);
    free(got);
  }

  /* Every predefined op on the types it applies to. */
  const MPI_Op arith[] = {MPI_SUM, MPI_PROD, MPI_MAX, MPI_MIN};
  const char* arith_names[] = {"sum", "prod", "max", "min"};
  for (int i = 0; i < 4; i++) {
    reduction<int>(MPI_INT, arith[i], arith_names[i], 1000);
    reduction<float>(MPI_FLOAT, arith[i], arith_names[i], 1000);
    reduction<double>(MPI_DOUBLE, arith[i], arith_names[i], 100000);
  }
  const MPI_Op bits[] = {MPI_BAND, MPI_BOR, MPI_BXOR, MPI_LAND, MPI_LOR, MPI_LXOR};
  for (int i = 0; i < 6; i++) reduction<int>(MPI_INT, bits[i], "bit/logical", 1000);

  /* MPI_Reduce_local on GPU buffers. */
  {
    int h_in[256], h_io[256];
    for (int i = 0; i < 256; i++) h_in[i] = i, h_io[i] = 1000 * i;
    int *d_in = to_gpu(h_in, 256), *d_io = to_gpu(h_io, 256);
    CHECK_MPI(MPI_Reduce_local(d_in, d_io, 256, MPI_INT, MPI_SUM));
    from_gpu(h_io, d_io, 256);
    cudaFree(d_in);
    for (int i = 0; i < 256; i++) CHECK(h_io[i] == 1001 * i, "reduce_local: element %d is %d", i, h_io[i]);
  }

  /* Large messages on GPU buffers, in place and not, with sum and max; and
   * one Allreduce where even ranks pass GPU buffers and odd ranks host
   * buffers (each rank decides for itself where its data is reduced). */
  for (int mixed = 0; mixed < 2; mixed++) {
    const size_t n = (size_t)8 << 20; /* ints: 32 MiB */
    int* h = (int*)malloc(n * sizeof(int));
    for (size_t i = 0; i < n; i++) h[i] = (int)(i % 13) + rank;
    bool gpu_here = !mixed || rank % 2 == 0;
    int* in = gpu_here ? to_gpu(h, n) : h;
    int* out = NULL;
    if (gpu_here) CHECK_CUDA(cudaMalloc(&out, n * sizeof(int)));
    else out = (int*)malloc(n * sizeof(int));
    CHECK_MPI(MPI_Allreduce(in, out, (int)n, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
    int* got = (int*)malloc(n * sizeof(int));
    if (gpu_here) CHECK_CUDA(cudaMemcpy(got, out, n * sizeof(int), cudaMemcpyDeviceToHost));
    else memcpy(got, out, n * sizeof(int));
    for (size_t i = 0; i < n; i++)
      CHECK(got[i] == (int)(i % 13) * size + size * (size - 1) / 2, "%s allreduce of 32 MiB: element %zu is %d",
            mixed ? "mixed GPU/host" : "GPU", i, got[i]);
    if (!mixed) { /* in place, max */
      CHECK_MPI(MPI_Allreduce(MPI_IN_PLACE, in, (int)n, MPI_INT, MPI_MAX, MPI_COMM_WORLD));
      CHECK_CUDA(cudaMemcpy(got, in, n * sizeof(int), cudaMemcpyDeviceToHost));
      for (size_t i = 0; i < n; i++)
        CHECK(got[i] == (int)(i % 13) + size - 1, "in-place max of 32 MiB: element %zu is %d", i, got[i]);
    }
    if (gpu_here) {
      cudaFree(in);
      cudaFree(out);
    } else {
      free(out);
    }
    free(h);
    free(got);
  }

  /* The large-count form takes the same staged path. */
  {
    int h[64];
    for (int i = 0; i < 64; i++) h[i] = i;
    int* dc = to_gpu(h, 64);
    CHECK_MPI(MPI_Allreduce_c(MPI_IN_PLACE, dc, (MPI_Count)64, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
    from_gpu(h, dc, 64);
    cudaFree(dc);
    for (int i = 0; i < 64; i++) CHECK(h[i] == i * size, "allreduce_c: element %d is %d", i, h[i]);
  }

  /* Nonblocking and persistent forms: those that run on the GPU buffers
   * themselves (Iallreduce with a GPU reduction kernel, Ibcast) and those
   * staged through host copies, which are rounds of their schedule
   * (Igather, Gatherv_init started twice, Iscan), must give the right
   * answer. */
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  {
    int h[64];
    for (int i = 0; i < 64; i++) h[i] = i + rank;
    int* d = to_gpu(h, 64);
    MPI_Request q;
    int rc = MPI_Iallreduce(MPI_IN_PLACE, d, 64, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &q);
    CHECK_MPI(rc);
    CHECK_MPI(MPI_Wait(&q, MPI_STATUS_IGNORE));
    CHECK_CUDA(cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost));
    for (int i = 0; i < 64; i++)
      CHECK(h[i] == i * size + size * (size - 1) / 2, "Iallreduce on GPU: element %d is %d", i, h[i]);
    rc = MPI_Allreduce_init(MPI_IN_PLACE, d, 64, MPI_INT, MPI_SUM, MPI_COMM_WORLD, MPI_INFO_NULL, &q);
    CHECK_MPI(rc);
    {
      for (int start = 0; start < 2; start++) {
        for (int i = 0; i < 64; i++) h[i] = i + rank + start;
        CHECK_CUDA(cudaMemcpy(d, h, sizeof h, cudaMemcpyHostToDevice));
        CHECK_MPI(MPI_Start(&q));
        CHECK_MPI(MPI_Wait(&q, MPI_STATUS_IGNORE));
        CHECK_CUDA(cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost));
        for (int i = 0; i < 64; i++)
          CHECK(h[i] == (i + start) * size + size * (size - 1) / 2, "persistent allreduce, start %d: %d is %d", start,
                i, h[i]);
      }
      CHECK_MPI(MPI_Request_free(&q));
    }
    for (int i = 0; i < 64; i++) h[i] = rank == 0 ? 7 * i : -1;
    CHECK_CUDA(cudaMemcpy(d, h, sizeof h, cudaMemcpyHostToDevice));
    CHECK_MPI(MPI_Ibcast(d, 64, MPI_INT, 0, MPI_COMM_WORLD, &q));
    CHECK_MPI(MPI_Wait(&q, MPI_STATUS_IGNORE));
    CHECK_CUDA(cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost));
    for (int i = 0; i < 64; i++) CHECK(h[i] == 7 * i, "Ibcast on GPU: element %d is %d", i, h[i]);
    int* all = NULL;
    CHECK_CUDA(cudaMalloc(&all, 64 * sizeof(int) * size));
    /* Staged (no path on the GPU buffers themselves): the copies are
     * rounds of the request's schedule. */
    for (int i = 0; i < 64; i++) h[i] = 1000 * rank + i;
    CHECK_CUDA(cudaMemcpy(d, h, sizeof h, cudaMemcpyHostToDevice));
    CHECK_MPI(MPI_Igather(d, 64, MPI_INT, all, 64, MPI_INT, 0, MPI_COMM_WORLD, &q));
    CHECK_MPI(MPI_Wait(&q, MPI_STATUS_IGNORE));
    if (rank == 0) {
      int* got = (int*)malloc(64 * sizeof(int) * size);
      CHECK_CUDA(cudaMemcpy(got, all, 64 * sizeof(int) * size, cudaMemcpyDeviceToHost));
      for (int r = 0; r < size; r++)
        for (int i = 0; i < 64; i++)
          CHECK(got[r * 64 + i] == 1000 * r + i, "Igather on GPU: rank %d element %d is %d", r, i, got[r * 64 + i]);
      free(got);
    }
    /* Persistent and staged: each start copies the input in again. */
    int* counts = (int*)malloc(sizeof(int) * size);
    int* displs = (int*)malloc(sizeof(int) * size);
    for (int r = 0; r < size; r++) counts[r] = 64, displs[r] = 64 * (size - 1 - r);
    CHECK_MPI(MPI_Gatherv_init(d, 64, MPI_INT, all, counts, displs, MPI_INT, 0, MPI_COMM_WORLD, MPI_INFO_NULL, &q));
    for (int start = 0; start < 2; start++) {
      for (int i = 0; i < 64; i++) h[i] = 1000 * rank + i + 100000 * start;
      CHECK_CUDA(cudaMemcpy(d, h, sizeof h, cudaMemcpyHostToDevice));
      CHECK_MPI(MPI_Start(&q));
      CHECK_MPI(MPI_Wait(&q, MPI_STATUS_IGNORE));
      if (rank == 0) {
        int* got = (int*)malloc(64 * sizeof(int) * size);
        CHECK_CUDA(cudaMemcpy(got, all, 64 * sizeof(int) * size, cudaMemcpyDeviceToHost));
        for (int r = 0; r < size; r++)
          for (int i = 0; i < 64; i++)
            CHECK(got[displs[r] + i] == 1000 * r + i + 100000 * start, "persistent gatherv, start %d: rank %d element %d",
                  start, r, i);
        free(got);
      }
    }
    CHECK_MPI(MPI_Request_free(&q));
    free(counts);
    free(displs);
    /* Nonblocking scan (staged) into a GPU buffer. */
    int* scanned = to_gpu(h, 64);
    for (int i = 0; i < 64; i++) h[i] = rank + i;
    CHECK_CUDA(cudaMemcpy(d, h, sizeof h, cudaMemcpyHostToDevice));
    CHECK_MPI(MPI_Iscan(d, scanned, 64, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &q));
    CHECK_MPI(MPI_Wait(&q, MPI_STATUS_IGNORE));
    CHECK_CUDA(cudaMemcpy(h, scanned, sizeof h, cudaMemcpyDeviceToHost));
    for (int i = 0; i < 64; i++)
      CHECK(h[i] == rank * (rank + 1) / 2 + (rank + 1) * i, "Iscan on GPU: element %d is %d", i, h[i]);
    cudaFree(scanned);
    /* Alltoallw (blocking and nonblocking) and a neighbourhood alltoall on
     * a periodic ring: staged, every block where it belongs. */
    {
      int* sendw = NULL;
      int* recvw = NULL;
      CHECK_CUDA(cudaMalloc(&sendw, sizeof(int) * 4 * size));
      CHECK_CUDA(cudaMalloc(&recvw, sizeof(int) * 4 * size));
      int* hw = (int*)malloc(sizeof(int) * 4 * size);
      int* cw = (int*)malloc(sizeof(int) * size);
      int* dw = (int*)malloc(sizeof(int) * size);
      MPI_Datatype* tw = (MPI_Datatype*)malloc(sizeof(MPI_Datatype) * size);
      for (int r = 0; r < size; r++) cw[r] = 4, dw[r] = (int)(sizeof(int) * 4 * r), tw[r] = MPI_INT;
      for (int form = 0; form < 2; form++) {
        for (int i = 0; i < 4 * size; i++) hw[i] = 10000 * rank + i;
        CHECK_CUDA(cudaMemcpy(sendw, hw, sizeof(int) * 4 * size, cudaMemcpyHostToDevice));
        if (form == 0) {
          CHECK_MPI(MPI_Alltoallw(sendw, cw, dw, tw, recvw, cw, dw, tw, MPI_COMM_WORLD));
        } else {
          CHECK_MPI(MPI_Ialltoallw(sendw, cw, dw, tw, recvw, cw, dw, tw, MPI_COMM_WORLD, &q));
          CHECK_MPI(MPI_Wait(&q, MPI_STATUS_IGNORE));
        }
        CHECK_CUDA(cudaMemcpy(hw, recvw, sizeof(int) * 4 * size, cudaMemcpyDeviceToHost));
        for (int r = 0; r < size; r++)
          for (int i = 0; i < 4; i++)
            CHECK(hw[4 * r + i] == 10000 * r + 4 * rank + i, "%s on GPU: from rank %d element %d is %d",
                  form ? "MPI_Ialltoallw" : "MPI_Alltoallw", r, i, hw[4 * r + i]);
      }
      MPI_Comm ring;
      int dims[1] = {size}, periods[1] = {1};
      CHECK_MPI(MPI_Cart_create(MPI_COMM_WORLD, 1, dims, periods, 0, &ring));
      int ring_rank = 0;
      MPI_Comm_rank(ring, &ring_rank);
      for (int i = 0; i < 8; i++) hw[i] = 100 * ring_rank + i;
      CHECK_CUDA(cudaMemcpy(sendw, hw, sizeof(int) * 8, cudaMemcpyHostToDevice));
      /* Blocks: to the left neighbour first, then the right (MPI-3.1 §7.6). */
      CHECK_MPI(MPI_Neighbor_alltoall(sendw, 4, MPI_INT, recvw, 4, MPI_INT, ring));
      CHECK_CUDA(cudaMemcpy(hw, recvw, sizeof(int) * 8, cudaMemcpyDeviceToHost));
      int left = (ring_rank - 1 + size) % size, right = (ring_rank + 1) % size;
      for (int i = 0; i < 4; i++) {
        CHECK(hw[i] == 100 * left + 4 + i, "Neighbor_alltoall on GPU: from the left, element %d is %d", i, hw[i]);
        CHECK(hw[4 + i] == 100 * right + i, "Neighbor_alltoall on GPU: from the right, element %d is %d", i, hw[4 + i]);
      }
      CHECK_MPI(MPI_Comm_free(&ring));
      free(hw);
      free(cw);
      free(dw);
      free(tw);
      cudaFree(sendw);
      cudaFree(recvw);
    }
    cudaFree(all);
    cudaFree(d);
  }

  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 0) printf("gpu_coll: OK (%d ranks)\n", size);
  MPI_Finalize();
  return 0;
}
