/*
 * The MINLOC/MAXLOC pair types (MPI-3.1 §5.9.4): MPI_FLOAT_INT,
 * MPI_DOUBLE_INT, MPI_LONG_INT, MPI_SHORT_INT, MPI_LONG_DOUBLE_INT and
 * MPI_2INT, whose C structs have padding, sent as arrays of structs
 * (eager and rendezvous sizes) to the next rank, and received as pairs and
 * as a struct type of the same signature built by hand. Sizes, extents and
 * basic-element counts are those of the C structs; padding bytes of the
 * receiving structs stay untouched (Ferry only).
 */
#define TEST_NAME "pair_types"
#include "mpitest.h"

struct float_int { float v; int i; };
struct double_int { double v; int i; };
struct long_int { long v; int i; };
struct short_int { short v; int i; };
struct long_double_int { long double v; int i; };
struct two_int { int v; int i; };

struct pair {
  const char *name;
  MPI_Datatype type;
  MPI_Datatype value_type;
  size_t value_size;  /* bytes of the value (data, not padding) */
  size_t index_offset;
  size_t struct_size;
};

#define PAIR(T, mpi, value_mpi, value_bytes) \
  {#mpi, mpi, value_mpi, value_bytes, offsetof(struct T, i), sizeof(struct T)}

/* long double has 10 significant bytes but MPI moves all of sizeof. */
static const struct pair pairs[] = {
    PAIR(float_int, MPI_FLOAT_INT, MPI_FLOAT, sizeof(float)),
    PAIR(double_int, MPI_DOUBLE_INT, MPI_DOUBLE, sizeof(double)),
    PAIR(long_int, MPI_LONG_INT, MPI_LONG, sizeof(long)),
    PAIR(short_int, MPI_SHORT_INT, MPI_SHORT, sizeof(short)),
    PAIR(long_double_int, MPI_LONG_DOUBLE_INT, MPI_LONG_DOUBLE, sizeof(long double)),
    PAIR(two_int, MPI_2INT, MPI_INT, sizeof(int)),
};

/* The value of pair k from `rank` in type p: a pattern in the value's data
 * bytes and in the index, 0xAB in the padding. */
static void make(const struct pair *p, unsigned char *s, int rank, int k) {
  memset(s, 0xAB, p->struct_size);
  uint32_t seed = mt_seed((uint32_t)rank, (uint32_t)k, 17);
  for (size_t b = 0; b < p->value_size; b++) s[b] = mt_byte(seed, b);
  int index = rank * 1000000 + k;
  memcpy(s + p->index_offset, &index, sizeof index);
}

static void check(const struct pair *p, const unsigned char *got, int rank, int k, const char *how) {
  unsigned char want[64];
  make(p, want, rank, k);
  for (size_t b = 0; b < p->value_size; b++)
    CHECK(got[b] == want[b], "%s %s: pair %d value byte %zu is 0x%02x, expected 0x%02x", p->name, how, k, b, got[b],
          want[b]);
  CHECK(memcmp(got + p->index_offset, want + p->index_offset, sizeof(int)) == 0, "%s %s: pair %d index differs",
        p->name, how, k);
  if (mt_is_ferry()) {
    for (size_t b = p->value_size; b < p->index_offset; b++)
      CHECK(got[b] == 0xAB, "%s %s: padding byte %zu of pair %d was written", p->name, how, b, k);
    for (size_t b = p->index_offset + sizeof(int); b < p->struct_size; b++)
      CHECK(got[b] == 0xAB, "%s %s: padding byte %zu of pair %d was written", p->name, how, b, k);
  }
}

static void run(const struct pair *p, int n, int rank, int size) {
  int right = (rank + 1) % size, left = (rank + size - 1) % size;
  size_t bytes = (size_t)n * p->struct_size;
  unsigned char *out = mt_malloc(bytes), *in = mt_malloc(bytes);
  for (int k = 0; k < n; k++) make(p, out + (size_t)k * p->struct_size, rank, k);

  /* Size, extent, true extent of the pair type itself. */
  int tsize;
  MPI_Aint lb, extent, tlb, textent;
  MPI_Type_size(p->type, &tsize);
  MPI_Type_get_extent(p->type, &lb, &extent);
  MPI_Type_get_true_extent(p->type, &tlb, &textent);
  CHECK(tsize == (int)(p->value_size + sizeof(int)), "%s: size %d", p->name, tsize);
  CHECK(lb == 0 && extent == (MPI_Aint)p->struct_size, "%s: lb %ld extent %ld, expected 0 and %zu", p->name,
        (long)lb, (long)extent, p->struct_size);
  CHECK(tlb == 0 && textent == (MPI_Aint)(p->index_offset + sizeof(int)), "%s: true lb %ld true extent %ld", p->name,
        (long)tlb, (long)textent);

  /* Pairs to pairs. */
  MPI_Status st;
  int count;
  memset(in, 0xAB, bytes);
  MPI_Sendrecv(out, n, p->type, right, 1, in, n, p->type, left, 1, MPI_COMM_WORLD, &st);
  MPI_Get_count(&st, p->type, &count);
  CHECK(count == n, "%s: MPI_Get_count gave %d, expected %d", p->name, count, n);
  /* MPICH 4.0, the reference, divides by zero in MPI_Get_elements with
   * MPI_FLOAT_INT: only Ferry is asked that one. */
  if (mt_is_ferry() || p->type != MPI_FLOAT_INT) {
    MPI_Get_elements(&st, p->type, &count);
    CHECK(count == 2 * n, "%s: MPI_Get_elements gave %d, expected %d (two basic elements a pair)", p->name, count,
          2 * n);
  }
  for (int k = 0; k < n; k++) check(p, in + (size_t)k * p->struct_size, left, k, "pairs");

  /* Pairs into a hand-built struct of the same signature and layout. */
  int lengths[2] = {1, 1};
  MPI_Aint disps[2] = {0, (MPI_Aint)p->index_offset};
  MPI_Datatype types[2] = {p->value_type, MPI_INT}, mine;
  MPI_Type_create_struct(2, lengths, disps, types, &mine);
  MPI_Type_commit(&mine);
  MPI_Type_get_extent(mine, &lb, &extent);
  CHECK(extent == (MPI_Aint)p->struct_size, "%s: the equivalent struct has extent %ld, expected %zu", p->name,
        (long)extent, p->struct_size);
  memset(in, 0xAB, bytes);
  MPI_Sendrecv(out, n, p->type, right, 2, in, n, mine, left, 2, MPI_COMM_WORLD, &st);
  for (int k = 0; k < n; k++) check(p, in + (size_t)k * p->struct_size, left, k, "into a struct");
  MPI_Type_free(&mine);

  /* The values alone, packed: value then index, pair after pair. */
  int packed_size;
  MPI_Pack_size(n, p->type, MPI_COMM_WORLD, &packed_size);
  CHECK(packed_size >= n * tsize, "%s: MPI_Pack_size %d", p->name, packed_size);
  free(out), free(in);
}

int main(int argc, char **argv) {
  int rank, size;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  static const int counts[] = {1, 7, 5000, 70000};
  for (size_t i = 0; i < sizeof pairs / sizeof pairs[0]; i++)
    for (size_t c = 0; c < sizeof counts / sizeof counts[0]; c++) run(&pairs[i], counts[c], rank, size);
  mt_pass();
  MPI_Finalize();
  return 0;
}
