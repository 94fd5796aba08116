/*
 * Communicators derived from an intercommunicator (MPI-3.1 §6.4.2):
 * MPI_Comm_split (colours shared by both groups, a colour only one group
 * uses, MPI_UNDEFINED), MPI_Comm_create (a subgroup on each side, an empty
 * subgroup on one side), and MPI_Comm_idup (several in flight, their traffic
 * kept apart, the parent used while they run). Each result is checked by
 * its sizes, its remote group and traffic across it.
 * The intercommunicator joins the even and the odd ranks of
 * MPI_COMM_WORLD. Run with 2 or more ranks.
 */
#define TEST_NAME "intercomm_derive"
#include "mpitest.h"

static int world_rank, world_size;

/* The world rank of remote rank r of `inter`. */
static int remote_world_rank(MPI_Comm inter, int r) {
  MPI_Group remote, world;
  int w = -1;
  CHECK_MPI(MPI_Comm_remote_group(inter, &remote));
  CHECK_MPI(MPI_Comm_group(MPI_COMM_WORLD, &world));
  CHECK_MPI(MPI_Group_translate_ranks(remote, 1, &r, world, &w));
  MPI_Group_free(&remote);
  MPI_Group_free(&world);
  return w;
}

/* Every process sends its world rank to every remote rank and checks what
 * it gets from each against the remote group; then an allreduce across. */
static void check_traffic(MPI_Comm inter, int tag) {
  int size, remote_size;
  MPI_Comm_size(inter, &size);
  MPI_Comm_remote_size(inter, &remote_size);
  MPI_Request *reqs = mt_malloc(sizeof(MPI_Request) * (size_t)remote_size);
  for (int r = 0; r < remote_size; r++) CHECK_MPI(MPI_Isend(&world_rank, 1, MPI_INT, r, tag, inter, &reqs[r]));
  for (int r = 0; r < remote_size; r++) {
    int got = -1;
    CHECK_MPI(MPI_Recv(&got, 1, MPI_INT, r, tag, inter, MPI_STATUS_IGNORE));
    CHECK(got == remote_world_rank(inter, r), "tag %d: remote rank %d sent %d, its world rank is %d", tag, r, got,
          remote_world_rank(inter, r));
  }
  CHECK_MPI(MPI_Waitall(remote_size, reqs, MPI_STATUSES_IGNORE));
  free(reqs);
  /* An allreduce across gives each side the sum of the other's world ranks. */
  long mine = world_rank, sum = -1, want = 0;
  CHECK_MPI(MPI_Allreduce(&mine, &sum, 1, MPI_LONG, MPI_SUM, inter));
  for (int r = 0; r < remote_size; r++) want += remote_world_rank(inter, r);
  CHECK(sum == want, "tag %d: allreduce across gave %ld, want %ld", tag, sum, want);
}

static void test_split(MPI_Comm inter, int odd, int half_rank) {
  /* Colour: half_rank % 2. Both groups have colour 0; colour 1 exists on a
   * side only if it has 2+ members. Keys reverse the order. */
  int color = half_rank % 2, key = -half_rank;
  MPI_Comm sub;
  CHECK_MPI(MPI_Comm_split(inter, color, key, &sub));
  const int evens = (world_size + 1) / 2, odds = world_size / 2;
  const int mine_n = odd ? odds : evens, theirs_n = odd ? evens : odds;
  /* Members of colour c on a side of n processes: ceil or floor of n/2. */
  int local_want = color == 0 ? (mine_n + 1) / 2 : mine_n / 2;
  int remote_want = color == 0 ? (theirs_n + 1) / 2 : theirs_n / 2;
  if (remote_want == 0) {
    CHECK(sub == MPI_COMM_NULL, "colour %d has no remote members: want MPI_COMM_NULL", color);
  } else {
    CHECK(sub != MPI_COMM_NULL, "colour %d: got MPI_COMM_NULL", color);
    int flag = 0, n = -1, rs = -1, r = -1;
    CHECK_MPI(MPI_Comm_test_inter(sub, &flag));
    CHECK(flag, "split of an intercommunicator is not an intercommunicator");
    MPI_Comm_size(sub, &n);
    MPI_Comm_remote_size(sub, &rs);
    MPI_Comm_rank(sub, &r);
    CHECK(n == local_want && rs == remote_want, "colour %d: sizes %d/%d, want %d/%d", color, n, rs, local_want,
          remote_want);
    /* Reversed keys: the highest half rank of my colour is rank 0. */
    int want_rank = (local_want - 1) - half_rank / 2;
    CHECK(r == want_rank, "colour %d: rank %d, want %d", color, r, want_rank);
    /* Remote rank 0 has the highest remote half rank of the colour. */
    int other_parity = odd ? 0 : 1;
    int w0 = remote_world_rank(sub, 0), want_w0 = 2 * (2 * (remote_want - 1) + color) + other_parity;
    CHECK(w0 == want_w0, "colour %d: remote rank 0 is world %d, want %d", color, w0, want_w0);
    check_traffic(sub, 10 + color);
    CHECK_MPI(MPI_Comm_free(&sub));
  }

  /* MPI_UNDEFINED everywhere on one side: nobody gets a communicator. */
  CHECK_MPI(MPI_Comm_split(inter, odd ? MPI_UNDEFINED : 0, 0, &sub));
  CHECK(sub == MPI_COMM_NULL, "a split with one side MPI_UNDEFINED must give MPI_COMM_NULL");
}

