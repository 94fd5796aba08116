/*
 * Collective accesses whose pieces interleave but are large (MPI-IO's
 * "automatic" choice, io/collective.cc): rank r owns stripe r of every tile,
 * stripes of 128 KiB (direct on a local file system: each rank its own
 * pieces) and of 8 KiB (two-phase through an aggregator), each written with
 * MPI_File_write_all under the default hints and again with
 * romio_cb_write=enable (two-phase whatever the pieces), read back with
 * MPI_File_read_all and checked byte for byte with POSIX reads. Run with
 * FERRY_DEBUG=io, the test's regexes check which way each call went.
 */
#define TEST_NAME "io_large_pieces"
#include "mpitest.h"
#include "iotest.h"

static int rank, size;
#define TILES 6

static unsigned char value(int r, long i) { return (unsigned char)(r * 37 + i * 11 + i / 4096); }

static void round_trip(long stripe, int force_cb, const char *name) {
  char path[600];
  io_path(name, path, sizeof path);
  MPI_Info info = MPI_INFO_NULL;
  if (force_cb) {
    MPI_Info_create(&info);
    MPI_Info_set(info, "romio_cb_write", "enable");
    MPI_Info_set(info, "romio_cb_read", "enable");
  }
  MPI_File f;
  CHECK_MPI(MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_RDWR, info, &f));
  MPI_Datatype stripe_type, tile;
  MPI_Type_contiguous((int)stripe, MPI_BYTE, &stripe_type);
  MPI_Type_create_resized(stripe_type, 0, stripe * size, &tile);
  MPI_Type_commit(&tile);
  CHECK_MPI(MPI_File_set_view(f, stripe * rank, MPI_BYTE, tile, "native", MPI_INFO_NULL));
  long n = stripe * TILES;
  unsigned char *mine = malloc((size_t)n), *back = malloc((size_t)n);
  for (long i = 0; i < n; i++) mine[i] = value(rank, i);
  MPI_Status st;
  CHECK_MPI(MPI_File_write_all(f, mine, (int)n, MPI_BYTE, &st));
  int count = -1;
  MPI_Get_count(&st, MPI_BYTE, &count);
  CHECK(count == n, "%s: write_all wrote %d of %ld bytes", name, count, n);
  CHECK_MPI(MPI_File_sync(f));
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 0) {
    size_t bytes = 0;
    unsigned char *file = io_slurp(path, &bytes);
    CHECK(bytes == (size_t)(stripe * size * TILES), "%s: the file has %zu bytes", name, bytes);
    for (long p = 0; p < (long)bytes; p++) {
      long tile_no = p / (stripe * size), in = p % (stripe * size);
      int r = (int)(in / stripe);
      long i = tile_no * stripe + in % stripe;
      CHECK(file[p] == value(r, i), "%s: byte %ld is %d, rank %d's %ld should be %d", name, p, file[p], r, i,
            value(r, i));
    }
    free(file);
  }
  CHECK_MPI(MPI_File_seek(f, 0, MPI_SEEK_SET));
  memset(back, 0, (size_t)n);
  CHECK_MPI(MPI_File_read_all(f, back, (int)n, MPI_BYTE, MPI_STATUS_IGNORE));
  CHECK(memcmp(back, mine, (size_t)n) == 0, "%s: read_all gave other bytes", name);
  CHECK_MPI(MPI_File_close(&f));
  MPI_Type_free(&tile);
  MPI_Type_free(&stripe_type);
  if (info != MPI_INFO_NULL) MPI_Info_free(&info);
  free(mine);
  free(back);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  io_make_dir();
  round_trip(128 << 10, 0, "large");
  round_trip(128 << 10, 1, "large_forced");
  round_trip(8 << 10, 0, "small");
  io_remove_dir();
  if (rank == 0) printf("%s: OK\n", TEST_NAME);
  MPI_Finalize();
  return 0;
}
