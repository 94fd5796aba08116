/*
 * MPI_Comm_split_type by hardware (MPI-4.0 §7.4.2), checked against hwloc's
 * own view of this host: with "mpi_hw_resource_type" = "hwloc://Package"
 * (and NUMANode, L3Cache) the ranks of one new communicator are exactly
 * the ranks of this host whose binding lies in the same object; unknown
 * types and a missing key give MPI_COMM_NULL everywhere; the unguided split
 * gives a strictly smaller communicator (or none) and names its level.
 */
#define TEST_NAME "comm_hw_split"
#include "../mpitest.h"

#include <hwloc.h>

static hwloc_topology_t topology;
static hwloc_bitmap_t binding;

/* The logical index of the object of `type` holding this process, or -1. */
static int my_object(hwloc_obj_type_t type) {
  int n = hwloc_get_nbobjs_by_type(topology, type);
  for (int i = 0; i < n; ++i) {
    hwloc_obj_t o = hwloc_get_obj_by_type(topology, type, (unsigned)i);
    if (o->cpuset && hwloc_bitmap_isincluded(binding, o->cpuset)) return (int)o->logical_index;
  }
  return -1;
}

static void check_guided(const char *value, hwloc_obj_type_t type, MPI_Comm host) {
  MPI_Info info;
  MPI_Comm c;
  int hsize, hrank;
  MPI_Comm_size(host, &hsize);
  MPI_Comm_rank(host, &hrank);
  MPI_Info_create(&info);
  MPI_Info_set(info, "mpi_hw_resource_type", value);
  CHECK_MPI(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_HW_GUIDED, 0, info, &c));
  MPI_Info_free(&info);
  int mine = my_object(type);
  int *all = mt_malloc(sizeof(int) * (size_t)hsize);
  MPI_Allgather(&mine, 1, MPI_INT, all, 1, MPI_INT, host);
  if (mine < 0) {
    CHECK(c == MPI_COMM_NULL, "%s: a process outside any one object got a communicator", value);
  } else {
    int expected = 0;
    for (int r = 0; r < hsize; ++r) expected += all[r] == mine;
    CHECK(c != MPI_COMM_NULL, "%s: got MPI_COMM_NULL though bound within object %d", value, mine);
    int size;
    MPI_Comm_size(c, &size);
    CHECK(size == expected, "%s: communicator of %d ranks, hwloc puts %d ranks of this host in object %d", value,
          size, expected, mine);
    int *theirs = mt_malloc(sizeof(int) * (size_t)size);
    MPI_Allgather(&mine, 1, MPI_INT, theirs, 1, MPI_INT, c);
    for (int r = 0; r < size; ++r) CHECK(theirs[r] == mine, "%s: rank %d is in object %d, not %d", value, r, theirs[r], mine);
    free(theirs);
    MPI_Comm_free(&c);
  }
  free(all);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  hwloc_topology_init(&topology);
  hwloc_topology_load(topology);
  binding = hwloc_bitmap_alloc();
  if (hwloc_get_cpubind(topology, binding, HWLOC_CPUBIND_PROCESS) != 0)
    hwloc_bitmap_copy(binding, hwloc_topology_get_topology_cpuset(topology));

  int wsize;
  MPI_Comm_size(MPI_COMM_WORLD, &wsize);
  MPI_Comm host;
  MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &host);

  check_guided("hwloc://Package", HWLOC_OBJ_PACKAGE, host);
  check_guided("hwloc://NUMANode", HWLOC_OBJ_NUMANODE, host);
  check_guided("hwloc://L3Cache", HWLOC_OBJ_L3CACHE, host);
  check_guided("hwloc://Core", HWLOC_OBJ_CORE, host);

  /* mpi_shared_memory is MPI_COMM_TYPE_SHARED. */
  MPI_Info info;
  MPI_Comm c;
  MPI_Info_create(&info);
  MPI_Info_set(info, "mpi_hw_resource_type", "mpi_shared_memory");
  CHECK_MPI(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_HW_GUIDED, 0, info, &c));
  int result;
  CHECK(c != MPI_COMM_NULL, "mpi_shared_memory gave MPI_COMM_NULL");
  MPI_Comm_compare(c, host, &result);
  CHECK(result == MPI_CONGRUENT, "mpi_shared_memory and MPI_COMM_TYPE_SHARED differ (%d)", result);
  MPI_Comm_free(&c);
  /* Unknown types and a missing key: MPI_COMM_NULL for all. */
  MPI_Info_set(info, "mpi_hw_resource_type", "hwloc://NoSuchThing");
  CHECK_MPI(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_HW_GUIDED, 0, info, &c));
  CHECK(c == MPI_COMM_NULL, "an unknown resource type gave a communicator");
  CHECK_MPI(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_HW_GUIDED, 0, MPI_INFO_NULL, &c));
  CHECK(c == MPI_COMM_NULL, "HW_GUIDED without info gave a communicator");
  MPI_Info_free(&info);

  /* Unguided: strictly smaller, and the info names the level. */
  MPI_Info_create(&info);
  CHECK_MPI(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_HW_UNGUIDED, 0, info, &c));
  if (c != MPI_COMM_NULL) {
    int size, flag = 0;
    char level[MPI_MAX_INFO_VAL + 1];
    MPI_Comm_size(c, &size);
    CHECK(size < wsize, "HW_UNGUIDED gave %d ranks of %d", size, wsize);
    MPI_Info_get(info, "mpi_hw_resource_type", MPI_MAX_INFO_VAL, level, &flag);
    CHECK(flag && strncmp(level, "hwloc://", 8) == 0, "HW_UNGUIDED: mpi_hw_resource_type is \"%s\"",
          flag ? level : "");
    MPI_Comm_free(&c);
  }
  MPI_Info_free(&info);
  /* A bad split_type names the call and the argument. */
  int rc = MPI_Comm_split_type(MPI_COMM_WORLD, 77, 0, MPI_INFO_NULL, &c), cls;
  MPI_Error_class(rc, &cls);
  CHECK(cls == MPI_ERR_ARG, "split_type 77: class %d", cls);

  MPI_Comm_free(&host);
  hwloc_bitmap_free(binding);
  hwloc_topology_destroy(topology);
  mt_pass();
  MPI_Finalize();
  return 0;
}
