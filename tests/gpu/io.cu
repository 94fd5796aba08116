/* MPI-IO on GPU buffers (README "GPU buffers"), at any rank count (run.sh
 * uses 2 and 4 ranks on one GPU): every rank writes its block of a shared
 * file with MPI_File_write_all from device memory through a view, then
 * reads it back with MPI_File_read_all into device memory, byte for byte;
 * 9 MiB per rank, so the independent path cuts it into several pieces.
 * Then the nonblocking independent forms (iwrite_at and iread_at, run by the
 * I/O worker) and a strided memory type on the GPU with read_at_all, which
 * must leave the holes of the buffer as they were. Last, two-phase proper:
 * 1000-byte slots interleaved over the ranks, romio_cb_write/read enable
 * and cb_buffer_size 1 MiB (many rounds), so that the aggregators copy each
 * round's pieces off and onto the GPU (src/io/device_staging.h); judged
 * by a host read through the same view and by read_all back.
 *
 *   gpu_io [DIRECTORY]   the file is DIRECTORY/ferry_gpu_io (default /tmp) */
#define TEST_NAME "gpu_io"
#include "gpu_test.h"

static int rank, size;

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  char path[4096];
  snprintf(path, sizeof path, "%s/ferry_gpu_io", argc > 1 ? argv[1] : "/tmp");
  MPI_File fh;
  CHECK_MPI(MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_RDWR | MPI_MODE_DELETE_ON_CLOSE,
                          MPI_INFO_NULL, &fh));

  /* 1. write_all and read_all through a view: each rank's block at rank * n. */
  const size_t n = (9u << 20) + 4321;
  unsigned char *d = NULL, *back = NULL;
  CHECK_CUDA(cudaMalloc(&d, n));
  CHECK_CUDA(cudaMalloc(&back, n));
  fill(kDevice, d, n, 10 + rank); /* a kernel on the legacy stream, not waited for */
  CHECK_MPI(MPI_File_set_view(fh, (MPI_Offset)rank * n, MPI_BYTE, MPI_BYTE, "native", MPI_INFO_NULL));
  MPI_Status st;
  CHECK_MPI(MPI_File_write_all(fh, d, (int)n, MPI_BYTE, &st));
  int got = 0;
  MPI_Get_count(&st, MPI_BYTE, &got);
  CHECK(got == (int)n, "write_all moved %d bytes of %zu", got, n);
  CHECK_MPI(MPI_File_sync(fh));
  CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
  /* The next rank's block, read by this rank: what it wrote from its GPU. */
  CHECK_MPI(MPI_File_seek(fh, 0, MPI_SEEK_SET));
  int other = (rank + 1) % size;
  CHECK_MPI(MPI_File_set_view(fh, (MPI_Offset)other * n, MPI_BYTE, MPI_BYTE, "native", MPI_INFO_NULL));
  CHECK_MPI(MPI_File_read_all(fh, back, (int)n, MPI_BYTE, &st));
  MPI_Get_count(&st, MPI_BYTE, &got);
  CHECK(got == (int)n, "read_all moved %d bytes of %zu", got, n);
  long bad = mismatch(kDevice, back, n, 10 + other);
  CHECK(bad < 0, "read_all: byte %ld of rank %d's block differs", bad, other);
  /* And with a host buffer, what the file holds. */
  unsigned char* h = (unsigned char*)malloc(n);
  CHECK_MPI(MPI_File_read_at(fh, 0, h, (int)n, MPI_BYTE, &st));
  bad = mismatch(kHost, h, n, 10 + other);
  CHECK(bad < 0, "host read_at: byte %ld of rank %d's block differs", bad, other);
  CHECK_MPI(MPI_File_set_view(fh, 0, MPI_BYTE, MPI_BYTE, "native", MPI_INFO_NULL));
  if (rank == 0) printf("gpu-io write_all/read_all %zu bytes per rank on %d ranks: ok\n", n, size);

  /* 2. iwrite_at / iread_at from and into device memory (the I/O worker). */
  const size_t m = 1u << 20;
  MPI_Offset at = (MPI_Offset)size * n + (MPI_Offset)rank * m;
  fill(kDevice, d, m, 50 + rank);
  MPI_Request r;
  CHECK_MPI(MPI_File_iwrite_at(fh, at, d, (int)m, MPI_BYTE, &r));
  CHECK_MPI(MPI_Wait(&r, &st));
  CHECK_CUDA(cudaMemset(back, 0, m));
  CHECK_MPI(MPI_File_iread_at(fh, at, back, (int)m, MPI_BYTE, &r));
  CHECK_MPI(MPI_Wait(&r, &st));
  MPI_Get_count(&st, MPI_BYTE, &got);
  CHECK(got == (int)m, "iread_at moved %d bytes of %zu", got, m);
  bad = mismatch(kDevice, back, m, 50 + rank);
  CHECK(bad < 0, "iwrite_at/iread_at: byte %ld differs", bad);
  if (rank == 0) printf("gpu-io iwrite_at/iread_at %zu bytes: ok\n", m);

  /* 3. A strided memory type on the GPU: 1000 vectors of 2 blocks of 3 ints
   * every 5, written with write_at_all, read back negated with
   * read_at_all; the holes keep what they held. */
  MPI_Datatype vec;
  CHECK_MPI(MPI_Type_vector(2, 3, 5, MPI_INT, &vec));
  CHECK_MPI(MPI_Type_commit(&vec));
  MPI_Aint lb, extent;
  MPI_Type_get_extent(vec, &lb, &extent);
  const int count = 1000, span_ints = (int)((count - 1) * extent / sizeof(int)) + 8;
  int* hv = (int*)malloc(span_ints * sizeof(int));
  for (int i = 0; i < span_ints; i++) hv[i] = i + rank * 1000000;
  int* dv = NULL;
  CHECK_CUDA(cudaMalloc(&dv, span_ints * sizeof(int)));
  CHECK_CUDA(cudaMemcpy(dv, hv, span_ints * sizeof(int), cudaMemcpyHostToDevice));
  MPI_Offset vat = (MPI_Offset)size * (n + m) + (MPI_Offset)rank * count * 6 * sizeof(int);
  CHECK_MPI(MPI_File_write_at_all(fh, vat, dv, count, vec, &st));
  int* file_ints = (int*)malloc(count * 6 * sizeof(int));
  CHECK_MPI(MPI_File_read_at(fh, vat, file_ints, count * 6, MPI_INT, &st));
  int stride = (int)(extent / sizeof(int));
  for (int e = 0, k = 0; e < count; e++)
    for (int b = 0; b < 2; b++)
      for (int j = 0; j < 3; j++, k++) {
        int want = e * stride + b * 5 + j + rank * 1000000;
        CHECK(file_ints[k] == want, "write_at_all strided: file int %d is %d, expected %d", k, file_ints[k], want);
        file_ints[k] = -file_ints[k];
      }
  CHECK_MPI(MPI_File_write_at(fh, vat, file_ints, count * 6, MPI_INT, &st));
  CHECK_MPI(MPI_File_read_at_all(fh, vat, dv, count, vec, &st));
  int* after = (int*)malloc(span_ints * sizeof(int));
  CHECK_CUDA(cudaMemcpy(after, dv, span_ints * sizeof(int), cudaMemcpyDeviceToHost));
  char* in_block = (char*)calloc(span_ints, 1);
  for (int e = 0; e < count; e++)
    for (int b = 0; b < 2; b++)
      for (int j = 0; j < 3; j++) in_block[e * stride + b * 5 + j] = 1;
  for (int i = 0; i < span_ints; i++) {
    int want = in_block[i] ? -hv[i] : hv[i];
    CHECK(after[i] == want, "read_at_all strided: int %d is %d, expected %d", i, after[i], want);
  }
  if (rank == 0) printf("gpu-io strided write_at_all/read_at_all: ok\n");

  MPI_Type_free(&vec);
  CHECK_MPI(MPI_File_close(&fh));

  /* 4. Interleaved slots through two-phase, a round's pieces at a time. */
  {
    enum { SLOT = 1000, SLOTS = 4000 };
    const size_t n2 = (size_t)SLOT * SLOTS;
    char path2[4200];
    snprintf(path2, sizeof path2, "%s.interleaved", path);
    MPI_Info info;
    MPI_Info_create(&info);
    MPI_Info_set(info, "romio_cb_write", "enable");
    MPI_Info_set(info, "romio_cb_read", "enable");
    MPI_Info_set(info, "cb_buffer_size", "1048576");
    MPI_Datatype slot, tiled;
    CHECK_MPI(MPI_Type_contiguous(SLOT, MPI_BYTE, &slot));
    CHECK_MPI(MPI_Type_create_resized(slot, 0, (MPI_Aint)SLOT * size, &tiled));
    CHECK_MPI(MPI_Type_commit(&tiled));
    MPI_File f2;
    CHECK_MPI(MPI_File_open(MPI_COMM_WORLD, path2, MPI_MODE_CREATE | MPI_MODE_RDWR | MPI_MODE_DELETE_ON_CLOSE, info,
                            &f2));
    CHECK_MPI(MPI_File_set_view(f2, (MPI_Offset)rank * SLOT, MPI_BYTE, tiled, "native", info));
    unsigned char *d2 = NULL, *b2 = NULL;
    CHECK_CUDA(cudaMalloc(&d2, n2));
    CHECK_CUDA(cudaMalloc(&b2, n2));
    fill(kDevice, d2, n2, 70 + rank);
    CHECK_MPI(MPI_File_write_all(f2, d2, (int)n2, MPI_BYTE, &st));
    MPI_Get_count(&st, MPI_BYTE, &got);
    CHECK(got == (int)n2, "interleaved write_all moved %d bytes of %zu", got, n2);
    CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
    unsigned char* h2 = (unsigned char*)malloc(n2);
    CHECK_MPI(MPI_File_read_at(f2, 0, h2, (int)n2, MPI_BYTE, &st));
    bad = mismatch(kHost, h2, n2, 70 + rank);
    CHECK(bad < 0, "interleaved write_all: byte %ld of this rank's slots differs in the file", bad);
    CHECK_CUDA(cudaMemset(b2, 0, n2));
    CHECK_MPI(MPI_File_read_at_all(f2, 0, b2, (int)n2, MPI_BYTE, &st));
    MPI_Get_count(&st, MPI_BYTE, &got);
    CHECK(got == (int)n2, "interleaved read_all moved %d bytes of %zu", got, n2);
    bad = mismatch(kDevice, b2, n2, 70 + rank);
    CHECK(bad < 0, "interleaved read_at_all: byte %ld differs", bad);
    if (rank == 0) printf("gpu-io interleaved two-phase write_all/read_all %zu bytes per rank: ok\n", n2);
    CHECK_MPI(MPI_File_close(&f2));
    MPI_Type_free(&slot);
    MPI_Type_free(&tiled);
    MPI_Info_free(&info);
    cudaFree(d2);
    cudaFree(b2);
    free(h2);
  }
  cudaFree(d);
  cudaFree(back);
  cudaFree(dv);
  free(h);
  free(hv);
  free(file_ints);
  free(after);
  free(in_block);
  MPI_Finalize();
  if (rank == 0) printf("gpu_io: passed\n");
  return 0;
}
