/*
 * The pattern of simulation checkpoints (and parallel HDF5): a 3-D array of
 * doubles, block-decomposed over the ranks (uneven blocks: 23 x 19 x 17),
 * each rank's block held in memory with a ghost layer (so the memory type
 * is a subarray too), written through a subarray file view after a header
 * with MPI_File_write_all, checked value by value with plain reads, then
 * read back with MPI_File_read_all and independently (read_at, and read
 * with the file pointer). Ghost cells must stay untouched.
 *
 * With the argument "rounds" the same runs through two-phase collective
 * buffering forced on (romio_cb_write/read=enable), with 4 KiB rounds and
 * two aggregators per host: hundreds of rounds, domains split between
 * aggregators in the middle of rows.
 */
#define TEST_NAME "io_subarray3d"
#include "mpitest.h"
#include "iotest.h"

static const int G[3] = {23, 19, 17};
#define HEADER 96 /* bytes before the array: the view's displacement */
#define GHOST -7.25

static double value(int i, int j, int k) { return i * 1e6 + j * 1e3 + k + 0.5; }

int main(int argc, char **argv) {
  int rank, size, dims[3] = {0, 0, 0}, periods[3] = {0, 0, 0}, coords[3];
  int L[3], S[3], M[3], one[3] = {1, 1, 1};
  MPI_Comm cart;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  MPI_Dims_create(size, 3, dims);
  MPI_Cart_create(MPI_COMM_WORLD, 3, dims, periods, 0, &cart);
  MPI_Cart_coords(cart, rank, 3, coords);
  for (int d = 0; d < 3; d++) {
    int base = G[d] / dims[d], extra = G[d] % dims[d];
    L[d] = base + (coords[d] < extra);
    S[d] = coords[d] * base + (coords[d] < extra ? coords[d] : extra);
    M[d] = L[d] + 2;
  }
  io_make_dir();
  char path[600];
  io_path("array", path, sizeof path);

  MPI_Datatype filetype, memtype;
  MPI_Type_create_subarray(3, G, L, S, MPI_ORDER_C, MPI_DOUBLE, &filetype);
  MPI_Type_create_subarray(3, M, L, one, MPI_ORDER_C, MPI_DOUBLE, &memtype);
  MPI_Type_commit(&filetype);
  MPI_Type_commit(&memtype);

  size_t cells = (size_t)M[0] * M[1] * M[2];
  double *block = (double *)mt_malloc(cells * sizeof(double));
#define AT(a, i, j, k) (a)[((size_t)(i) * M[1] + (j)) * M[2] + (k)]
  for (size_t c = 0; c < cells; c++) block[c] = GHOST;
  for (int i = 0; i < L[0]; i++)
    for (int j = 0; j < L[1]; j++)
      for (int k = 0; k < L[2]; k++) AT(block, i + 1, j + 1, k + 1) = value(S[0] + i, S[1] + j, S[2] + k);

  /* Write: a header by rank 0, the array collectively through the view. */
  MPI_File fh;
  MPI_Status st;
  int count = -1;
  MPI_Info info = MPI_INFO_NULL;
  if (argc > 1 && strcmp(argv[1], "rounds") == 0) {
    MPI_Info_create(&info);
    MPI_Info_set(info, "romio_cb_write", "enable");
    MPI_Info_set(info, "romio_cb_read", "enable");
    MPI_Info_set(info, "cb_buffer_size", "4096");
    MPI_Info_set(info, "cb_config_list", "*:2");
  }
  CHECK_MPI(MPI_File_open(cart, path, MPI_MODE_CREATE | MPI_MODE_RDWR, info, &fh));
  if (info != MPI_INFO_NULL) MPI_Info_free(&info);
  if (rank == 0) CHECK_MPI(MPI_File_write_at(fh, 0, "ferry subarray test header", 26, MPI_CHAR, &st));
  CHECK_MPI(MPI_File_set_view(fh, HEADER, MPI_DOUBLE, filetype, "native", MPI_INFO_NULL));
  CHECK_MPI(MPI_File_write_all(fh, block, 1, memtype, &st));
  MPI_Get_count(&st, memtype, &count);
  CHECK(count == 1, "write_all: status count %d of the memory type, expected 1", count);
  MPI_Get_elements(&st, MPI_DOUBLE, &count);
  CHECK(count == L[0] * L[1] * L[2], "write_all: %d doubles, expected %d", count, L[0] * L[1] * L[2]);

  /* The view's queries. */
  MPI_Offset disp = -1, byte = -1;
  MPI_Datatype etype_out, filetype_out;
  char datarep[MPI_MAX_DATAREP_STRING];
  CHECK_MPI(MPI_File_get_view(fh, &disp, &etype_out, &filetype_out, datarep));
  CHECK(disp == HEADER && etype_out == MPI_DOUBLE && strcmp(datarep, "native") == 0,
        "get_view: disp %lld, datarep %s", (long long)disp, datarep);
  /* A new type the caller frees, with the filetype's data and extent. */
  int tsize = 0;
  MPI_Aint lb = -1, ext = -1;
  MPI_Type_size(filetype_out, &tsize);
  MPI_Type_get_extent(filetype_out, &lb, &ext);
  CHECK(tsize == L[0] * L[1] * L[2] * 8 && lb == 0 && ext == (MPI_Aint)G[0] * G[1] * G[2] * 8,
        "get_view: filetype of size %d, lb %ld, extent %ld", tsize, (long)lb, (long)ext);
  MPI_Type_free(&filetype_out);
  /* Etype offset L[2] is the first double of this block's second row. */
  CHECK_MPI(MPI_File_get_byte_offset(fh, L[2], &byte));
  MPI_Offset want = HEADER + (((MPI_Offset)S[0] * G[1] + S[1] + 1) * G[2] + S[2]) * 8;
  CHECK(byte == want, "get_byte_offset(%d) gave %lld, expected %lld", L[2], (long long)byte, (long long)want);
  MPI_Aint extent = 0;
  CHECK_MPI(MPI_File_get_type_extent(fh, filetype, &extent));
  CHECK(extent == (MPI_Aint)G[0] * G[1] * G[2] * 8, "get_type_extent gave %ld", (long)extent);
  CHECK_MPI(MPI_File_sync(fh));
  MPI_Barrier(cart);
  CHECK_MPI(MPI_File_sync(fh));

  /* Every value where it belongs, by plain reads (every rank checks all). */
  size_t bytes = 0;
  unsigned char *file = io_slurp(path, &bytes);
  CHECK(bytes == HEADER + (size_t)G[0] * G[1] * G[2] * 8, "the file has %zu bytes", bytes);
  CHECK(memcmp(file, "ferry subarray test header", 26) == 0, "the header is wrong");
  for (int i = 0; i < G[0]; i++)
    for (int j = 0; j < G[1]; j++)
      for (int k = 0; k < G[2]; k++) {
        double v;
        memcpy(&v, file + HEADER + (((size_t)i * G[1] + j) * G[2] + k) * 8, 8);
        CHECK(v == value(i, j, k), "file element (%d,%d,%d) is %.1f, expected %.1f", i, j, k, v, value(i, j, k));
      }
  free(file);

  /* Read back: collectively, at an explicit offset, with the pointer. */
  double *back = (double *)mt_malloc(cells * sizeof(double));
  for (int way = 0; way < 3; way++) {
    for (size_t c = 0; c < cells; c++) back[c] = GHOST;
    if (way == 0) {
      CHECK_MPI(MPI_File_seek(fh, 0, MPI_SEEK_SET));
      CHECK_MPI(MPI_File_read_all(fh, back, 1, memtype, &st));
    } else if (way == 1) {
      CHECK_MPI(MPI_File_read_at(fh, 0, back, 1, memtype, &st));
    } else {
      CHECK_MPI(MPI_File_seek(fh, 0, MPI_SEEK_SET));
      CHECK_MPI(MPI_File_read(fh, back, 1, memtype, &st));
    }
    MPI_Get_count(&st, memtype, &count);
    CHECK(count == 1, "read way %d: status count %d", way, count);
    for (size_t c = 0; c < cells; c++)
      CHECK(back[c] == block[c], "read way %d: cell %zu is %.2f, expected %.2f", way, c, back[c], block[c]);
  }
  CHECK_MPI(MPI_File_close(&fh));

  free(block);
  free(back);
  MPI_Type_free(&filetype);
  MPI_Type_free(&memtype);
  MPI_Comm_free(&cart);
  io_remove_dir();
  mt_pass();
  MPI_Finalize();
  return 0;
}
