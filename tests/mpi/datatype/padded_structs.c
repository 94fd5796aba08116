/*
 * An array of C structs with padding, described with MPI_Type_create_struct
 * (whose extent is padded like the C struct, MPI-3.1 §4.1.6) and, to be
 * sure, resized to sizeof(struct): sent to the next rank, which receives it
 * three ways: into the same array of structs; scattered into separate
 * arrays of each field (struct-of-arrays) through one struct type of
 * absolute addresses with MPI_BOTTOM (a different type map of the same
 * signature); and as MPI_PACKED bytes that MPI_Unpack then spreads out.
 * Padding bytes of the receiving structs must stay as they were (Ferry
 * only: MPI allows an implementation to write them).
 */
#define TEST_NAME "padded_structs"
#include "mpitest.h"

struct particle {
  double position[3];
  int id;
  char kind;
  /* 3 bytes of padding */
  double mass;
  short flags;
  /* 6 bytes of padding */
};

static struct particle make(int rank, int i) {
  struct particle p;
  memset(&p, 0xAB, sizeof p); /* the padding too, so it can be checked */
  for (int k = 0; k < 3; k++) p.position[k] = rank * 1000.0 + i + k * 0.25;
  p.id = rank * 100000 + i;
  p.kind = (char)('a' + (i + rank) % 26);
  p.mass = 1.0 / (i + 1);
  p.flags = (short)(i * 7 + rank);
  return p;
}

static void check_particle(const struct particle *got, int rank, int i, const char *how) {
  struct particle want = make(rank, i);
  for (int k = 0; k < 3; k++)
    CHECK(got->position[k] == want.position[k], "%s: particle %d position[%d] is %g, expected %g", how, i, k,
          got->position[k], want.position[k]);
  CHECK(got->id == want.id && got->kind == want.kind && got->mass == want.mass && got->flags == want.flags,
        "%s: particle %d is {id %d kind %c mass %g flags %d}, expected {%d %c %g %d}", how, i, got->id, got->kind,
        got->mass, got->flags, want.id, want.kind, want.mass, want.flags);
}

static MPI_Datatype particle_type(void) {
  int lengths[5] = {3, 1, 1, 1, 1};
  MPI_Aint disps[5] = {offsetof(struct particle, position), offsetof(struct particle, id),
                       offsetof(struct particle, kind), offsetof(struct particle, mass),
                       offsetof(struct particle, flags)};
  MPI_Datatype types[5] = {MPI_DOUBLE, MPI_INT, MPI_CHAR, MPI_DOUBLE, MPI_SHORT};
  MPI_Datatype raw, t;
  MPI_Aint lb, extent;
  MPI_Type_create_struct(5, lengths, disps, types, &raw);
  /* The struct padding rule alone gives the C struct's size here. */
  MPI_Type_get_extent(raw, &lb, &extent);
  CHECK(lb == 0 && extent == (MPI_Aint)sizeof(struct particle), "struct type: lb %ld extent %ld, expected 0 and %zu",
        (long)lb, (long)extent, sizeof(struct particle));
  MPI_Type_create_resized(raw, 0, sizeof(struct particle), &t);
  MPI_Type_free(&raw);
  MPI_Type_commit(&t);
  int size;
  MPI_Type_size(t, &size);
  CHECK(size == 3 * 8 + 4 + 1 + 8 + 2, "particle type size %d", size);
  return t;
}

/* The same signature, one element per particle, at the addresses of
 * separate field arrays: a struct of absolute addresses used with MPI_BOTTOM. */
static MPI_Datatype soa_type(int n, double (*position)[3], int *id, char *kind, double *mass, short *flags) {
  int *lengths = mt_malloc(5 * (size_t)n * sizeof(int));
  MPI_Aint *disps = mt_malloc(5 * (size_t)n * sizeof(MPI_Aint));
  MPI_Datatype *types = mt_malloc(5 * (size_t)n * sizeof(MPI_Datatype));
  for (int i = 0; i < n; i++) {
    int b = 5 * i;
    lengths[b] = 3, types[b] = MPI_DOUBLE, MPI_Get_address(position[i], &disps[b]);
    lengths[b + 1] = 1, types[b + 1] = MPI_INT, MPI_Get_address(&id[i], &disps[b + 1]);
    lengths[b + 2] = 1, types[b + 2] = MPI_CHAR, MPI_Get_address(&kind[i], &disps[b + 2]);
    lengths[b + 3] = 1, types[b + 3] = MPI_DOUBLE, MPI_Get_address(&mass[i], &disps[b + 3]);
    lengths[b + 4] = 1, types[b + 4] = MPI_SHORT, MPI_Get_address(&flags[i], &disps[b + 4]);
  }
  MPI_Datatype t;
  MPI_Type_create_struct(5 * n, lengths, disps, types, &t);
  MPI_Type_commit(&t);
  free(lengths);
  free(disps);
  free(types);
  return t;
}

