/*
 * MPI_Comm_split_type with MPI_COMM_TYPE_SHARED (MPI-3.1 §6.4.2): the new
 * communicator holds exactly the ranks that share this rank's host (same
 * MPI_Get_processor_name), ordered by key; MPI_UNDEFINED gives
 * MPI_COMM_NULL; it works on a split of the world too; an unknown split type
 * is MPI_ERR_ARG.
 */
#define TEST_NAME "comm_split_type"
#include "mpitest.h"

static int rank, size;

/* Checks a SHARED split of `parent` (key: -parent rank, so the order reverses). */
static void check_shared(MPI_Comm parent, const char *what) {
  int prank, psize;
  MPI_Comm_rank(parent, &prank);
  MPI_Comm_size(parent, &psize);
  char name[MPI_MAX_PROCESSOR_NAME] = {0};
  int len;
  MPI_Get_processor_name(name, &len);
  char *names = mt_malloc((size_t)psize * MPI_MAX_PROCESSOR_NAME);
  MPI_Allgather(name, MPI_MAX_PROCESSOR_NAME, MPI_CHAR, names, MPI_MAX_PROCESSOR_NAME, MPI_CHAR, parent);

  MPI_Comm node;
  MPI_Comm_split_type(parent, MPI_COMM_TYPE_SHARED, -prank, MPI_INFO_NULL, &node);
  CHECK(node != MPI_COMM_NULL, "%s: MPI_COMM_TYPE_SHARED gave MPI_COMM_NULL", what);
  /* Expected: parent ranks with my host name, in decreasing parent rank. */
  int want_size = 0, want_rank = 0;
  for (int r = 0; r < psize; r++) {
    if (strcmp(names + (size_t)r * MPI_MAX_PROCESSOR_NAME, name) != 0) continue;
    want_size++;
    if (r > prank) want_rank++;
  }
  int nrank, nsize;
  MPI_Comm_rank(node, &nrank);
  MPI_Comm_size(node, &nsize);
  CHECK(nrank == want_rank && nsize == want_size, "%s: rank %d of %d on host %s, expected %d of %d", what, nrank,
        nsize, name, want_rank, want_size);
  /* Every member is on this host. */
  char *node_names = mt_malloc((size_t)nsize * MPI_MAX_PROCESSOR_NAME);
  MPI_Allgather(name, MPI_MAX_PROCESSOR_NAME, MPI_CHAR, node_names, MPI_MAX_PROCESSOR_NAME, MPI_CHAR, node);
  for (int r = 0; r < nsize; r++)
    CHECK(strcmp(node_names + (size_t)r * MPI_MAX_PROCESSOR_NAME, name) == 0, "%s: member %d is on %s, not %s",
          what, r, node_names + (size_t)r * MPI_MAX_PROCESSOR_NAME, name);
  MPI_Comm_free(&node);
  free(names);
  free(node_names);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);

  check_shared(MPI_COMM_WORLD, "world");
  MPI_Comm half;
  MPI_Comm_split(MPI_COMM_WORLD, rank % 2, rank, &half);
  check_shared(half, "a split of the world");
  MPI_Comm_free(&half);

  /* Odd ranks opt out. */
  MPI_Comm node;
  MPI_Comm_split_type(MPI_COMM_WORLD, rank % 2 ? MPI_UNDEFINED : MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node);
  if (rank % 2) {
    CHECK(node == MPI_COMM_NULL, "MPI_UNDEFINED must give MPI_COMM_NULL");
  } else {
    int n;
    MPI_Comm_size(node, &n);
    CHECK(n >= 1 && n <= (size + 1) / 2, "only even ranks may be in the communicator (size %d)", n);
    MPI_Comm_free(&node);
  }

  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  int rc = MPI_Comm_split_type(MPI_COMM_WORLD, 12345, 0, MPI_INFO_NULL, &node);
  int cls = -1;
  MPI_Error_class(rc, &cls);
  CHECK(rc != MPI_SUCCESS && cls == MPI_ERR_ARG, "split type 12345: return %d class %d, expected MPI_ERR_ARG", rc,
        cls);
  mt_pass();
  MPI_Finalize();
  return 0;
}
