/*
 * A 3-D halo exchange with MPI_Type_create_subarray: the global array is
 * split along its slowest dimension (x) over the ranks, each rank holds its
 * slab with a halo of width 1 all around, and the six faces of every slab
 * are exchanged with the neighbours (periodic in all dimensions; along y and
 * z the neighbour is the rank itself). Faces are subarrays of the local
 * array: x faces are contiguous planes, y faces are strided rows, z faces are
 * single elements at a stride, so every kind of nesting goes through the
 * engine; C order and Fortran order both. Afterwards every halo cell must
 * hold the value of the global cell it mirrors.
 */
#define TEST_NAME "halo3d"
#include "mpitest.h"

enum { NDIMS = 3 };

static double cell(int gx, int gy, int gz) { return gx * 1e6 + gy * 1e3 + gz; }

static int wrap(int i, int n) { return (i % n + n) % n; }

struct grid {
  int order;
  int n[NDIMS];     /* interior cells per dimension (x, y, z) */
  int full[NDIMS];  /* with the halo */
  int x0, gnx;      /* this slab's first global x, and the global x size */
};

/* The index of local cell (x, y, z), halo included, in the array's order. */
static size_t at(const struct grid *g, int x, int y, int z) {
  if (g->order == MPI_ORDER_C) return ((size_t)x * g->full[1] + y) * g->full[2] + z;
  return ((size_t)z * g->full[1] + y) * g->full[0] + x;
}

/* A face (or its halo) of thickness 1 in dimension d: interior extent in the
 * other dimensions (halo cells of other dimensions are exchanged by those). */
static MPI_Datatype face(const struct grid *g, int d, int start) {
  int sizes[NDIMS], subsizes[NDIMS], starts[NDIMS];
  for (int k = 0; k < NDIMS; k++) {
    /* The subarray arguments follow the array's order: C lists x first,
     * Fortran lists the fastest dimension (x) first as well. */
    sizes[k] = g->full[k];
    subsizes[k] = k == d ? 1 : g->n[k];
    starts[k] = k == d ? start : 1;
  }
  MPI_Datatype t;
  MPI_Type_create_subarray(NDIMS, sizes, subsizes, starts, g->order, MPI_DOUBLE, &t);
  MPI_Type_commit(&t);
  return t;
}

static void run(int order, int rank, int size) {
  struct grid g;
  g.order = order;
  g.n[0] = 3 + rank % 2; /* slabs of different thickness */
  g.n[1] = 7;
  g.n[2] = 130;
  int counts[64];
  CHECK(size <= 64, "too many ranks");
  MPI_Allgather(&g.n[0], 1, MPI_INT, counts, 1, MPI_INT, MPI_COMM_WORLD);
  g.x0 = 0, g.gnx = 0;
  for (int r = 0; r < size; r++) {
    if (r < rank) g.x0 += counts[r];
    g.gnx += counts[r];
  }
  for (int k = 0; k < NDIMS; k++) g.full[k] = g.n[k] + 2;
  size_t cells = (size_t)g.full[0] * g.full[1] * g.full[2];
  double *a = mt_malloc(cells * sizeof(double));
  for (size_t i = 0; i < cells; i++) a[i] = -1.0;
  for (int x = 1; x <= g.n[0]; x++)
    for (int y = 1; y <= g.n[1]; y++)
      for (int z = 1; z <= g.n[2]; z++) a[at(&g, x, y, z)] = cell(g.x0 + x - 1, y - 1, z - 1);

  /* Check the type maps of one face against MPI's definition. */
  MPI_Datatype xlow = face(&g, 0, 1);
  MPI_Aint lb, extent, true_lb, true_extent;
  MPI_Type_get_extent(xlow, &lb, &extent);
  MPI_Type_get_true_extent(xlow, &true_lb, &true_extent);
  CHECK(lb == 0 && extent == (MPI_Aint)(cells * sizeof(double)), "x face: lb %ld extent %ld", (long)lb, (long)extent);
  CHECK(true_lb == (MPI_Aint)(at(&g, 1, 1, 1) * sizeof(double)), "x face: true_lb %ld, expected %ld", (long)true_lb,
        (long)(at(&g, 1, 1, 1) * sizeof(double)));
  MPI_Type_free(&xlow);

  int right = (rank + 1) % size, left = (rank + size - 1) % size;
  for (int d = 0; d < NDIMS; d++) {
    int up = d == 0 ? right : rank, down = d == 0 ? left : rank;
    MPI_Datatype send_high = face(&g, d, g.n[d]), recv_low = face(&g, d, 0);
    MPI_Datatype send_low = face(&g, d, 1), recv_high = face(&g, d, g.n[d] + 1);
    MPI_Request req[4];
    MPI_Irecv(a, 1, recv_low, down, 10 + d, MPI_COMM_WORLD, &req[0]);
    MPI_Irecv(a, 1, recv_high, up, 20 + d, MPI_COMM_WORLD, &req[1]);
    MPI_Isend(a, 1, send_high, up, 10 + d, MPI_COMM_WORLD, &req[2]);
    MPI_Isend(a, 1, send_low, down, 20 + d, MPI_COMM_WORLD, &req[3]);
    MPI_Waitall(4, req, MPI_STATUSES_IGNORE);
    MPI_Type_free(&send_high), MPI_Type_free(&recv_low), MPI_Type_free(&send_low), MPI_Type_free(&recv_high);
  }

  /* Every face halo cell mirrors its periodic global neighbour; edges and
   * corners of the halo are not exchanged by face types and stay -1. */
  for (int x = 0; x <= g.n[0] + 1; x++)
    for (int y = 0; y <= g.n[1] + 1; y++)
      for (int z = 0; z <= g.n[2] + 1; z++) {
        int outside = (x == 0 || x == g.n[0] + 1) + (y == 0 || y == g.n[1] + 1) + (z == 0 || z == g.n[2] + 1);
        double want = outside > 1 ? -1.0
                                  : cell(wrap(g.x0 + x - 1, g.gnx), wrap(y - 1, g.n[1]), wrap(z - 1, g.n[2]));
        double got = a[at(&g, x, y, z)];
        CHECK(got == want, "%s order: local cell (%d,%d,%d) is %.0f, expected %.0f",
              order == MPI_ORDER_C ? "C" : "Fortran", x, y, z, got, want);
      }
  free(a);
}

int main(int argc, char **argv) {
  int rank, size;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  run(MPI_ORDER_C, rank, size);
  run(MPI_ORDER_FORTRAN, rank, size);
  mt_pass();
  MPI_Finalize();
  return 0;
}
