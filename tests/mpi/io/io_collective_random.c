/*
 * A randomized differential test of the collective data path: many
 * generated views (interleaved slots of random sizes, holes that nobody
 * writes, zero-length pieces, resized, struct-wrapped and nested types, a
 * displacement, an offset inside the view, dense and strided memory), each
 * written with MPI_File_write_at_all under random collective-buffering
 * hints (tiny cb_buffer_size: many rounds; cb_nodes; striping_unit;
 * romio_cb_write enable/automatic/disable; ferry_cb_double_buffer enable or
 * disable). The reference is the same data written to a second file by
 * each rank with plain pwrite calls, one per piece, from the test's own map
 * of the view; the two files must be equal
 * byte for byte. Then MPI_File_read_at_all reads the data back through the
 * view, and every byte (and every gap of a strided memory type) is checked.
 *
 * Usage: io_collective_random [seed [iterations]]. The seed is printed; the
 * same seed and rank count reproduce a failure.
 */
#define TEST_NAME "io_collective_random"
#include "mpitest.h"
#include "iotest.h"

#include <time.h>

#define MAX_SLOTS 24
#define GAP_BYTE 0x5A

static int rank, size;

/* The generator every rank runs alike (xorshift64*). */
static uint64_t rng_state;
static uint64_t rnd(void) {
  rng_state ^= rng_state >> 12;
  rng_state ^= rng_state << 25;
  rng_state ^= rng_state >> 27;
  return rng_state * 0x2545F4914F6CDD1Dull;
}
static int pick(int n) { return (int)(rnd() % (uint64_t)n); }

/* One tile of the file: slots at offsets, each owned by a rank or by nobody. */
struct Tile {
  int slots;
  int offset[MAX_SLOTS], len[MAX_SLOTS], owner[MAX_SLOTS];
  int extent;
};

/* This rank's pieces of one tile, in file order. */
static int my_pieces(const struct Tile *t, int *off, int *len) {
  int n = 0;
  for (int s = 0; s < t->slots; s++)
    if (t->owner[s] == rank) {
      off[n] = t->offset[s];
      len[n] = t->len[s];
      n++;
    }
  return n;
}

/* The filetype in one of several spellings of the same map. */
static MPI_Datatype make_filetype(const struct Tile *t, int spelling) {
  int off[MAX_SLOTS], len[MAX_SLOTS];
  int n = my_pieces(t, off, len);
  MPI_Aint disps[MAX_SLOTS + 1];
  int lens[MAX_SLOTS + 1];
  for (int i = 0; i < n; i++) {
    disps[i] = off[i];
    lens[i] = len[i];
  }
  MPI_Datatype inner, resized, out;
  MPI_Type_create_hindexed(n, lens, disps, MPI_BYTE, &inner);
  if (spelling == 1) {
    /* A struct with a zero-length member in front of the pieces. */
    int blens[2] = {0, 1};
    MPI_Aint sdisps[2] = {0, 0};
    MPI_Datatype types[2] = {MPI_INT, inner}, st;
    MPI_Type_create_struct(2, blens, sdisps, types, &st);
    MPI_Type_free(&inner);
    inner = st;
  }
  MPI_Type_create_resized(inner, 0, t->extent, &resized);
  MPI_Type_free(&inner);
  if (spelling == 2) {
    /* Two tiles as one element: the same map, nested. */
    MPI_Datatype two;
    MPI_Type_contiguous(2, resized, &two);
    MPI_Type_free(&resized);
    resized = two;
  }
  out = resized;
  MPI_Type_commit(&out);
  return out;
}

/* File offset of byte `p` of this rank's view data (pieces of tile k at
 * disp + k * extent). */
static long file_offset_of(const struct Tile *t, long disp, long p, long *run_left) {
  int off[MAX_SLOTS], len[MAX_SLOTS];
  int n = my_pieces(t, off, len);
  long per_tile = 0;
  for (int i = 0; i < n; i++) per_tile += len[i];
  long tile = p / per_tile, in = p % per_tile;
  for (int i = 0; i < n; i++) {
    if (in < len[i]) {
      *run_left = len[i] - in;
      return disp + tile * t->extent + off[i] + in;
    }
    in -= len[i];
  }
  CHECK(0, "file_offset_of: position %ld not found", p);
  return -1;
}

