/*
 * Offsets and counts beyond 2 and 4 GiB (the place ROMIO and OMPIO have
 * lost bytes before), in a sparse file:
 *  - each rank writes markers at byte offsets above 4 GiB with write_at, with
 *    the individual pointer after a seek, and through an MPI_INT view whose
 *    etype offset times 4 passes 4 GiB; every marker reads back, the bytes
 *    between stay zero, and the pointer and the file size are exact;
 *  - rank 0 writes one request of 2049 elements of a 1 MiB contiguous type
 *    (2 GiB + 1 MiB, more than an int of bytes) at 6 GiB, the elements
 *    overlapping in memory so that the test holds 9 MiB, not 2 GiB; the
 *    status counts 2049 elements and 2 GiB + 1 MiB bytes, and samples of
 *    every element read back in place.
 */
#define TEST_NAME "io_large"
#include "mpitest.h"
#include "iotest.h"

#define MIB ((MPI_Offset)1 << 20)
#define GIB ((MPI_Offset)1 << 30)
#define ELEMENTS 2049
#define STEP 4096 /* the 1 MiB elements' extent in memory */

static int rank, size;


int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  io_make_dir();
  char path[600];
  io_path("large", path, sizeof path);
  MPI_File fh;
  MPI_Status st;
  CHECK_MPI(MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL, &fh));

  /* Markers above 4 GiB: explicit offset, individual pointer, etype view. */
  int marker[1024], back[1024];
  for (int i = 0; i < 1024; ++i) marker[i] = rank * 1000003 + i + 1;
  MPI_Offset at = 4 * GIB + 12345 + (MPI_Offset)rank * 8192;
  CHECK_MPI(MPI_File_write_at(fh, at, marker, 1024, MPI_INT, &st));
  CHECK(io_status_bytes(&st) == 4096, "write_at above 4 GiB moved %lld bytes", (long long)io_status_bytes(&st));
  MPI_Offset ptr_at = 5 * GIB + 777 + (MPI_Offset)rank * 8192;
  CHECK_MPI(MPI_File_seek(fh, ptr_at, MPI_SEEK_SET));
  CHECK_MPI(MPI_File_write(fh, marker, 16, MPI_INT, &st));
  MPI_Offset pos = 0;
  CHECK_MPI(MPI_File_get_position(fh, &pos));
  CHECK(pos == ptr_at + 64, "the pointer is at %lld after a write at %lld, expected %lld", (long long)pos,
        (long long)ptr_at, (long long)(ptr_at + 64));
  MPI_Barrier(MPI_COMM_WORLD);

  memset(back, 0, sizeof back);
  CHECK_MPI(MPI_File_read_at(fh, at, back, 1024, MPI_INT, &st));
  CHECK(memcmp(back, marker, sizeof marker) == 0, "the marker at %lld reads back wrong", (long long)at);
  CHECK_MPI(MPI_File_read_at(fh, at + 4096, back, 1024, MPI_INT, &st));
  for (int i = 0; i < 1024; ++i) CHECK(back[i] == 0, "byte %d after the marker is not a hole", i * 4);

  /* An etype view: offset (4 GiB + 4 KiB) / 4 etypes. */
  CHECK_MPI(MPI_File_set_view(fh, 0, MPI_INT, MPI_INT, "native", MPI_INFO_NULL));
  MPI_Offset etype_at = (4 * GIB + 4096 * (MPI_Offset)(rank + 1) * 3) / 4;
  CHECK_MPI(MPI_File_write_at(fh, etype_at, marker, 8, MPI_INT, &st));
  MPI_Offset byte_offset = 0;
  CHECK_MPI(MPI_File_get_byte_offset(fh, etype_at, &byte_offset));
  CHECK(byte_offset == etype_at * 4, "get_byte_offset(%lld) is %lld", (long long)etype_at, (long long)byte_offset);
  MPI_Barrier(MPI_COMM_WORLD);
  CHECK_MPI(MPI_File_set_view(fh, 0, MPI_BYTE, MPI_BYTE, "native", MPI_INFO_NULL));
  CHECK_MPI(MPI_File_read_at(fh, etype_at * 4, back, 8, MPI_INT, &st));
  CHECK(memcmp(back, marker, 8 * sizeof(int)) == 0, "the etype-view marker is not at byte %lld",
        (long long)(etype_at * 4));

  /* One request of 2 GiB + 1 MiB, at 6 GiB. The 1 MiB elements overlap in
   * memory (extent 4 KiB; legal for data that is only read, MPI-3.1 §4.1.7),
   * so 9 MiB of memory hold the whole request, and element i's byte o is
   * pattern byte i * 4 KiB + o: a misplaced element or byte shows. */
  MPI_Offset big_at = 6 * GIB;
  MPI_Datatype mib, stepped;
  CHECK_MPI(MPI_Type_contiguous((int)MIB, MPI_BYTE, &mib));
  CHECK_MPI(MPI_Type_create_resized(mib, 0, STEP, &stepped));
  CHECK_MPI(MPI_Type_commit(&stepped));
  size_t pattern_bytes = (size_t)(ELEMENTS - 1) * STEP + (size_t)MIB;
  unsigned char *pattern = mt_malloc(pattern_bytes);
  mt_fill(pattern, pattern_bytes, 77);
  if (rank == 0) {
    CHECK_MPI(MPI_File_write_at(fh, big_at, pattern, ELEMENTS, stepped, &st));
    int count = -1;
    MPI_Count elements = -1;
    CHECK_MPI(MPI_Get_count(&st, stepped, &count));
    CHECK(count == ELEMENTS, "MPI_Get_count says %d elements of 1 MiB, expected %d", count, ELEMENTS);
    CHECK_MPI(MPI_Get_elements_x(&st, MPI_BYTE, &elements));
    CHECK(elements == (MPI_Count)ELEMENTS * MIB, "MPI_Get_elements_x says %lld bytes, expected %lld",
          (long long)elements, (long long)ELEMENTS * MIB);
  }
  MPI_Barrier(MPI_COMM_WORLD);
  /* Every rank samples its share of the elements: their first and last
   * bytes and one inside. */
  for (int i = rank; i < ELEMENTS; i += size) {
    MPI_Offset within[3] = {0, (MPI_Offset)((i * 7919) % (int)(MIB - 8)), MIB - 8};
    for (int k = 0; k < 3; ++k) {
      unsigned char got[8];
      CHECK_MPI(MPI_File_read_at(fh, big_at + i * MIB + within[k], got, 8, MPI_BYTE, &st));
      CHECK(memcmp(got, pattern + (size_t)i * STEP + (size_t)within[k], 8) == 0,
            "element %d, byte %lld (file offset %lld) reads back wrong", i, (long long)within[k],
            (long long)(big_at + i * MIB + within[k]));
    }
  }
  free(pattern);
  CHECK_MPI(MPI_Type_free(&mib));
  CHECK_MPI(MPI_Type_free(&stepped));
  MPI_Offset file_size = 0;
  CHECK_MPI(MPI_File_get_size(fh, &file_size));
  CHECK(file_size == big_at + (MPI_Offset)ELEMENTS * MIB, "file size %lld, expected %lld", (long long)file_size,
        (long long)(big_at + (MPI_Offset)ELEMENTS * MIB));
  CHECK_MPI(MPI_File_close(&fh));

  io_remove_dir();
  mt_pass();
  MPI_Finalize();
  return 0;
}
