/*
 * Two-phase collective IO over many rounds, double-buffered or not
 * (ferry_cb_double_buffer, src/io/block_pipeline.h): the file holds, byte for
 * byte, what write_all put there, and read_all brings back each rank's data.
 *
 * A strided view over several MiB: rank r owns 1000-byte blocks (not a
 * divisor of the window, so pieces straddle rounds) at r * 1000 of every
 * tile; with `holes`, each tile ends in 536 bytes that nobody writes, which
 * the aggregators must read and write back unchanged (read-modify-write of a
 * block with holes). cb_buffer_size is 64 KiB: rounds of 20 KiB
 * double-buffered (two blocks and the landing area in 64 KiB), of 32 KiB
 * without. The file is filled with a
 * known pattern first, so a hole written with anything else shows.
 *
 * Every combination of {double-buffered, one block} x {no holes, holes} x
 * {1, 2 aggregators}; MPI_File_get_info reports the hint in effect. With
 * FERRY_DEBUG=io the ctest checks both kinds of round in the debug lines.
 */
#define TEST_NAME "io_double_buffer"
#include "mpitest.h"
#include "iotest.h"

static int rank, size;

enum { BLOCK = 1000, GAP = 536, TILES = 1500 };

static unsigned char before_byte(size_t i) { return (unsigned char)(i * 31 + 7); }

static void expect_hint(MPI_File fh, const char *key, const char *want) {
  MPI_Info used;
  char value[MPI_MAX_INFO_VAL + 1];
  int flag = 0;
  CHECK_MPI(MPI_File_get_info(fh, &used));
  CHECK_MPI(MPI_Info_get(used, key, MPI_MAX_INFO_VAL, value, &flag));
  CHECK(flag, "get_info: no hint %s", key);
  CHECK(strcmp(value, want) == 0, "get_info: %s is \"%s\", expected \"%s\"", key, value, want);
  MPI_Info_free(&used);
}

static void one_case(int double_buffer, int holes, int aggregators) {
  const char *what = double_buffer ? "enable" : "disable";
  const long tile = (long)BLOCK * size + (holes ? GAP : 0);
  const size_t mine = (size_t)BLOCK * TILES;
  const size_t file_bytes = (size_t)tile * TILES;
  char path[600];
  io_path(double_buffer ? "db" : "single", path, sizeof path);

  /* The file as it was: a pattern under every byte the write may touch. */
  if (rank == 0) {
    unsigned char *old = (unsigned char *)mt_malloc(file_bytes);
    for (size_t i = 0; i < file_bytes; i++) old[i] = before_byte(i);
    int fd = open(path, O_CREAT | O_TRUNC | O_WRONLY, 0600);
    CHECK(fd >= 0, "open(%s): %s", path, strerror(errno));
    CHECK(pwrite(fd, old, file_bytes, 0) == (ssize_t)file_bytes, "pwrite: %s", strerror(errno));
    close(fd);
    free(old);
  }
  MPI_Barrier(MPI_COMM_WORLD);

  MPI_Info info;
  char nodes[16];
  snprintf(nodes, sizeof nodes, "%d", aggregators);
  MPI_Info_create(&info);
  MPI_Info_set(info, "cb_buffer_size", "65536");
  MPI_Info_set(info, "cb_nodes", nodes);
  MPI_Info_set(info, "romio_cb_write", "enable");
  MPI_Info_set(info, "romio_cb_read", "enable");
  MPI_Info_set(info, "ferry_cb_double_buffer", what);

  MPI_Datatype block, filetype;
  MPI_Type_contiguous(BLOCK, MPI_BYTE, &block);
  MPI_Type_create_resized(block, 0, tile, &filetype);
  MPI_Type_commit(&filetype);
  MPI_Type_free(&block);

  unsigned char *data = (unsigned char *)mt_malloc(mine);
  uint32_t seed = mt_seed(rank, (uint32_t)(double_buffer * 4 + holes * 2 + aggregators), 17);
  mt_fill(data, mine, seed);
  MPI_File fh;
  MPI_Status st;
  CHECK_MPI(MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_RDWR, info, &fh));
  if (mt_is_ferry()) expect_hint(fh, "ferry_cb_double_buffer", what);
  CHECK_MPI(MPI_File_set_view(fh, (MPI_Offset)BLOCK * rank, MPI_BYTE, filetype, "native", info));
  CHECK_MPI(MPI_File_write_all(fh, data, (int)mine, MPI_BYTE, &st));
  CHECK(io_status_bytes(&st) == (long long)mine, "write_all (%s, holes %d, %d aggregators): %lld bytes", what, holes,
        aggregators, (long long)io_status_bytes(&st));
  CHECK_MPI(MPI_File_close(&fh));

  /* Byte for byte: each rank's blocks where its view puts them, the old
   * pattern in the holes. Rank 0 judges with every rank's seed. */
  if (rank == 0) {
    size_t got_bytes = 0;
    unsigned char *got = io_slurp(path, &got_bytes);
    CHECK(got_bytes == file_bytes, "file is %zu bytes, expected %zu", got_bytes, file_bytes);
    for (size_t i = 0; i < file_bytes; i++) {
      size_t t = i / (size_t)tile, in = i % (size_t)tile;
      unsigned char want;
      if (in < (size_t)BLOCK * size) {
        int owner = (int)(in / BLOCK);
        uint32_t s = mt_seed(owner, (uint32_t)(double_buffer * 4 + holes * 2 + aggregators), 17);
        want = mt_byte(s, t * BLOCK + in % BLOCK);
      } else {
        want = before_byte(i);
      }
      CHECK(got[i] == want, "%s, holes %d, %d aggregators: file byte %zu is %u, expected %u (%s)", what, holes,
            aggregators, i, got[i], want, in < (size_t)BLOCK * size ? "data" : "hole");
    }
    free(got);
  }

  /* And back through read_all. */
  memset(data, 0, mine);
  CHECK_MPI(MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_RDONLY, info, &fh));
  CHECK_MPI(MPI_File_set_view(fh, (MPI_Offset)BLOCK * rank, MPI_BYTE, filetype, "native", info));
  CHECK_MPI(MPI_File_read_all(fh, data, (int)mine, MPI_BYTE, &st));
  CHECK(io_status_bytes(&st) == (long long)mine, "read_all: %lld bytes", (long long)io_status_bytes(&st));
  CHECK_PATTERN(data, mine, seed, "read_all (%s, holes %d, %d aggregators)", what, holes, aggregators);
  CHECK_MPI(MPI_File_close(&fh));

  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 0) unlink(path);
  MPI_Type_free(&filetype);
  MPI_Info_free(&info);
  free(data);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  io_make_dir();
  for (int double_buffer = 1; double_buffer >= 0; double_buffer--)
    for (int holes = 0; holes <= 1; holes++)
      for (int aggregators = 1; aggregators <= 2 && aggregators <= size; aggregators++)
        one_case(double_buffer, holes, aggregators);
  io_remove_dir();
  mt_pass();
  MPI_Finalize();
  return 0;
}