static void iteration(int it, const char *path_mpi, const char *path_ref, MPI_File fh, int fd_ref) {
  /* The tile: slots with gaps (holes), some of length 0, random owners. */
  struct Tile t;
  t.slots = 1 + pick(MAX_SLOTS);
  int at = pick(8);
  for (int s = 0; s < t.slots; s++) {
    t.offset[s] = at;
    t.len[s] = pick(6) == 0 ? 0 : 1 + pick(40);
    t.owner[s] = pick(size + 1) - 1; /* -1: a hole nobody writes */
    at += t.len[s] + (pick(3) == 0 ? pick(17) : 0);
  }
  t.extent = at + pick(9);
  int spelling = pick(3);
  long disp = pick(100);
  int tiles = 1 + pick(6);

  /* Hints for this round, the same on every rank. */
  static const char *cb_sizes[] = {"64", "333", "4096", "1048576"};
  static const char *units[] = {"1", "8", "4096"};
  static const char *modes[] = {"enable", "enable", "automatic", "disable"};
  char nodes[16];
  snprintf(nodes, sizeof nodes, "%d", 1 + pick(size));
  MPI_Info info;
  MPI_Info_create(&info);
  MPI_Info_set(info, "cb_buffer_size", cb_sizes[pick(4)]);
  MPI_Info_set(info, "striping_unit", units[pick(3)]);
  MPI_Info_set(info, "cb_nodes", nodes);
  const char *mode = modes[pick(4)];
  MPI_Info_set(info, "romio_cb_write", mode);
  MPI_Info_set(info, "romio_cb_read", mode);
  MPI_Info_set(info, "ferry_cb_double_buffer", pick(2) ? "enable" : "disable");

  /* This rank's share: a random part of its data in `tiles` tiles, from a
   * random offset inside the view; dense or strided memory. */
  int off[MAX_SLOTS], len[MAX_SLOTS];
  int n = my_pieces(&t, off, len);
  long per_tile = 0;
  for (int i = 0; i < n; i++) per_tile += len[i];
  long mine = per_tile * tiles * (spelling == 2 ? 2 : 1);
  /* Per-rank choices from a word of the shared stream that every rank
   * draws alike (drawing per rank would split the stream). */
  uint64_t own = mt_word((uint32_t)rnd(), (uint64_t)rank);
  long start = mine > 0 ? (long)(own % (uint64_t)(mine / 2 + 1)) : 0;
  own = mt_word((uint32_t)own, 1);
  long bytes = mine > 0 ? (long)(own % (uint64_t)(mine - start + 1)) : 0;
  int strided = (int)((own >> 40) & 1);
  if (strided) bytes &= ~1L; /* whole 2-byte elements */
  uint32_t seed = mt_seed((uint32_t)it, (uint32_t)rank, 77);

  /* Memory: dense bytes, or 2 data bytes in every 3 (a resized type). */
  MPI_Datatype memtype = MPI_BYTE, pair;
  int count = (int)bytes;
  size_t mem_bytes = (size_t)bytes;
  if (strided) {
    MPI_Type_contiguous(2, MPI_BYTE, &pair);
    MPI_Type_create_resized(pair, 0, 3, &memtype);
    MPI_Type_free(&pair);
    MPI_Type_commit(&memtype);
    count = (int)(bytes / 2);
    mem_bytes = (size_t)count * 3;
  }
  unsigned char *data = (unsigned char *)mt_malloc(bytes + 1);
  unsigned char *mem = (unsigned char *)mt_malloc(mem_bytes + 1);
  mt_fill(data, (size_t)bytes, seed);
  memset(mem, GAP_BYTE, mem_bytes + 1);
  for (long i = 0; i < bytes; i++) mem[strided ? (i / 2) * 3 + i % 2 : i] = data[i];

  /* Both files empty. */
  CHECK_MPI(MPI_File_set_size(fh, 0));
  if (rank == 0) CHECK(ftruncate(fd_ref, 0) == 0, "ftruncate: %s", strerror(errno));
  MPI_Barrier(MPI_COMM_WORLD);

  MPI_Datatype filetype = make_filetype(&t, spelling);
  CHECK_MPI(MPI_File_set_info(fh, info));
  CHECK_MPI(MPI_File_set_view(fh, disp, MPI_BYTE, filetype, "native", MPI_INFO_NULL));
  MPI_Status st;
  CHECK_MPI(MPI_File_write_at_all(fh, start, mem, count, memtype, &st));
  CHECK(io_status_bytes(&st) == bytes, "iteration %d: write_at_all reported %lld bytes, expected %ld", it,
        (long long)io_status_bytes(&st), bytes);

  /* The reference: one pwrite per piece. */
  for (long p = 0; p < bytes;) {
    long left = 0, o = file_offset_of(&t, disp, start + p, &left);
    if (left > bytes - p) left = bytes - p;
    CHECK(pwrite(fd_ref, data + p, (size_t)left, (off_t)o) == left, "pwrite: %s", strerror(errno));
    p += left;
  }
  CHECK_MPI(MPI_File_sync(fh));
  MPI_Barrier(MPI_COMM_WORLD);

  if (rank == 0) {
    size_t na = 0, nb = 0;
    unsigned char *a = io_slurp(path_mpi, &na), *b = io_slurp(path_ref, &nb);
    CHECK(na == nb, "iteration %d (tile of %d slots, extent %d, spelling %d, disp %ld): the file has %zu bytes, "
          "the reference %zu", it, t.slots, t.extent, spelling, disp, na, nb);
    for (size_t i = 0; i < na; i++)
      CHECK(a[i] == b[i], "iteration %d (tile of %d slots, extent %d, spelling %d, disp %ld, cb mode %s): byte %zu "
            "is 0x%02x, the reference has 0x%02x", it, t.slots, t.extent, spelling, disp, mode, i, a[i], b[i]);
    free(a);
    free(b);
  }

  /* Read back through the view: the data in place, the gaps untouched. */
  memset(mem, 0xEE, mem_bytes + 1);
  for (long i = 0; i < (long)mem_bytes; i++)
    if (strided && i % 3 == 2) mem[i] = GAP_BYTE;
  CHECK_MPI(MPI_File_read_at_all(fh, start, mem, count, memtype, &st));
  CHECK(io_status_bytes(&st) == bytes, "iteration %d: read_at_all reported %lld bytes, expected %ld", it,
        (long long)io_status_bytes(&st), bytes);
  for (long i = 0; i < bytes; i++) {
    long m = strided ? (i / 2) * 3 + i % 2 : i;
    if (mem[m] != data[i]) {
      long left = 0, o = file_offset_of(&t, disp, start + i, &left);
      unsigned char c = 0;
      int fd = open(path_mpi, O_RDONLY);
      CHECK(pread(fd, &c, 1, o) == 1, "pread");
      close(fd);
      fprintf(stderr, "rank %d: byte %ld at file offset %ld: the file holds 0x%02x\n", rank, i, o, c);
    }
    CHECK(mem[m] == data[i], "iteration %d (spelling %d, strided %d, cb mode %s, start %ld): read back byte %ld is 0x%02x, expected 0x%02x", it, spelling, strided, mode, start, i, mem[m], data[i]);
  }
  for (long i = 0; i < (long)mem_bytes; i++)
    if (strided && i % 3 == 2) CHECK(mem[i] == GAP_BYTE, "iteration %d: read_at_all wrote a memory gap", it);

  MPI_Type_free(&filetype);
  if (strided) MPI_Type_free(&memtype);
  MPI_Info_free(&info);
  free(data);
  free(mem);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  uint64_t seed = argc > 1 ? strtoull(argv[1], NULL, 0) : (uint64_t)time(NULL);
  int iterations = argc > 2 ? atoi(argv[2]) : 400;
  MPI_Bcast(&seed, 1, MPI_UINT64_T, 0, MPI_COMM_WORLD);
  if (rank == 0) printf("io_collective_random: seed %llu, %d iterations on %d ranks\n", (unsigned long long)seed,
                        iterations, size);
  fflush(stdout); /* a failing rank aborts the job: the seed must be out first */
  rng_state = seed * 2654435761u + 1;

  io_make_dir();
  char path_mpi[600], path_ref[600];
  io_path("collective", path_mpi, sizeof path_mpi);
  io_path("reference", path_ref, sizeof path_ref);
  MPI_File fh;
  CHECK_MPI(MPI_File_open(MPI_COMM_WORLD, path_mpi, MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL, &fh));
  if (rank == 0) {
    int fd = open(path_ref, O_CREAT | O_RDWR, 0644);
    CHECK(fd >= 0, "open(%s): %s", path_ref, strerror(errno));
    close(fd);
  }
  MPI_Barrier(MPI_COMM_WORLD);
  int fd_ref = open(path_ref, O_RDWR);
  CHECK(fd_ref >= 0, "open(%s): %s", path_ref, strerror(errno));

  for (int it = 0; it < iterations; it++) iteration(it, path_mpi, path_ref, fh, fd_ref);

  close(fd_ref);
  CHECK_MPI(MPI_File_close(&fh));
  io_remove_dir();
  mt_pass();
  MPI_Finalize();
  return 0;
}
