/*
 * io_collective: MB/s of collective MPI-IO, standard MPI C only (built
 * against each MPI by scripts/bench).
 *
 *   --pattern array    a 256^3 array of doubles (128 MiB; --edge N for N^3)
 *                      block-decomposed over the ranks (MPI_Dims_create),
 *                      each rank's block written through a subarray view
 *   --pattern strided  each rank 1 KiB every `ranks` KiB (rank r at r KiB),
 *                      64 MiB in all (--total)
 *   --op write|read    MPI_File_write_all or MPI_File_read_all
 *   --sync             MPI_File_sync inside the timed part (writes)
 *   --reps N           timed calls (default 5), after one untimed call
 *   --dir PATH         where the file goes (default $TMPDIR or /tmp)
 *   --hint KEY=VALUE   an MPI_Info hint for MPI_File_open (repeatable), e.g.
 *                      ferry_cb_double_buffer=disable
 *
 * Prints "# pattern op ranks bytes MB/s" and one line; MB/s is the bytes of
 * one call over the median, across calls, of the slowest rank's time
 * (from a barrier to its return).
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int cmp(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

int main(int argc, char **argv) {
  const char *pattern = "array", *op = "write", *dir = getenv("TMPDIR");
  int reps = 5, edge = 256, sync = 0;
  long total = 64L << 20;
  const char *hints[16];
  int nhints = 0;
  for (int i = 1; i < argc; i++) {
    if (!strcmp(argv[i], "--pattern") && i + 1 < argc) pattern = argv[++i];
    else if (!strcmp(argv[i], "--op") && i + 1 < argc) op = argv[++i];
    else if (!strcmp(argv[i], "--reps") && i + 1 < argc) reps = atoi(argv[++i]);
    else if (!strcmp(argv[i], "--edge") && i + 1 < argc) edge = atoi(argv[++i]);
    else if (!strcmp(argv[i], "--total") && i + 1 < argc) total = atol(argv[++i]) << 20;
    else if (!strcmp(argv[i], "--dir") && i + 1 < argc) dir = argv[++i];
    else if (!strcmp(argv[i], "--sync")) sync = 1;
    else if (!strcmp(argv[i], "--hint") && i + 1 < argc && nhints < 16) hints[nhints++] = argv[++i];
  }
  if (dir == NULL || !*dir) dir = "/tmp";
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  int writing = strcmp(op, "write") == 0;

  MPI_Datatype filetype;
  MPI_Offset disp = 0;
  long bytes; /* this rank's */
  if (!strcmp(pattern, "array")) {
    int dims[3] = {0, 0, 0}, g[3] = {edge, edge, edge}, l[3], s[3], coords[3], periods[3] = {0, 0, 0};
    MPI_Comm cart;
    MPI_Dims_create(size, 3, dims);
    MPI_Cart_create(MPI_COMM_WORLD, 3, dims, periods, 0, &cart);
    MPI_Cart_coords(cart, rank, 3, coords);
    bytes = 8;
    for (int d = 0; d < 3; d++) {
      int base = g[d] / dims[d], extra = g[d] % dims[d];
      l[d] = base + (coords[d] < extra);
      s[d] = coords[d] * base + (coords[d] < extra ? coords[d] : extra);
      bytes *= l[d];
    }
    MPI_Type_create_subarray(3, g, l, s, MPI_ORDER_C, MPI_DOUBLE, &filetype);
    MPI_Comm_free(&cart);
  } else {
    MPI_Datatype kib;
    MPI_Type_contiguous(1024, MPI_BYTE, &kib);
    MPI_Type_create_resized(kib, 0, 1024L * size, &filetype);
    MPI_Type_free(&kib);
    disp = 1024L * rank;
    bytes = total / size / 1024 * 1024;
  }
  MPI_Type_commit(&filetype);
  char *buf = malloc((size_t)bytes);
  for (long i = 0; i < bytes; i++) buf[i] = (char)(i * 7 + rank);

  char path[512];
  if (rank == 0) snprintf(path, sizeof path, "%s/io_collective.%d.%ld", dir, (int)getpid(), (long)size);
  MPI_Bcast(path, sizeof path, MPI_CHAR, 0, MPI_COMM_WORLD);
  MPI_Info info = MPI_INFO_NULL;
  if (nhints > 0) MPI_Info_create(&info);
  for (int h = 0; h < nhints; h++) {
    char key[256];
    const char *eq = strchr(hints[h], '=');
    if (eq == NULL || eq - hints[h] >= (long)sizeof key) continue;
    memcpy(key, hints[h], (size_t)(eq - hints[h]));
    key[eq - hints[h]] = '\0';
    MPI_Info_set(info, key, eq + 1);
  }
  MPI_File fh;
  int opened = MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_RDWR, info, &fh);
  if (info != MPI_INFO_NULL) MPI_Info_free(&info);
  if (opened != MPI_SUCCESS) {
    fprintf(stderr, "io_collective: cannot open %s\n", path);
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  MPI_File_set_view(fh, disp, MPI_BYTE, filetype, "native", MPI_INFO_NULL);
  double *times = malloc(sizeof(double) * (size_t)(reps + 1));
  int count = (int)(bytes / 8);
  for (int r = -1; r < reps; r++) {
    /* Reads need the data there: the untimed first call writes it. */
    int this_writes = writing || r < 0;
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = MPI_Wtime();
    int rc = this_writes ? MPI_File_write_at_all(fh, 0, buf, count, MPI_DOUBLE, MPI_STATUS_IGNORE)
                         : MPI_File_read_at_all(fh, 0, buf, count, MPI_DOUBLE, MPI_STATUS_IGNORE);
    if (rc == MPI_SUCCESS && sync && this_writes) rc = MPI_File_sync(fh);
    double t = MPI_Wtime() - t0;
    if (rc != MPI_SUCCESS) {
      fprintf(stderr, "io_collective: rank %d: %s failed\n", rank, this_writes ? "write" : "read");
      MPI_Abort(MPI_COMM_WORLD, 1);
    }
    MPI_Allreduce(MPI_IN_PLACE, &t, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    if (r >= 0) times[r] = t;
  }
  MPI_File_close(&fh);
  if (rank == 0) {
    unlink(path);
    qsort(times, (size_t)reps, sizeof(double), cmp);
    double median = reps % 2 ? times[reps / 2] : (times[reps / 2 - 1] + times[reps / 2]) / 2;
    long all = bytes * size;
    printf("# pattern op ranks bytes MB/s\n%s %s %d %ld %.1f\n", pattern, op, size, all, all / median / 1e6);
  }
  free(buf);
  free(times);
  MPI_Type_free(&filetype);
  MPI_Finalize();
  return 0;
}
