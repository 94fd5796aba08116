/*
 * A real MPI-IO client: parallel HDF5 (Debian's libhdf5-mpich-dev, built
 * for MPICH), compiled with h5pcc.mpich and run under Ferry's mpirun against
 * Ferry's libmpi through the MPICH ABI. Its MPI-IO driver sets views with
 * derived types and calls write_at_all/read_at_all, set_size, get_size,
 * sync and get_info. Four ranks (any count works) write a contiguous and a
 * chunked 3-D dataset by hyperslabs, block-decomposed along the first two
 * dimensions, with collective (H5FD_MPIO_COLLECTIVE) and independent
 * transfers, close the file, reopen it and read every value back both ways.
 */
#include <hdf5.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define NX 40
#define NY 36
#define NZ 28

static int rank;

#define CHECK_H5(call)                                                                 \
  do {                                                                                \
    if ((call) < 0) {                                                                 \
      fprintf(stderr, "hdf5_client: rank %d: FAILED: %s (line %d)\n", rank, #call, __LINE__); \
      MPI_Abort(MPI_COMM_WORLD, 1);                                                   \
    }                                                                                 \
  } while (0)

static double value(int set, hsize_t i, hsize_t j, hsize_t k) { return set * 1e7 + i * 1e4 + j * 1e2 + k + 0.25; }

int main(int argc, char **argv) {
  int size;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const char *dir = getenv("TMPDIR");
  char path[512];
  if (rank == 0) snprintf(path, sizeof path, "%s/ferry-hdf5-%d.h5", dir && *dir ? dir : "/tmp", (int)getpid());
  MPI_Bcast(path, sizeof path, MPI_CHAR, 0, MPI_COMM_WORLD);

  /* This rank's block of the first two dimensions. */
  int dims[2] = {0, 0};
  MPI_Dims_create(size, 2, dims);
  int cx = rank / dims[1], cy = rank % dims[1];
  hsize_t start[3], count[3], global[3] = {NX, NY, NZ};
  start[0] = (hsize_t)cx * NX / dims[0];
  count[0] = (hsize_t)(cx + 1) * NX / dims[0] - start[0];
  start[1] = (hsize_t)cy * NY / dims[1];
  count[1] = (hsize_t)(cy + 1) * NY / dims[1] - start[1];
  start[2] = 0;
  count[2] = NZ;
  size_t cells = count[0] * count[1] * count[2];
  double *block = malloc(cells * sizeof(double)), *back = malloc(cells * sizeof(double));

  /* Write: datasets 0 and 1 contiguous, 2 and 3 chunked; even ones
   * collectively, odd ones independently. */
  hid_t fapl = H5Pcreate(H5P_FILE_ACCESS);
  CHECK_H5(H5Pset_fapl_mpio(fapl, MPI_COMM_WORLD, MPI_INFO_NULL));
  hid_t file = H5Fcreate(path, H5F_ACC_TRUNC, H5P_DEFAULT, fapl);
  CHECK_H5(file);
  hid_t filespace = H5Screate_simple(3, global, NULL);
  hid_t memspace = H5Screate_simple(3, count, NULL);
  CHECK_H5(H5Sselect_hyperslab(filespace, H5S_SELECT_SET, start, NULL, count, NULL));
  for (int set = 0; set < 4; set++) {
    hid_t dcpl = H5Pcreate(H5P_DATASET_CREATE);
    if (set >= 2) {
      hsize_t chunk[3] = {8, 8, 8};
      CHECK_H5(H5Pset_chunk(dcpl, 3, chunk));
    }
    char name[16];
    snprintf(name, sizeof name, "set%d", set);
    hid_t space = H5Screate_simple(3, global, NULL);
    hid_t dset = H5Dcreate2(file, name, H5T_NATIVE_DOUBLE, space, H5P_DEFAULT, dcpl, H5P_DEFAULT);
    CHECK_H5(dset);
    size_t c = 0;
    for (hsize_t i = 0; i < count[0]; i++)
      for (hsize_t j = 0; j < count[1]; j++)
        for (hsize_t k = 0; k < count[2]; k++) block[c++] = value(set, start[0] + i, start[1] + j, k);
    hid_t dxpl = H5Pcreate(H5P_DATASET_XFER);
    CHECK_H5(H5Pset_dxpl_mpio(dxpl, set % 2 == 0 ? H5FD_MPIO_COLLECTIVE : H5FD_MPIO_INDEPENDENT));
    CHECK_H5(H5Dwrite(dset, H5T_NATIVE_DOUBLE, memspace, filespace, dxpl, block));
    H5Pclose(dxpl);
    H5Dclose(dset);
    H5Sclose(space);
    H5Pclose(dcpl);
  }
  CHECK_H5(H5Fclose(file));

  /* Read back, each dataset both ways. */
  file = H5Fopen(path, H5F_ACC_RDONLY, fapl);
  CHECK_H5(file);
  for (int set = 0; set < 4; set++) {
    char name[16];
    snprintf(name, sizeof name, "set%d", set);
    hid_t dset = H5Dopen2(file, name, H5P_DEFAULT);
    CHECK_H5(dset);
    for (int way = 0; way < 2; way++) {
      hid_t dxpl = H5Pcreate(H5P_DATASET_XFER);
      CHECK_H5(H5Pset_dxpl_mpio(dxpl, way == 0 ? H5FD_MPIO_COLLECTIVE : H5FD_MPIO_INDEPENDENT));
      memset(back, 0, cells * sizeof(double));
      CHECK_H5(H5Dread(dset, H5T_NATIVE_DOUBLE, memspace, filespace, dxpl, back));
      size_t c = 0;
      for (hsize_t i = 0; i < count[0]; i++)
        for (hsize_t j = 0; j < count[1]; j++)
          for (hsize_t k = 0; k < count[2]; k++, c++)
            if (back[c] != value(set, start[0] + i, start[1] + j, k)) {
              fprintf(stderr, "hdf5_client: rank %d: FAILED: %s read %s: (%llu,%llu,%llu) is %.2f, expected %.2f\n",
                      rank, name, way == 0 ? "collectively" : "independently", (unsigned long long)(start[0] + i),
                      (unsigned long long)(start[1] + j), (unsigned long long)k, back[c],
                      value(set, start[0] + i, start[1] + j, k));
              MPI_Abort(MPI_COMM_WORLD, 1);
            }
      H5Pclose(dxpl);
    }
    H5Dclose(dset);
  }
  CHECK_H5(H5Fclose(file));
  H5Sclose(memspace);
  H5Sclose(filespace);
  H5Pclose(fapl);
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 0) {
    remove(path);
    printf("hdf5_client: OK on %d ranks\n", size);
  }
  free(block);
  free(back);
  MPI_Finalize();
  return 0;
}