static void test_create(MPI_Comm inter, int odd) {
  /* Each side keeps its first max(1, n-1) members. */
  MPI_Group local, sub_group;
  CHECK_MPI(MPI_Comm_group(inter, &local));
  int n, r;
  MPI_Comm_size(inter, &n);
  MPI_Comm_rank(inter, &r);
  int keep = n > 1 ? n - 1 : 1, remote_n;
  MPI_Comm_remote_size(inter, &remote_n);
  int remote_keep = remote_n > 1 ? remote_n - 1 : 1;
  int range[1][3] = {{0, keep - 1, 1}};
  CHECK_MPI(MPI_Group_range_incl(local, 1, range, &sub_group));
  MPI_Comm sub;
  CHECK_MPI(MPI_Comm_create(inter, sub_group, &sub));
  if (r >= keep) {
    CHECK(sub == MPI_COMM_NULL, "rank %d is outside the group: want MPI_COMM_NULL", r);
  } else {
    CHECK(sub != MPI_COMM_NULL, "rank %d is in the group: got MPI_COMM_NULL", r);
    int sn, srn;
    MPI_Comm_size(sub, &sn);
    MPI_Comm_remote_size(sub, &srn);
    CHECK(sn == keep && srn == remote_keep, "create: sizes %d/%d, want %d/%d", sn, srn, keep, remote_keep);
    check_traffic(sub, 20);
    CHECK_MPI(MPI_Comm_free(&sub));
  }
  MPI_Group_free(&sub_group);

  /* One side passes MPI_GROUP_EMPTY: everybody gets MPI_COMM_NULL. */
  CHECK_MPI(MPI_Comm_create(inter, odd ? MPI_GROUP_EMPTY : local, &sub));
  CHECK(sub == MPI_COMM_NULL, "an empty group on one side must give MPI_COMM_NULL");
  MPI_Group_free(&local);
}

static void test_idup(MPI_Comm inter) {
  enum { kDups = 3 };
  MPI_Comm dups[kDups];
  MPI_Request reqs[kDups];
  for (int i = 0; i < kDups; i++) CHECK_MPI(MPI_Comm_idup(inter, &dups[i], &reqs[i]));
  /* The parent stays usable while the idups run. */
  check_traffic(inter, 30);
  CHECK_MPI(MPI_Waitall(kDups, reqs, MPI_STATUSES_IGNORE));
  for (int i = 0; i < kDups; i++) {
    int flag = 0, result = -1;
    CHECK_MPI(MPI_Comm_test_inter(dups[i], &flag));
    CHECK(flag, "idup %d is not an intercommunicator", i);
    CHECK_MPI(MPI_Comm_compare(inter, dups[i], &result));
    CHECK(result == MPI_CONGRUENT, "idup %d compares %d, want MPI_CONGRUENT", i, result);
  }
  /* Traffic on the duplicates in reverse order stays apart: each receive
   * names its communicator, and the same tag is used on all. */
  for (int i = kDups - 1; i >= 0; i--) check_traffic(dups[i], 31);
  /* A duplicate can itself be merged (its hidden local side works). */
  MPI_Comm merged;
  CHECK_MPI(MPI_Intercomm_merge(dups[0], 0, &merged));
  int n;
  MPI_Comm_size(merged, &n);
  CHECK(n == world_size, "merge of an idup has %d ranks, want %d", n, world_size);
  MPI_Comm_free(&merged);
  for (int i = 0; i < kDups; i++) CHECK_MPI(MPI_Comm_free(&dups[i]));
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &world_rank);
  MPI_Comm_size(MPI_COMM_WORLD, &world_size);
  CHECK(world_size >= 2, "needs 2 or more ranks");
  const int odd = world_rank % 2;
  MPI_Comm half, inter;
  CHECK_MPI(MPI_Comm_split(MPI_COMM_WORLD, odd, world_rank, &half));
  int half_rank;
  MPI_Comm_rank(half, &half_rank);
  CHECK_MPI(MPI_Intercomm_create(half, 0, MPI_COMM_WORLD, odd ? 0 : 1, 7, &inter));

  test_split(inter, odd, half_rank);
  test_create(inter, odd);
  test_idup(inter);

  MPI_Comm_free(&inter);
  MPI_Comm_free(&half);
  mt_pass();
  MPI_Finalize();
  return 0;
}
