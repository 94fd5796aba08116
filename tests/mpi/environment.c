/*
 * The environment calls (MPI-3.1 chapter 8): version queries, processor
 * name, the predefined attributes of MPI_COMM_WORLD, MPI_Wtime/MPI_Wtick,
 * thread-level queries after MPI_Init, MPI_Alloc_mem memory used for
 * messages, ranks of MPI_COMM_WORLD forming 0..size-1 with the same size
 * everywhere, and MPI_Initialized/MPI_Finalized around the whole run.
 */
#define TEST_NAME "environment"
#include "mpitest.h"

#include <time.h>

static int rank, size;

/* Every rank's value must equal rank 0's. */
static void check_same_everywhere(int value, const char *what) {
  if (rank == 0) {
    for (int r = 1; r < size; r++) {
      int other = 0;
      MPI_Recv(&other, 1, MPI_INT, r, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      CHECK(other == value, "%s is %d on rank 0 but %d on rank %d", what, value, other, r);
    }
  } else {
    MPI_Send(&value, 1, MPI_INT, 0, 1, MPI_COMM_WORLD);
  }
}

static void check_versions(void) {
  int version = -1, subversion = -1, len = -1;
  MPI_Get_version(&version, &subversion);
  CHECK(version >= 3 && subversion >= 0 && subversion <= 9,
        "MPI_Get_version gave %d.%d, expected 3.x or later", version, subversion);
  CHECK(version == MPI_VERSION && subversion == MPI_SUBVERSION,
        "MPI_Get_version gave %d.%d but mpi.h says %d.%d", version, subversion, MPI_VERSION,
        MPI_SUBVERSION);

  char lib[MPI_MAX_LIBRARY_VERSION_STRING];
  memset(lib, 'x', sizeof lib);
  MPI_Get_library_version(lib, &len);
  CHECK(len > 0 && len < MPI_MAX_LIBRARY_VERSION_STRING && (size_t)len == strlen(lib),
        "MPI_Get_library_version: length %d for a string of %zu characters", len,
        strnlen(lib, sizeof lib));

  char name[MPI_MAX_PROCESSOR_NAME];
  memset(name, 'x', sizeof name);
  MPI_Get_processor_name(name, &len);
  CHECK(len > 0 && len < MPI_MAX_PROCESSOR_NAME && (size_t)len == strlen(name),
        "MPI_Get_processor_name: length %d for a string of %zu characters", len,
        strnlen(name, sizeof name));
}

static void check_attributes(void) {
  int *value = NULL, flag = 0;

  MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_TAG_UB, &value, &flag);
  CHECK(flag && value, "MPI_TAG_UB is not set on MPI_COMM_WORLD");
  CHECK(*value >= 32767, "MPI_TAG_UB is %d, the standard requires at least 32767", *value);
  check_same_everywhere(*value, "MPI_TAG_UB");
  /* The largest tag really works, to itself. */
  int out = 5, in = 0;
  MPI_Sendrecv(&out, 1, MPI_INT, rank, *value, &in, 1, MPI_INT, rank, *value, MPI_COMM_WORLD,
               MPI_STATUS_IGNORE);
  CHECK(in == 5, "message with tag MPI_TAG_UB (%d) to self got %d", *value, in);

  MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_UNIVERSE_SIZE, &value, &flag);
  if (flag) {
    CHECK(*value >= 1, "MPI_UNIVERSE_SIZE is %d", *value);
    check_same_everywhere(*value, "MPI_UNIVERSE_SIZE");
  } else {
    check_same_everywhere(-1, "MPI_UNIVERSE_SIZE (unset)");
  }

  MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_APPNUM, &value, &flag);
  if (flag) {
    /* One executable on the command line: application number 0. */
    CHECK(*value == 0, "MPI_APPNUM is %d for a single-application job", *value);
  }

  MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_WTIME_IS_GLOBAL, &value, &flag);
  CHECK(flag, "MPI_WTIME_IS_GLOBAL is not set on MPI_COMM_WORLD");
  CHECK(*value == 0 || *value == 1, "MPI_WTIME_IS_GLOBAL is %d, expected 0 or 1", *value);
  check_same_everywhere(*value, "MPI_WTIME_IS_GLOBAL");
}

