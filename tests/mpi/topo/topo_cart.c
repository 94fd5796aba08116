/*
 * Cartesian topologies (MPI-3.1 §7.5): MPI_Dims_create's balanced choices,
 * MPI_Cart_create (also of fewer ranks than the communicator has), the
 * queries (Topo_test, Cartdim_get, Cart_get, Cart_coords, Cart_rank,
 * Cart_shift, Cart_map), MPI_Cart_sub (keeping no dimension too),
 * MPI_Comm_dup keeping the topology, messages along a shift, and the errors
 * of misuse.
 */
#define TEST_NAME "topo_cart"
#include "mpitest.h"

static void dims_case(int nnodes, int ndims, const int *given, const int *want) {
  int dims[8];
  for (int i = 0; i < ndims; i++) dims[i] = given[i];
  CHECK_MPI(MPI_Dims_create(nnodes, ndims, dims));
  for (int i = 0; i < ndims; i++)
    CHECK(dims[i] == want[i], "Dims_create(%d, %d): dims[%d] = %d, want %d", nnodes, ndims, i, dims[i], want[i]);
}

/* Row-major coordinates of `rank` in dims[0..nd), computed here independently. */
static void coords_of(int rank, int nd, const int *dims, int *coords) {
  for (int i = nd - 1; i >= 0; i--) {
    coords[i] = rank % dims[i];
    rank /= dims[i];
  }
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);

  /* Balanced, non-increasing; given entries kept. */
  dims_case(6, 2, (int[]){0, 0}, (int[]){3, 2});
  dims_case(12, 3, (int[]){0, 0, 0}, (int[]){3, 2, 2});
  dims_case(16, 2, (int[]){0, 0}, (int[]){4, 4});
  dims_case(16, 3, (int[]){0, 0, 0}, (int[]){4, 2, 2});
  dims_case(7, 2, (int[]){0, 0}, (int[]){7, 1});
  dims_case(24, 3, (int[]){0, 3, 0}, (int[]){4, 3, 2});
  dims_case(1, 3, (int[]){0, 0, 0}, (int[]){1, 1, 1});
  dims_case(36, 3, (int[]){0, 0, 0}, (int[]){4, 3, 3});
  int bad[2] = {5, 0};
  int code = MPI_Dims_create(12, 2, bad);
  int cls = -1;
  MPI_Error_class(code, &cls);
  CHECK(cls == MPI_ERR_DIMS, "Dims_create(12) with a fixed 5: class %d, want MPI_ERR_DIMS", cls);

  /* A 2-D grid over every rank, periodic in the first dimension only. */
  int dims[2] = {0, 0}, periods[2] = {1, 0};
  CHECK_MPI(MPI_Dims_create(size, 2, dims));
  MPI_Comm grid;
  CHECK_MPI(MPI_Cart_create(MPI_COMM_WORLD, 2, dims, periods, 1, &grid));
  CHECK(grid != MPI_COMM_NULL, "every rank is in a grid of all ranks");
  int status = -1, nd = -1, grank = -1;
  CHECK_MPI(MPI_Topo_test(grid, &status));
  CHECK(status == MPI_CART, "Topo_test: %d, want MPI_CART", status);
  CHECK_MPI(MPI_Topo_test(MPI_COMM_WORLD, &status));
  CHECK(status == MPI_UNDEFINED, "Topo_test on MPI_COMM_WORLD: %d, want MPI_UNDEFINED", status);
  CHECK_MPI(MPI_Cartdim_get(grid, &nd));
  CHECK(nd == 2, "Cartdim_get: %d", nd);
  CHECK_MPI(MPI_Comm_rank(grid, &grank));
  CHECK(grank == rank, "ranks keep their order (reorder is not acted on): %d vs %d", grank, rank);
  int gdims[2], gper[2], gcoords[2], want[2];
  CHECK_MPI(MPI_Cart_get(grid, 2, gdims, gper, gcoords));
  coords_of(rank, 2, dims, want);
  CHECK(gdims[0] == dims[0] && gdims[1] == dims[1] && gper[0] == 1 && gper[1] == 0, "Cart_get dims/periods");
  CHECK(gcoords[0] == want[0] && gcoords[1] == want[1], "Cart_get coords (%d,%d), want (%d,%d)", gcoords[0],
        gcoords[1], want[0], want[1]);
  for (int r = 0; r < size; r++) {
    int c[2], back = -1;
    CHECK_MPI(MPI_Cart_coords(grid, r, 2, c));
    coords_of(r, 2, dims, want);
    CHECK(c[0] == want[0] && c[1] == want[1], "Cart_coords(%d)", r);
    CHECK_MPI(MPI_Cart_rank(grid, c, &back));
    CHECK(back == r, "Cart_rank(Cart_coords(%d)) = %d", r, back);
  }
  /* Periodic wrap in dimension 0; outside the non-periodic dimension 1 is an error. */
  int wrapped[2] = {gcoords[0] + dims[0], gcoords[1]}, w = -1;
  CHECK_MPI(MPI_Cart_rank(grid, wrapped, &w));
  CHECK(w == rank, "a periodic coordinate wraps: %d", w);
  int outside[2] = {0, dims[1]};
  code = MPI_Cart_rank(grid, outside, &w);
  MPI_Error_class(code, &cls);
  CHECK(cls == MPI_ERR_ARG, "Cart_rank outside a non-periodic dimension: class %d", cls);

  /* Shifts, and a message along each. */
  for (int d = 0; d < 2; d++) {
    int src, dst;
    CHECK_MPI(MPI_Cart_shift(grid, d, 1, &src, &dst));
    int c[2] = {gcoords[0], gcoords[1]}, want_src, want_dst;
    c[d] = gcoords[d] - 1;
    if (d == 0) c[0] = (c[0] + dims[0]) % dims[0];
    want_src = c[d] < 0 ? MPI_PROC_NULL : c[0] * dims[1] + c[1];
    c[d] = gcoords[d] + 1;
    if (d == 0) c[0] %= dims[0];
    want_dst = c[d] >= dims[d] ? MPI_PROC_NULL : c[0] * dims[1] + c[1];
    CHECK(src == want_src && dst == want_dst, "Cart_shift(%d, 1): (%d, %d), want (%d, %d)", d, src, dst, want_src,
          want_dst);
    int out = 1000 + rank, in = -5;
    MPI_Status st;
    CHECK_MPI(MPI_Sendrecv(&out, 1, MPI_INT, dst, 7, &in, 1, MPI_INT, src, 7, grid, &st));
    CHECK(in == (src == MPI_PROC_NULL ? -5 : 1000 + src), "shift %d delivered %d from %d", d, in, src);
  }

  /* Rows and columns. */
  MPI_Comm row, col;
  CHECK_MPI(MPI_Cart_sub(grid, (int[]){0, 1}, &row));
  CHECK_MPI(MPI_Cart_sub(grid, (int[]){1, 0}, &col));
  int rsize, rrank, csize, crank;
  MPI_Comm_size(row, &rsize);
  MPI_Comm_rank(row, &rrank);
  MPI_Comm_size(col, &csize);
  MPI_Comm_rank(col, &crank);
  CHECK(rsize == dims[1] && rrank == gcoords[1], "row: size %d rank %d", rsize, rrank);
  CHECK(csize == dims[0] && crank == gcoords[0], "column: size %d rank %d", csize, crank);
  CHECK_MPI(MPI_Cartdim_get(row, &nd));
  CHECK(nd == 1, "a row is 1-D: %d", nd);
  int rdims[1], rper[1], rco[1];
  CHECK_MPI(MPI_Cart_get(col, 1, rdims, rper, rco));
  CHECK(rdims[0] == dims[0] && rper[0] == 1 && rco[0] == gcoords[0], "a column keeps its dimension's period");
  int row_sum = 0;
  CHECK_MPI(MPI_Allreduce(&rank, &row_sum, 1, MPI_INT, MPI_SUM, row));
  int want_sum = 0;
  for (int j = 0; j < dims[1]; j++) want_sum += gcoords[0] * dims[1] + j;
  CHECK(row_sum == want_sum, "the row holds the ranks of its grid row: sum %d, want %d", row_sum, want_sum);

  /* A duplicate keeps the topology. */
  MPI_Comm copy;
  CHECK_MPI(MPI_Comm_dup(grid, &copy));
  CHECK_MPI(MPI_Topo_test(copy, &status));
  CHECK(status == MPI_CART, "MPI_Comm_dup keeps the topology: %d", status);

  /* Keeping no dimension: one zero-dimensional grid of one process, the
   * grid's rank 0 (as MPICH does; its test topo/cartsuball checks it). */
  MPI_Comm point;
  CHECK_MPI(MPI_Cart_sub(grid, (int[]){0, 0}, &point));
  if (grank == 0) {
    int psize = -1, pdims = -1;
    CHECK(point != MPI_COMM_NULL, "Cart_sub keeping no dimension gave rank 0 MPI_COMM_NULL");
    MPI_Comm_size(point, &psize);
    CHECK_MPI(MPI_Cartdim_get(point, &pdims));
    CHECK(psize == 1 && pdims == 0, "Cart_sub keeping no dimension: size %d, %d dimensions", psize, pdims);
    MPI_Comm_free(&point);
  } else {
    CHECK(point == MPI_COMM_NULL, "Cart_sub keeping no dimension gave grid rank %d a communicator", grank);
  }

  /* A grid of fewer ranks than the communicator: the others get MPI_COMM_NULL. */
  int small[1] = {size > 1 ? size - 1 : 1}, per[1] = {0}, mapped = -2;
  MPI_Comm part;
  CHECK_MPI(MPI_Cart_create(MPI_COMM_WORLD, 1, small, per, 0, &part));
  CHECK_MPI(MPI_Cart_map(MPI_COMM_WORLD, 1, small, per, &mapped));
  if (rank < small[0]) {
    CHECK(part != MPI_COMM_NULL && mapped == rank, "rank %d is in the grid of %d (map %d)", rank, small[0], mapped);
    MPI_Comm_free(&part);
  } else {
    CHECK(part == MPI_COMM_NULL && mapped == MPI_UNDEFINED, "rank %d is outside the grid of %d", rank, small[0]);
  }

  /* Misuse. */
  int too_big[1] = {size + 1};
  code = MPI_Cart_create(MPI_COMM_WORLD, 1, too_big, per, 0, &part);
  MPI_Error_class(code, &cls);
  CHECK(cls == MPI_ERR_ARG, "a grid larger than the communicator: class %d", cls);
  code = MPI_Cartdim_get(MPI_COMM_WORLD, &nd);
  MPI_Error_class(code, &cls);
  CHECK(cls == MPI_ERR_TOPOLOGY, "Cartdim_get without a topology: class %d", cls);
  code = MPI_Cart_shift(grid, 2, 1, &w, &w);
  MPI_Error_class(code, &cls);
  CHECK(cls == MPI_ERR_ARG, "Cart_shift along a dimension the grid lacks: class %d", cls);

  MPI_Comm_free(&copy);
  MPI_Comm_free(&row);
  MPI_Comm_free(&col);
  MPI_Comm_free(&grid);
  mt_pass();
  MPI_Finalize();
  return 0;
}
