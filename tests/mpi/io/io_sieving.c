/*
 * Data sieving of independent accesses (romio_ds_read / romio_ds_write):
 * every rank writes, at the same time and independently (MPI_File_write_at,
 * not collective), its 8-byte slots of an interleaved view, so that the
 * sieving windows of different ranks overlap: each rewrites the others'
 * bytes between its runs, and only the byte-range lock of a window keeps
 * them from undoing each other's data. The file is checked byte for byte,
 * then read back independently; a read that runs past the end of the file
 * returns the short count. Each of enable (with windows of 256 bytes and
 * of 4 KiB), automatic and disable, so that the three paths agree.
 */
#define TEST_NAME "io_sieving"
#include "mpitest.h"
#include "iotest.h"

#define SLOT 8
#define SLOTS 3000 /* per rank */

static int rank, size;

static void run(const char *path, const char *mode, const char *window) {
  MPI_Info info;
  MPI_Info_create(&info);
  MPI_Info_set(info, "romio_ds_write", mode);
  MPI_Info_set(info, "romio_ds_read", mode);
  MPI_Info_set(info, "ind_wr_buffer_size", window);
  MPI_Info_set(info, "ind_rd_buffer_size", window);
  MPI_File fh;
  CHECK_MPI(MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_RDWR, info, &fh));
  MPI_Info_free(&info);
  CHECK_MPI(MPI_File_set_size(fh, 0));

  /* Rank r's slots: slot r of every tile of `size` slots, from byte 16. */
  MPI_Datatype slot, filetype;
  MPI_Type_contiguous(SLOT, MPI_BYTE, &slot);
  MPI_Type_create_resized(slot, 0, (MPI_Aint)SLOT * size, &filetype);
  MPI_Type_commit(&filetype);
  CHECK_MPI(MPI_File_set_view(fh, 16 + (MPI_Offset)SLOT * rank, MPI_BYTE, filetype, "native", MPI_INFO_NULL));

  size_t bytes = (size_t)SLOT * SLOTS;
  unsigned char *data = (unsigned char *)mt_malloc(bytes), *back = (unsigned char *)mt_malloc(bytes + SLOT);
  mt_fill(data, bytes, mt_seed(rank, 9, 9));
  MPI_Status st;
  MPI_Barrier(MPI_COMM_WORLD);
  /* Two calls, the second one starting in the middle of a slot. */
  CHECK_MPI(MPI_File_write_at(fh, 0, data, 1001, MPI_BYTE, &st));
  CHECK_MPI(MPI_File_write_at(fh, 1001, data + 1001, (int)bytes - 1001, MPI_BYTE, &st));
  CHECK(io_status_bytes(&st) == (MPI_Count)bytes - 1001, "%s/%s: write_at reported %lld bytes", mode, window,
        (long long)io_status_bytes(&st));
  CHECK_MPI(MPI_File_sync(fh));
  MPI_Barrier(MPI_COMM_WORLD);
  CHECK_MPI(MPI_File_sync(fh));

  if (rank == 0) {
    size_t n = 0;
    unsigned char *file = io_slurp(path, &n);
    CHECK(n == 16 + bytes * size, "%s/%s: the file has %zu bytes, expected %zu", mode, window, n,
          16 + bytes * size);
    for (int r = 0; r < size; r++) {
      unsigned char *want = (unsigned char *)mt_malloc(bytes);
      mt_fill(want, bytes, mt_seed(r, 9, 9));
      for (size_t s = 0; s < SLOTS; s++)
        CHECK(memcmp(file + 16 + (s * size + r) * SLOT, want + s * SLOT, SLOT) == 0,
              "%s/%s: slot %zu of rank %d is wrong (another rank's window undid it?)", mode, window, s, r);
      free(want);
    }
    free(file);
  }

  /* Read back, independently, one slot more than there is. */
  memset(back, 0, bytes + SLOT);
  CHECK_MPI(MPI_File_read_at(fh, 0, back, (int)(bytes + SLOT), MPI_BYTE, &st));
  CHECK(io_status_bytes(&st) == (MPI_Count)bytes, "%s/%s: read_at past the end reported %lld bytes, expected %zu",
        mode, window, (long long)io_status_bytes(&st), bytes);
  CHECK(memcmp(back, data, bytes) == 0, "%s/%s: read back differs", mode, window);
  CHECK_MPI(MPI_File_close(&fh));
  MPI_Type_free(&slot);
  MPI_Type_free(&filetype);
  free(data);
  free(back);
  MPI_Barrier(MPI_COMM_WORLD);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  io_make_dir();
  char path[600];
  io_path("sieved", path, sizeof path);
  run(path, "enable", "256");
  run(path, "enable", "4096");
  run(path, "automatic", "4194304");
  run(path, "disable", "4096");
  io_remove_dir();
  mt_pass();
  MPI_Finalize();
  return 0;
}
