/* shared_file_pointer DIR: one shared file pointer for ranks on several
 * hosts (MPI-3.1 §13.4.4, issue 14). Every rank appends records of
 * different lengths to DIR/records with MPI_File_write_shared (rank 0 first
 * naps outside MPI, so the others go on without it), then once more with
 * MPI_File_write_ordered; rank 0 checks the file with plain POSIX reads:
 * every record once, whole, no gap and no overlap, the ordered part in rank
 * order after them, and no hidden file left beside it after the close.
 * Prints "shared_file_pointer: OK on N ranks on H hosts". */
#include <dirent.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#define ROUNDS 30
#define HEADER 3 /* ints: rank, round, length */
#define MAX_RANKS 16

static int record_length(int r, int round) { return HEADER + (r * 7 + round * 3) % 11; }

static void make_record(int *rec, int r, int round) {
  rec[0] = r;
  rec[1] = round;
  rec[2] = record_length(r, round);
  for (int i = HEADER; i < rec[2]; ++i) rec[i] = r * 100000 + round * 100 + i;
}

static void die(const char *what) {
  fprintf(stderr, "shared_file_pointer: FAILED: %s\n", what);
  MPI_Abort(MPI_COMM_WORLD, 1);
}

static void check_mpi(int rc, const char *call) {
  if (rc == MPI_SUCCESS) return;
  char text[MPI_MAX_ERROR_STRING + 64];
  int len = 0;
  snprintf(text, sizeof text, "%s: ", call);
  MPI_Error_string(rc, text + strlen(text), &len);
  die(text);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (argc < 2 || size > MAX_RANKS) die("usage: shared_file_pointer DIR (at most 16 ranks)");
  char path[4096];
  snprintf(path, sizeof path, "%s/records", argv[1]);

  /* How many hosts: distinct processor names. */
  char names[MAX_RANKS][MPI_MAX_PROCESSOR_NAME] = {{0}};
  int len = 0;
  MPI_Get_processor_name(names[rank], &len);
  MPI_Allgather(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, names, MPI_MAX_PROCESSOR_NAME, MPI_CHAR, MPI_COMM_WORLD);
  int hosts = 0;
  for (int r = 0; r < size; ++r) {
    int first = 1;
    for (int q = 0; q < r; ++q) first &= strcmp(names[q], names[r]) != 0;
    hosts += first;
  }

  MPI_File fh;
  check_mpi(MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL, &fh),
            "MPI_File_open");
  check_mpi(MPI_File_set_view(fh, 0, MPI_INT, MPI_INT, "native", MPI_INFO_NULL), "MPI_File_set_view");
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 0) {
    struct timespec nap = {1, 0};
    nanosleep(&nap, NULL);
  }
  for (int round = 0; round < ROUNDS; ++round) {
    int rec[HEADER + 11];
    make_record(rec, rank, round);
    check_mpi(MPI_File_write_shared(fh, rec, rec[2], MPI_INT, MPI_STATUS_IGNORE), "MPI_File_write_shared");
  }
  int mine[MAX_RANKS];
  for (int i = 0; i < rank + 1; ++i) mine[i] = -(rank * 10 + i + 1);
  check_mpi(MPI_File_write_ordered(fh, mine, rank + 1, MPI_INT, MPI_STATUS_IGNORE), "MPI_File_write_ordered");
  MPI_Offset position = -1;
  check_mpi(MPI_File_get_position_shared(fh, &position), "MPI_File_get_position_shared");
  check_mpi(MPI_File_close(&fh), "MPI_File_close");

  size_t records_ints = 0;
  for (int r = 0; r < size; ++r)
    for (int round = 0; round < ROUNDS; ++round) records_ints += (size_t)record_length(r, round);
  size_t total_ints = records_ints + (size_t)size * (size + 1) / 2;
  if (position != (MPI_Offset)total_ints) die("the shared pointer is not past all the data on some rank");

  if (rank == 0) {
    FILE *in = fopen(path, "rb");
    if (in == NULL) die("cannot open the file again");
    int *data = malloc((total_ints + 1) * sizeof(int));
    size_t got = fread(data, sizeof(int), total_ints + 1, in);
    fclose(in);
    if (got != total_ints) die("the file does not have the size of all the records");
    static int seen[MAX_RANKS][ROUNDS];
    for (size_t at = 0; at < records_ints;) {
      int r = data[at], round = data[at + 1], want[HEADER + 11];
      if (r < 0 || r >= size || round < 0 || round >= ROUNDS) die("a record header is not one (a gap or overlap)");
      make_record(want, r, round);
      if (at + (size_t)want[2] > records_ints || memcmp(data + at, want, (size_t)want[2] * sizeof(int)) != 0)
        die("a record is torn");
      if (seen[r][round]++) die("a record is in the file twice");
      at += (size_t)want[2];
    }
    for (int r = 0, at = 0; r < size; ++r)
      for (int i = 0; i < r + 1; ++i, ++at)
        if (data[records_ints + (size_t)at] != -(r * 10 + i + 1)) die("write_ordered's data is not in rank order");
    free(data);
    DIR *d = opendir(argv[1]);
    struct dirent *e;
    while (d != NULL && (e = readdir(d)) != NULL)
      if (strstr(e->d_name, "records") != NULL && strcmp(e->d_name, "records") != 0)
        die("a hidden file is left beside the data file after MPI_File_close");
    if (d != NULL) closedir(d);
    printf("shared_file_pointer: OK on %d ranks on %d hosts\n", size, hosts);
  }
  MPI_Finalize();
  return 0;
}