static void check_clock(void) {
  const double tick = MPI_Wtick();
  CHECK(tick > 0 && tick < 1, "MPI_Wtick is %g", tick);
  double prev = MPI_Wtime();
  for (int i = 0; i < 10000; i++) {
    double now = MPI_Wtime();
    CHECK(now >= prev, "MPI_Wtime went backwards: %.9f after %.9f", now, prev);
    prev = now;
  }
  /* A 100 ms sleep shows up as at least ~100 ms (no upper bound worth
   * trusting on a loaded machine beyond a generous one). */
  const double before = MPI_Wtime();
  struct timespec ts = {0, 100 * 1000 * 1000};
  nanosleep(&ts, NULL);
  const double slept = MPI_Wtime() - before;
  CHECK(slept >= 0.09 && slept < 30, "MPI_Wtime measured %.3f s across a 0.1 s sleep", slept);
}

static void check_threads(void) {
  int level = -1, is_main = -1;
  MPI_Query_thread(&level);
  CHECK(level == MPI_THREAD_SINGLE || level == MPI_THREAD_FUNNELED ||
            level == MPI_THREAD_SERIALIZED || level == MPI_THREAD_MULTIPLE,
        "MPI_Query_thread gave %d", level);
  MPI_Is_thread_main(&is_main);
  CHECK(is_main, "MPI_Is_thread_main is false in the thread that called MPI_Init");
}

static void check_alloc_mem(void) {
  const int n = 1 << 20;
  unsigned char *sbuf = NULL, *rbuf = NULL;
  CHECK(MPI_Alloc_mem(n, MPI_INFO_NULL, &sbuf) == MPI_SUCCESS && sbuf, "MPI_Alloc_mem failed");
  CHECK(MPI_Alloc_mem(n, MPI_INFO_NULL, &rbuf) == MPI_SUCCESS && rbuf, "MPI_Alloc_mem failed");
  const int right = (rank + 1) % size, left = (rank + size - 1) % size;
  mt_fill(sbuf, (size_t)n, mt_seed((uint32_t)rank, 9, 9));
  MPI_Sendrecv(sbuf, n, MPI_BYTE, right, 2, rbuf, n, MPI_BYTE, left, 2, MPI_COMM_WORLD,
               MPI_STATUS_IGNORE);
  CHECK_PATTERN(rbuf, (size_t)n, mt_seed((uint32_t)left, 9, 9), "message in MPI_Alloc_mem memory");
  MPI_Free_mem(sbuf);
  MPI_Free_mem(rbuf);
}

static void check_ranks(void) {
  CHECK(size >= 1 && rank >= 0 && rank < size, "rank %d, size %d", rank, size);
  check_same_everywhere(size, "the size of MPI_COMM_WORLD");
  if (rank == 0) {
    int *seen = calloc((size_t)size, sizeof(int));
    seen[0] = 1;
    for (int i = 1; i < size; i++) {
      int r = -1;
      MPI_Status st;
      MPI_Recv(&r, 1, MPI_INT, MPI_ANY_SOURCE, 3, MPI_COMM_WORLD, &st);
      CHECK(r == st.MPI_SOURCE && r > 0 && r < size && !seen[r],
            "rank %d says it is rank %d (duplicate or out of range)", st.MPI_SOURCE, r);
      seen[r] = 1;
    }
    free(seen);
  } else {
    MPI_Send(&rank, 1, MPI_INT, 0, 3, MPI_COMM_WORLD);
  }
}

int main(int argc, char **argv) {
  int flag = -1;
  MPI_Initialized(&flag);
  if (flag != 0) {
    fprintf(stderr, "%s: FAILED: MPI_Initialized is %d before MPI_Init\n", TEST_NAME, flag);
    return 1;
  }
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  MPI_Initialized(&flag);
  CHECK(flag == 1, "MPI_Initialized is %d after MPI_Init", flag);
  MPI_Finalized(&flag);
  CHECK(flag == 0, "MPI_Finalized is %d before MPI_Finalize", flag);

  check_versions();
  check_attributes();
  check_clock();
  check_threads();
  check_alloc_mem();
  check_ranks();

  MPI_Barrier(MPI_COMM_WORLD);
  MPI_Finalize();
  MPI_Finalized(&flag);
  if (flag != 1) {
    fprintf(stderr, "%s: rank %d: FAILED: MPI_Finalized is %d after MPI_Finalize\n", TEST_NAME,
            rank, flag);
    return 1;
  }
  if (rank == 0) printf("%s: OK\n", TEST_NAME);
  return 0;
}