static void run(int n, MPI_Datatype particle, int rank, int size) {
  int right = (rank + 1) % size, left = (rank + size - 1) % size;
  struct particle *out = mt_malloc((size_t)n * sizeof *out);
  struct particle *in = mt_malloc((size_t)n * sizeof *in);
  for (int i = 0; i < n; i++) out[i] = make(rank, i);
  MPI_Status st;
  int count;

  /* 1. Array of structs to array of structs. */
  memset(in, 0xAB, (size_t)n * sizeof *in);
  MPI_Sendrecv(out, n, particle, right, 1, in, n, particle, left, 1, MPI_COMM_WORLD, &st);
  MPI_Get_count(&st, particle, &count);
  CHECK(count == n, "n=%d: MPI_Get_count gave %d", n, count);
  MPI_Get_elements(&st, particle, &count);
  CHECK(count == 5 * n + 2 * n, "n=%d: MPI_Get_elements gave %d, expected %d", n, count, 7 * n);
  for (int i = 0; i < n; i++) check_particle(&in[i], left, i, "array of structs");
  if (mt_is_ferry()) {
    for (int i = 0; i < n; i++) {
      const unsigned char *p = (const unsigned char *)&in[i];
      for (size_t b = offsetof(struct particle, kind) + 1; b < offsetof(struct particle, mass); b++)
        CHECK(p[b] == 0xAB, "n=%d: padding byte %zu of particle %d was written (0x%02x)", n, b, i, p[b]);
      for (size_t b = offsetof(struct particle, flags) + 2; b < sizeof(struct particle); b++)
        CHECK(p[b] == 0xAB, "n=%d: padding byte %zu of particle %d was written (0x%02x)", n, b, i, p[b]);
    }
  }

  /* 2. Into separate field arrays, through MPI_BOTTOM. */
  double(*position)[3] = mt_malloc((size_t)n * sizeof *position);
  int *id = mt_malloc((size_t)n * sizeof *id);
  char *kind = mt_malloc((size_t)n);
  double *mass = mt_malloc((size_t)n * sizeof *mass);
  short *flags = mt_malloc((size_t)n * sizeof *flags);
  MPI_Datatype soa = soa_type(n, position, id, kind, mass, flags);
  MPI_Sendrecv(out, n, particle, right, 2, MPI_BOTTOM, 1, soa, left, 2, MPI_COMM_WORLD, &st);
  for (int i = 0; i < n; i++) {
    struct particle got = make(-1, 0);
    memcpy(got.position, position[i], sizeof got.position);
    got.id = id[i], got.kind = kind[i], got.mass = mass[i], got.flags = flags[i];
    check_particle(&got, left, i, "struct of arrays");
  }
  /* ...and back out of them, from MPI_BOTTOM. */
  memset(in, 0, (size_t)n * sizeof *in);
  MPI_Sendrecv(MPI_BOTTOM, 1, soa, right, 3, in, n, particle, left, 3, MPI_COMM_WORLD, &st);
  int left2 = (left + size - 1) % size; /* the data went one more step around */
  for (int i = 0; i < n; i++) check_particle(&in[i], left2, i, "from MPI_BOTTOM");
  MPI_Type_free(&soa);

  /* 3. MPI_Pack / MPI_PACKED / MPI_Unpack. */
  int packed_size;
  MPI_Pack_size(n, particle, MPI_COMM_WORLD, &packed_size);
  CHECK(packed_size >= n * 39, "n=%d: MPI_Pack_size gave %d", n, packed_size);
  char *packed = mt_malloc((size_t)packed_size);
  char *arrived = mt_malloc((size_t)packed_size);
  int position_out = 0;
  MPI_Pack(out, n, particle, packed, packed_size, &position_out, MPI_COMM_WORLD);
  MPI_Sendrecv(packed, position_out, MPI_PACKED, right, 4, arrived, packed_size, MPI_PACKED, left, 4, MPI_COMM_WORLD,
               &st);
  MPI_Get_count(&st, MPI_PACKED, &count);
  memset(in, 0, (size_t)n * sizeof *in);
  int position_in = 0;
  MPI_Unpack(arrived, count, &position_in, in, n, particle, MPI_COMM_WORLD);
  CHECK(position_in == count, "n=%d: MPI_Unpack stopped at %d of %d", n, position_in, count);
  for (int i = 0; i < n; i++) check_particle(&in[i], left, i, "packed");

  free(packed), free(arrived);
  free(position), free(id), free(kind), free(mass), free(flags);
  free(out), free(in);
}

int main(int argc, char **argv) {
  int rank, size;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  MPI_Datatype particle = particle_type();
  static const int counts[] = {1, 3, 1000, 20000};
  for (size_t i = 0; i < sizeof counts / sizeof counts[0]; i++) run(counts[i], particle, rank, size);
  MPI_Type_free(&particle);
  mt_pass();
  MPI_Finalize();
  return 0;
}
