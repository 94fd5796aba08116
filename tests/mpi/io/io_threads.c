/*
 * One file handle, several threads (MPI_THREAD_MULTIPLE): four threads per
 * rank append records through the same handle's individual file pointer
 * (MPI_File_write) and through the shared one (MPI_File_write_shared) at
 * once. Each pointer is taken and moved as one step, so every record lands
 * once and whole, none overlaps another, and each pointer ends at the sum.
 */
#define TEST_NAME "io_threads"
#include "mpitest.h"
#include "iotest.h"
#include <pthread.h>

#define THREADS 4
#define RECORDS 1000
#define INTS 16 /* per record: thread, record, then a pattern */

static int rank, size;
static MPI_File own, shared;

static void fill(int *rec, int r, int t, int k) {
  rec[0] = r * THREADS + t;
  rec[1] = k;
  for (int i = 2; i < INTS; ++i) rec[i] = (r * THREADS + t) * 1000000 + k * 100 + i;
}

static void *writer(void *arg) {
  int t = (int)(intptr_t)arg, rec[INTS];
  MPI_Status st;
  for (int k = 0; k < RECORDS; ++k) {
    fill(rec, rank, t, k);
    CHECK_MPI(MPI_File_write(own, rec, INTS, MPI_INT, &st));
    CHECK_MPI(MPI_File_write_shared(shared, rec, INTS, MPI_INT, &st));
  }
  return NULL;
}

/* Every record of writers first .. first + writers - 1 exactly once, whole,
 * in `ints` ints. */
static void check_records(const int *data, size_t ints, int first, int writers) {
  CHECK(ints == (size_t)writers * RECORDS * INTS, "%zu ints, expected %d", ints, writers * RECORDS * INTS);
  unsigned char *seen = calloc((size_t)writers * RECORDS, 1);
  for (size_t at = 0; at < ints; at += INTS) {
    int w = data[at] - first, k = data[at + 1], want[INTS];
    CHECK(w >= 0 && w < writers && k >= 0 && k < RECORDS, "int %zu: no record header (%d, %d)", at, w, k);
    fill(want, (first + w) / THREADS, (first + w) % THREADS, k);
    CHECK(memcmp(data + at, want, sizeof want) == 0, "record (%d, %d) at int %zu is torn", w, k, at);
    CHECK(!seen[w * RECORDS + k], "record (%d, %d) is there twice", w, k);
    seen[w * RECORDS + k] = 1;
  }
  free(seen);
}

int main(int argc, char **argv) {
  int provided;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (provided < MPI_THREAD_MULTIPLE) {
    if (rank == 0) printf("%s: SKIPPED (no MPI_THREAD_MULTIPLE)\n", TEST_NAME);
    MPI_Finalize();
    return 0;
  }
  io_make_dir();
  char own_path[600], shared_path[600];
  snprintf(own_path, sizeof own_path, "%s/own.%d", io_dir, rank);
  io_path("shared", shared_path, sizeof shared_path);
  CHECK_MPI(MPI_File_open(MPI_COMM_SELF, own_path, MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL, &own));
  CHECK_MPI(MPI_File_open(MPI_COMM_WORLD, shared_path, MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL, &shared));
  CHECK_MPI(MPI_File_set_view(own, 0, MPI_INT, MPI_INT, "native", MPI_INFO_NULL));
  CHECK_MPI(MPI_File_set_view(shared, 0, MPI_INT, MPI_INT, "native", MPI_INFO_NULL));

  pthread_t threads[THREADS];
  for (int t = 0; t < THREADS; ++t)
    CHECK(pthread_create(&threads[t], NULL, writer, (void *)(intptr_t)t) == 0, "pthread_create failed");
  for (int t = 0; t < THREADS; ++t) pthread_join(threads[t], NULL);

  MPI_Offset pos = -1;
  CHECK_MPI(MPI_File_get_position(own, &pos));
  CHECK(pos == THREADS * RECORDS * INTS, "the individual pointer is at %lld, expected %d", (long long)pos,
        THREADS * RECORDS * INTS);
  MPI_Barrier(MPI_COMM_WORLD);
  CHECK_MPI(MPI_File_get_position_shared(shared, &pos));
  CHECK(pos == (MPI_Offset)size * THREADS * RECORDS * INTS, "the shared pointer is at %lld, expected %d",
        (long long)pos, size * THREADS * RECORDS * INTS);
  CHECK_MPI(MPI_File_close(&own));
  CHECK_MPI(MPI_File_close(&shared));

  size_t bytes;
  int *data = (int *)io_slurp(own_path, &bytes);
  check_records(data, bytes / sizeof(int), rank * THREADS, THREADS); /* this rank's own */
  free(data);
  unlink(own_path);
  if (rank == 0) {
    data = (int *)io_slurp(shared_path, &bytes);
    check_records(data, bytes / sizeof(int), 0, size * THREADS);
    free(data);
  }
  io_remove_dir();
  mt_pass();
  MPI_Finalize();
  return 0;
}
