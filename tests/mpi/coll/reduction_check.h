/*
 * Inputs and checks shared by the reduction tests (allreduce_*, reduce_*,
 * reduce_scatter_*, scan_*). Include after mpitest.h.
 *
 * Every input element is a function of (rank, index), so each rank can
 * compute the reference result locally. Integer inputs make exact
 * references; floating-point inputs vary in magnitude so that a different
 * association changes the low bits (which is what the bitwise-identity
 * check is for).
 */
#ifndef FERRY_TESTS_MPI_COLL_REDUCTION_CHECK_H
#define FERRY_TESTS_MPI_COLL_REDUCTION_CHECK_H

/* Zeroed memory (never NULL, also for 0 bytes). */
static inline void *rc_alloc(size_t bytes) {
  void *p = calloc(bytes ? bytes : 1, 1);
  CHECK(p != NULL, "calloc(%zu) failed", bytes);
  return p;
}

/* Integer input: small enough that the sum over 8 ranks stays in an int. */
static inline int rc_int(int rank, long i) { return (int)((rank + 1) * 1009 + (i % 100003) * 7 - 300000); }

/* Floating-point input with magnitudes from 1e-3 to 1e3. */
static inline double rc_double(int rank, long i) {
  static const double scale[4] = {1e-3, 1.0, 1e3, 0.37};
  return scale[(rank + i) % 4] * (1.0 + (double)((i * 2654435761u + (unsigned)rank * 40503u) % 10007) / 10007.0);
}

/* A 2x2 matrix of 16-bit entries packed into 64 bits, multiplied modulo
 * 2^16: a non-commutative operation on a predefined type (MPI_UINT64_T),
 * so that no derived datatype is needed. */
static inline uint64_t rc_matrix(int rank, long i) {
  uint64_t a = (uint64_t)(rank * 3 + 1 + i) & 0xffff, b = (uint64_t)(rank + 2 * i + 5) & 0xffff;
  uint64_t c = (uint64_t)(7 * rank + i + 2) & 0xffff, d = (uint64_t)(rank * rank + 3 + i) & 0xffff;
  return a | b << 16 | c << 32 | d << 48;
}
static inline uint64_t rc_matmul(uint64_t x, uint64_t y) {
  uint64_t a = x & 0xffff, b = x >> 16 & 0xffff, c = x >> 32 & 0xffff, d = x >> 48 & 0xffff;
  uint64_t e = y & 0xffff, f = y >> 16 & 0xffff, g = y >> 32 & 0xffff, h = y >> 48 & 0xffff;
  uint64_t r0 = (a * e + b * g) & 0xffff, r1 = (a * f + b * h) & 0xffff;
  uint64_t r2 = (c * e + d * g) & 0xffff, r3 = (c * f + d * h) & 0xffff;
  return r0 | r1 << 16 | r2 << 32 | r3 << 48;
}
/* The user function: inout = in x inout, `in` being the earlier ranks'
 * (MPI-3.1 §5.9.5). */
static void rc_matmul_op(void *in, void *inout, int *len, MPI_Datatype *type) {
  (void)type;
  uint64_t *a = (uint64_t *)in, *b = (uint64_t *)inout;
  for (int i = 0; i < *len; i++) b[i] = rc_matmul(a[i], b[i]);
}
/* The product A_first x ... x A_last, in rank order. */
static inline uint64_t rc_matrix_product(int first, int last, long i) {
  uint64_t m = 1 | (uint64_t)1 << 48; /* identity */
  for (int r = first; r <= last; r++) m = rc_matmul(m, rc_matrix(r, i));
  return m;
}

/* FNV-1a over a buffer: equal hashes on all ranks mean equal bits. */
static inline uint64_t rc_hash(const void *buf, size_t bytes) {
  const unsigned char *p = (const unsigned char *)buf;
  uint64_t h = 1469598103934665603ull;
  for (size_t i = 0; i < bytes; i++) h = (h ^ p[i]) * 1099511628211ull;
  return h;
}

/* Fails unless every rank of `comm` passes the same hash. */
static inline void rc_check_identical(const void *buf, size_t bytes, MPI_Comm comm, const char *what) {
  uint64_t h = rc_hash(buf, bytes), hi = 0, lo = 0;
  MPI_Allreduce(&h, &hi, 1, MPI_UINT64_T, MPI_MAX, comm);
  MPI_Allreduce(&h, &lo, 1, MPI_UINT64_T, MPI_MIN, comm);
  CHECK(hi == lo, "%s: result bits differ between ranks (hash %llx here, range %llx..%llx)", what,
        (unsigned long long)h, (unsigned long long)lo, (unsigned long long)hi);
}

/* Relative comparison for floating-point results. */
static inline int rc_close(double got, double want) {
  double diff = got > want ? got - want : want - got, mag = want > 0 ? want : -want;
  return diff <= 1e-11 * mag;
}

#endif /* FERRY_TESTS_MPI_COLL_REDUCTION_CHECK_H */
