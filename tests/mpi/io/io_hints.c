/*
 * The hints in effect (MPI-3.1 §13.2.8): MPI_File_get_info reports every
 * hint Ferry acts on, with its value in effect (defaults included), keeps
 * the keys it does not know, ignores invalid values (the previous value
 * stays), and MPI_File_set_info / MPI_File_set_view change them. Then a
 * collective write of an interleaved pattern runs under them (with
 * FERRY_DEBUG=io the test's registration checks the line that says which
 * aggregators and rounds it used) and the file is checked.
 */
#define TEST_NAME "io_hints"
#include "mpitest.h"
#include "iotest.h"

static void expect(MPI_File fh, const char *key, const char *want) {
  MPI_Info used;
  char value[MPI_MAX_INFO_VAL + 1] = "";
  int flag = 0;
  CHECK_MPI(MPI_File_get_info(fh, &used));
  CHECK_MPI(MPI_Info_get(used, key, MPI_MAX_INFO_VAL, value, &flag));
  CHECK(flag, "get_info: no hint %s (expected \"%s\")", key, want);
  CHECK(strcmp(value, want) == 0, "get_info: %s is \"%s\", expected \"%s\"", key, value, want);
  MPI_Info_free(&used);
}

int main(int argc, char **argv) {
  int rank, size;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  io_make_dir();
  char path[600];
  io_path("hinted", path, sizeof path);

  MPI_Info info;
  MPI_Info_create(&info);
  MPI_Info_set(info, "cb_buffer_size", "8192");
  MPI_Info_set(info, "cb_nodes", "2");
  MPI_Info_set(info, "romio_cb_write", "enable");
  MPI_Info_set(info, "striping_unit", "not-a-number"); /* ignored: the default stays */
  MPI_Info_set(info, "romio_ds_read", "sometimes");    /* ignored */
  MPI_Info_set(info, "app_private_key", "kept");
  MPI_File fh;
  CHECK_MPI(MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_RDWR, info, &fh));
  MPI_Info_free(&info);

  if (mt_is_ferry()) {
    expect(fh, "cb_buffer_size", "8192");
    expect(fh, "cb_nodes", "2");
    expect(fh, "romio_cb_write", "enable");
    expect(fh, "romio_cb_read", "automatic");
    expect(fh, "romio_ds_read", "automatic");
    expect(fh, "romio_ds_write", "automatic");
    expect(fh, "striping_unit", "4096");
    expect(fh, "cb_config_list", "*:1");
    expect(fh, "ind_rd_buffer_size", "4194304");
    expect(fh, "ind_wr_buffer_size", "524288");
    expect(fh, "ferry_cb_double_buffer", "enable");
  }
  expect(fh, "app_private_key", "kept");

  /* set_info: a bad value leaves the old one, a good one replaces it. */
  MPI_Info_create(&info);
  MPI_Info_set(info, "cb_buffer_size", "-5");
  MPI_Info_set(info, "romio_cb_read", "disable");
  MPI_Info_set(info, "cb_config_list", "*:3");
  CHECK_MPI(MPI_File_set_info(fh, info));
  MPI_Info_free(&info);
  if (mt_is_ferry()) {
    expect(fh, "cb_buffer_size", "8192");
    expect(fh, "romio_cb_read", "disable");
    expect(fh, "cb_config_list", "*:3");
  }
  /* set_view's info joins them. */
  MPI_Info_create(&info);
  MPI_Info_set(info, "cb_buffer_size", "4096");
  MPI_Datatype stripe, filetype;
  MPI_Type_contiguous(100, MPI_BYTE, &stripe);
  MPI_Type_create_resized(stripe, 0, 100L * size, &filetype);
  MPI_Type_commit(&filetype);
  CHECK_MPI(MPI_File_set_view(fh, 100L * rank, MPI_BYTE, filetype, "native", info));
  MPI_Info_free(&info);
  if (mt_is_ferry()) expect(fh, "cb_buffer_size", "4096");

  /* An interleaved write under these hints: 64 stripes of 100 bytes each. */
  enum { STRIPES = 64 };
  unsigned char data[STRIPES * 100];
  mt_fill(data, sizeof data, mt_seed(rank, 5, 5));
  MPI_Status st;
  CHECK_MPI(MPI_File_write_all(fh, data, sizeof data, MPI_BYTE, &st));
  CHECK(io_status_bytes(&st) == (MPI_Count)sizeof data, "write_all: %lld bytes", (long long)io_status_bytes(&st));
  CHECK_MPI(MPI_File_sync(fh));
  MPI_Barrier(MPI_COMM_WORLD);
  size_t bytes = 0;
  unsigned char *file = io_slurp(path, &bytes);
  CHECK(bytes == (size_t)STRIPES * 100 * size, "the file has %zu bytes", bytes);
  for (int r = 0; r < size; r++) {
    unsigned char want[STRIPES * 100];
    mt_fill(want, sizeof want, mt_seed(r, 5, 5));
    for (int s = 0; s < STRIPES; s++)
      CHECK(memcmp(file + ((size_t)s * size + r) * 100, want + s * 100, 100) == 0, "stripe %d of rank %d is wrong",
            s, r);
  }
  free(file);
  CHECK_MPI(MPI_File_close(&fh));
  MPI_Type_free(&stripe);
  MPI_Type_free(&filetype);
  io_remove_dir();
  mt_pass();
  MPI_Finalize();
  return 0;
}
