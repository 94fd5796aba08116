/*
 * Datatype engine throughput: MPI_Pack and MPI_Unpack of a strided vector
 * (8-byte blocks, 16-byte stride: every other double) against memcpy of the
 * same number of bytes and against a hand-written loop doing the same
 * gather, at sizes in cache and out of it. One rank is enough:
 *
 *   build/bin/mpirun -n 1 build/tests/bench/pack_throughput [--block 8] [--stride 16]
 *
 * Figures are GB/s of packed data (1 GB = 1e9 bytes), best of several runs.
 */
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static double best_of(int reps, void (*run)(void *), void *arg) {
  double best = 1e30;
  for (int r = 0; r < reps; r++) {
    double t0 = MPI_Wtime();
    run(arg);
    double t = MPI_Wtime() - t0;
    if (t < best) best = t;
  }
  return best;
}

struct job {
  char *strided, *packed, *copy;
  size_t blocks, block, stride;
  MPI_Datatype type;
};

static void do_pack(void *a) {
  struct job *j = a;
  int position = 0;
  MPI_Pack(j->strided, 1, j->type, j->packed, (int)(j->blocks * j->block), &position, MPI_COMM_SELF);
}
static void do_unpack(void *a) {
  struct job *j = a;
  int position = 0;
  MPI_Unpack(j->packed, (int)(j->blocks * j->block), &position, j->strided, 1, j->type, MPI_COMM_SELF);
}
static void do_memcpy(void *a) {
  struct job *j = a;
  memcpy(j->packed, j->copy, j->blocks * j->block);
}
static void do_loop(void *a) {
  struct job *j = a;
  char *out = j->packed;
  const char *in = j->strided;
  if (j->block == 8) {
    for (size_t k = 0; k < j->blocks; k++) memcpy(out + 8 * k, in + j->stride * k, 8);
  } else {
    for (size_t k = 0; k < j->blocks; k++) memcpy(out + j->block * k, in + j->stride * k, j->block);
  }
}

int main(int argc, char **argv) {
  size_t block = 8, stride = 16;
  MPI_Init(&argc, &argv);
  for (int i = 1; i + 1 < argc; i++) {
    if (strcmp(argv[i], "--block") == 0) block = (size_t)atol(argv[++i]);
    else if (strcmp(argv[i], "--stride") == 0) stride = (size_t)atol(argv[++i]);
  }
  if (stride < block) stride = block;
  printf("# strided vector: %zu-byte blocks every %zu bytes; GB/s of packed data, best of runs\n", block, stride);
  printf("# %12s %10s %10s %10s %10s %12s\n", "bytes", "pack", "unpack", "loop", "memcpy", "pack/memcpy");
  static const size_t sizes[] = {(size_t)64 << 10, (size_t)1 << 20, (size_t)16 << 20, (size_t)64 << 20};
  for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
    struct job j;
    j.block = block;
    j.stride = stride;
    j.blocks = sizes[s] / block;
    j.strided = malloc(j.blocks * stride);
    j.packed = malloc(j.blocks * block);
    j.copy = malloc(j.blocks * block);
    memset(j.strided, 1, j.blocks * stride);
    memset(j.packed, 2, j.blocks * block);
    memset(j.copy, 3, j.blocks * block);
    MPI_Type_create_hvector((int)j.blocks, (int)block, (MPI_Aint)stride, MPI_BYTE, &j.type);
    MPI_Type_commit(&j.type);
    int reps = sizes[s] <= ((size_t)1 << 20) ? 200 : 10;
    double bytes = (double)(j.blocks * block);
    double pack = bytes / best_of(reps, do_pack, &j) / 1e9;
    double unpack = bytes / best_of(reps, do_unpack, &j) / 1e9;
    double loop = bytes / best_of(reps, do_loop, &j) / 1e9;
    double copy = bytes / best_of(reps, do_memcpy, &j) / 1e9;
    printf("  %12zu %10.2f %10.2f %10.2f %10.2f %12.2f\n", (size_t)bytes, pack, unpack, loop, copy, pack / copy);
    MPI_Type_free(&j.type);
    free(j.strided), free(j.packed), free(j.copy);
  }
  MPI_Finalize();
  return 0;
}
