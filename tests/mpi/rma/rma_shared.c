/* MPI_Win_allocate_shared and MPI_Win_shared_query (MPI-4.0 §12.2.3):
 * contiguous by default, any rank may query any other and MPI_PROC_NULL,
 * loads and stores reach the other ranks' memory; the predefined
 * attributes and MPI_Win_get_info. */
#define TEST_NAME "rma_shared"
#include "../mpitest.h"

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  int *mine;
  MPI_Win win;
  MPI_Aint bytes = (rank + 1) * 4 * sizeof(int);
  MPI_Win_allocate_shared(bytes, sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &mine, &win);
  MPI_Win_lock_all(0, win);
  for (int i = 0; i < (rank + 1) * 4; ++i) mine[i] = rank * 1000 + i;
  MPI_Win_sync(win);
  MPI_Barrier(MPI_COMM_WORLD);
  MPI_Win_sync(win);
  int *first = NULL;
  for (int r = 0; r < size; ++r) {
    MPI_Aint sz;
    int unit;
    int *base;
    MPI_Win_shared_query(win, r, &sz, &unit, &base);
    CHECK(sz == (r + 1) * 4 * (MPI_Aint)sizeof(int), "rank %d's size %ld", r, (long)sz);
    CHECK(unit == sizeof(int), "rank %d's disp_unit %d", r, unit);
    if (r == 0) first = base;
    for (int i = 0; i < (r + 1) * 4; ++i) CHECK(base[i] == r * 1000 + i, "rank %d's [%d] = %d", r, i, base[i]);
    /* Contiguous: rank r starts where rank r-1 ended. */
    if (r > 0) CHECK(base == first + 2 * r * (r + 1), "rank %d's memory is not contiguous with rank %d's", r, r - 1);
  }
  MPI_Aint sz;
  int unit;
  int *base;
  MPI_Win_shared_query(win, MPI_PROC_NULL, &sz, &unit, &base);
  CHECK(base == first, "MPI_PROC_NULL's base is not rank 0's");
  MPI_Win_unlock_all(win);
  int *flavor, *model, flag;
  MPI_Win_get_attr(win, MPI_WIN_CREATE_FLAVOR, &flavor, &flag);
  CHECK(flag && *flavor == MPI_WIN_FLAVOR_SHARED, "MPI_WIN_CREATE_FLAVOR");
  MPI_Win_get_attr(win, MPI_WIN_MODEL, &model, &flag);
  CHECK(flag && *model == MPI_WIN_UNIFIED, "MPI_WIN_MODEL");
  void *attr_base;
  MPI_Win_get_attr(win, MPI_WIN_BASE, &attr_base, &flag);
  CHECK(flag && attr_base == mine, "MPI_WIN_BASE");
  MPI_Aint *attr_size;
  MPI_Win_get_attr(win, MPI_WIN_SIZE, &attr_size, &flag);
  CHECK(flag && *attr_size == bytes, "MPI_WIN_SIZE");
  MPI_Info info;
  MPI_Win_get_info(win, &info);
  char value[64];
  MPI_Info_get(info, "accumulate_ordering", sizeof value - 1, value, &flag);
  CHECK(flag && strcmp(value, "rar,raw,war,waw") == 0, "accumulate_ordering hint");
  MPI_Info_free(&info);
  MPI_Win_set_name(win, "shared one");
  char name[MPI_MAX_OBJECT_NAME];
  int len;
  MPI_Win_get_name(win, name, &len);
  CHECK(strcmp(name, "shared one") == 0, "name");
  MPI_Group g;
  MPI_Win_get_group(win, &g);
  int gsize;
  MPI_Group_size(g, &gsize);
  CHECK(gsize == size, "group size");
  MPI_Group_free(&g);
  MPI_Win_free(&win);
  mt_pass();
  MPI_Finalize();
  return 0;
}
