/*
 * Groups and the communicators made from them (MPI-3.1 §6.3, §6.4):
 * MPI_Comm_group and the group operations on a running job, MPI_Comm_create
 * (one group, disjoint groups, non-members get MPI_COMM_NULL),
 * MPI_Comm_create_group (only the members call; calls in a row with the same
 * tag but differently ordered groups stay apart), MPI_Comm_compare, error
 * handler inheritance, names, info hints, MPI_Comm_test_inter, and the error
 * classes of bad arguments.
 */
#define TEST_NAME "comm_groups"
#include "mpitest.h"

static int rank, size;

/* The world ranks of a communicator's members, in its rank order. */
static void members_of(MPI_Comm c, int *world) {
  MPI_Group g, wg;
  int n;
  MPI_Comm_group(c, &g);
  MPI_Comm_group(MPI_COMM_WORLD, &wg);
  MPI_Group_size(g, &n);
  int *ranks = mt_malloc(sizeof(int) * (size_t)n);
  for (int i = 0; i < n; i++) ranks[i] = i;
  MPI_Group_translate_ranks(g, n, ranks, wg, world);
  free(ranks);
  MPI_Group_free(&g);
  MPI_Group_free(&wg);
}

static void group_operations(void) {
  MPI_Group world, evens, odds, reversed, u, x, d;
  int n, r, result;
  MPI_Comm_group(MPI_COMM_WORLD, &world);
  MPI_Group_size(world, &n);
  MPI_Group_rank(world, &r);
  CHECK(n == size && r == rank, "world group: rank %d of %d", r, n);

  int ranges[1][3] = {{0, size - 1, 2}};
  MPI_Group_range_incl(world, 1, ranges, &evens);
  MPI_Group_range_excl(world, 1, ranges, &odds);
  MPI_Group_size(evens, &n);
  CHECK(n == (size + 1) / 2, "evens: size %d", n);
  MPI_Group_rank(evens, &r);
  CHECK(r == (rank % 2 ? MPI_UNDEFINED : rank / 2), "evens: rank %d", r);
  MPI_Group_rank(odds, &r);
  CHECK(r == (rank % 2 ? rank / 2 : MPI_UNDEFINED), "odds: rank %d", r);

  int *order = mt_malloc(sizeof(int) * (size_t)size);
  for (int i = 0; i < size; i++) order[i] = size - 1 - i;
  MPI_Group_incl(world, size, order, &reversed);
  MPI_Group_compare(world, reversed, &result);
  CHECK(result == (size == 1 ? MPI_IDENT : MPI_SIMILAR), "world vs reversed: %d", result);
  MPI_Group_compare(world, world, &result);
  CHECK(result == MPI_IDENT, "world vs world: %d", result);

  MPI_Group_union(odds, evens, &u);
  MPI_Group_compare(u, world, &result);
  CHECK(result == (size <= 1 ? MPI_IDENT : MPI_SIMILAR), "odds + evens vs world: %d", result);
  MPI_Group_intersection(evens, odds, &x);
  MPI_Group_size(x, &n);
  CHECK(n == 0, "evens and odds intersect in %d ranks", n);
  MPI_Group_compare(x, MPI_GROUP_EMPTY, &result);
  CHECK(result == MPI_IDENT, "an empty intersection compares as %d to MPI_GROUP_EMPTY", result);
  MPI_Group_difference(world, odds, &d);
  MPI_Group_compare(d, evens, &result);
  CHECK(result == MPI_IDENT, "world - odds vs evens: %d", result);

  /* Translate: world rank i is rank size-1-i of the reversed group. */
  int *t = mt_malloc(sizeof(int) * (size_t)size), *ranks = mt_malloc(sizeof(int) * (size_t)size);
  for (int i = 0; i < size; i++) ranks[i] = i;
  MPI_Group_translate_ranks(world, size, ranks, reversed, t);
  for (int i = 0; i < size; i++) CHECK(t[i] == size - 1 - i, "translate %d to reversed: %d", i, t[i]);
  MPI_Group_translate_ranks(world, size, ranks, evens, t);
  for (int i = 0; i < size; i++)
    CHECK(t[i] == (i % 2 ? MPI_UNDEFINED : i / 2), "translate %d to evens: %d", i, t[i]);

  MPI_Group all[] = {world, evens, odds, reversed, u, x, d};
  for (int i = 0; i < 7; i++) {
    MPI_Group_free(&all[i]);
    CHECK(all[i] == MPI_GROUP_NULL, "MPI_Group_free must set MPI_GROUP_NULL");
  }
  free(order);
  free(t);
  free(ranks);
}

static void comm_create(void) {
  MPI_Group world, evens, mine;
  MPI_Comm_group(MPI_COMM_WORLD, &world);
  int ranges[1][3] = {{0, size - 1, 2}};
  MPI_Group_range_incl(world, 1, ranges, &evens);

  /* One group: only the evens get a communicator. */
  MPI_Comm c;
  MPI_Comm_create(MPI_COMM_WORLD, evens, &c);
  if (rank % 2) {
    CHECK(c == MPI_COMM_NULL, "an odd rank got a communicator from MPI_Comm_create(evens)");
  } else {
    int r, n, world_of[64];
    MPI_Comm_rank(c, &r);
    MPI_Comm_size(c, &n);
    CHECK(r == rank / 2 && n == (size + 1) / 2, "evens communicator: rank %d of %d", r, n);
    members_of(c, world_of);
    for (int i = 0; i < n; i++) CHECK(world_of[i] == 2 * i, "evens communicator: member %d is %d", i, world_of[i]);
    MPI_Comm_free(&c);
  }

  /* Disjoint groups, each rank passing its own half (MPI-2.2 and later). */
  MPI_Group_range_incl(world, 1, ranges, &evens);
  if (rank % 2) {
    MPI_Group_free(&evens);
    MPI_Group_range_excl(world, 1, ranges, &mine);
  } else {
    mine = evens;
  }
  MPI_Comm_create(MPI_COMM_WORLD, mine, &c);
  CHECK(c != MPI_COMM_NULL, "MPI_Comm_create with disjoint groups gave MPI_COMM_NULL");
  int sum = 0, expected = 0;
  MPI_Allreduce(&rank, &sum, 1, MPI_INT, MPI_SUM, c);
  for (int i = rank % 2; i < size; i += 2) expected += i;
  CHECK(sum == expected, "sum of world ranks in my half: %d, expected %d", sum, expected);
  MPI_Comm_free(&c);
  MPI_Group_free(&mine);

  /* MPI_GROUP_EMPTY everywhere: nobody gets one. */
  MPI_Comm_create(MPI_COMM_WORLD, MPI_GROUP_EMPTY, &c);
  CHECK(c == MPI_COMM_NULL, "MPI_Comm_create(MPI_GROUP_EMPTY) gave a communicator");
  MPI_Group_free(&world);
}

static void comm_create_group(void) {
  MPI_Group world, forward, backward;
  MPI_Comm_group(MPI_COMM_WORLD, &world);
  int *order = mt_malloc(sizeof(int) * (size_t)size);
  /* Groups of the first size-1 ranks (all for 1 rank), in both orders; the
   * last rank does not call at all. */
  int members = size > 1 ? size - 1 : 1;
  for (int i = 0; i < members; i++) order[i] = i;
  MPI_Group_incl(world, members, order, &forward);
  for (int i = 0; i < members; i++) order[i] = members - 1 - i;
  MPI_Group_incl(world, members, order, &backward);
  if (rank < members) {
    for (int i = 0; i < 20; i++) {
      MPI_Comm c;
      int r, n, world_of[64];
      /* Same tag, alternating order: a fast rank's next call must not meet a
       * slow rank's previous one. */
      MPI_Comm_create_group(MPI_COMM_WORLD, i % 2 ? backward : forward, 42, &c);
      MPI_Comm_rank(c, &r);
      MPI_Comm_size(c, &n);
      int want = i % 2 ? members - 1 - rank : rank;
      CHECK(r == want && n == members, "create_group %d: rank %d of %d, expected %d of %d", i, r, n, want, members);
      members_of(c, world_of);
      for (int k = 0; k < n; k++)
        CHECK(world_of[k] == (i % 2 ? members - 1 - k : k), "create_group %d: member %d is %d", i, k, world_of[k]);
      int token = 1000 * i + rank, got = -1;
      MPI_Sendrecv(&token, 1, MPI_INT, (r + 1) % n, 0, &got, 1, MPI_INT, (r + n - 1) % n, 0, c, MPI_STATUS_IGNORE);
      CHECK(got / 1000 == i, "create_group %d: message from call %d", i, got / 1000);
      MPI_Comm_free(&c);
    }
  }
  /* Each rank alone, over MPI_COMM_SELF's group: nothing to agree with. */
  MPI_Group self_group;
  MPI_Comm_group(MPI_COMM_SELF, &self_group);
  MPI_Comm c;
  MPI_Comm_create_group(MPI_COMM_WORLD, self_group, 7, &c);
  int n = 0;
  MPI_Comm_size(c, &n);
  CHECK(n == 1, "create_group over MPI_COMM_SELF's group: size %d", n);
  MPI_Comm_free(&c);
  MPI_Group_free(&self_group);
  MPI_Group_free(&world);
  MPI_Group_free(&forward);
  MPI_Group_free(&backward);
  free(order);
  MPI_Barrier(MPI_COMM_WORLD);
}

static void inheritance_names_info(void) {
  MPI_Comm base, copy, split;
  MPI_Comm_dup(MPI_COMM_WORLD, &base);
  MPI_Comm_set_errhandler(base, MPI_ERRORS_RETURN);
  MPI_Comm_dup(base, &copy);
  MPI_Comm_split(base, 0, rank, &split);
  MPI_Errhandler eh;
  MPI_Comm_get_errhandler(copy, &eh);
  CHECK(eh == MPI_ERRORS_RETURN, "a dup must inherit MPI_ERRORS_RETURN");
  MPI_Errhandler_free(&eh);
  MPI_Comm_get_errhandler(split, &eh);
  CHECK(eh == MPI_ERRORS_RETURN, "a split must inherit MPI_ERRORS_RETURN");
  MPI_Errhandler_free(&eh);
  /* ...so an error on the split returns instead of aborting. */
  int x = 0;
  int rc = MPI_Send(&x, 1, MPI_INT, size + 3, 0, split);
  mt_expect_error(rc, MPI_ERR_RANK, "MPI_Send", "send to a bad rank on an inherited MPI_ERRORS_RETURN");

  char name[MPI_MAX_OBJECT_NAME];
  int len = -1;
  MPI_Comm_get_name(MPI_COMM_WORLD, name, &len);
  CHECK(strcmp(name, "MPI_COMM_WORLD") == 0 && len == 14, "world's name is \"%s\" (%d)", name, len);
  MPI_Comm_get_name(copy, name, &len);
  CHECK(len == 0 && name[0] == 0, "a new communicator's name is \"%s\"", name);
  MPI_Comm_set_name(copy, "solver");
  MPI_Comm_get_name(copy, name, &len);
  CHECK(strcmp(name, "solver") == 0 && len == 6, "name after set: \"%s\" (%d)", name, len);
  char long_name[300];
  memset(long_name, 'x', sizeof long_name - 1);
  long_name[sizeof long_name - 1] = 0;
  MPI_Comm_set_name(copy, long_name);
  MPI_Comm_get_name(copy, name, &len);
  CHECK(len == MPI_MAX_OBJECT_NAME - 1 && (int)strlen(name) == len, "a long name is cut to %d, got %d",
        MPI_MAX_OBJECT_NAME - 1, len);

  /* MPI-4.0 §7.4.4: a hint the implementation recognizes (the standard's
   * assertions) comes back from MPI_Comm_get_info; one it does not is
   * ignored, as in MPICH. */
  MPI_Info info, used;
  char value[64];
  int flag = 0;
  MPI_Info_create(&info);
  MPI_Info_set(info, "mpi_assert_no_any_tag", "true");
  MPI_Info_set(info, "ferry_unknown_hint", "yes");
  MPI_Comm_set_info(copy, info);
  MPI_Comm_get_info(copy, &used);
  MPI_Info_get(used, "mpi_assert_no_any_tag", sizeof value - 1, value, &flag);
  CHECK(flag && strcmp(value, "true") == 0, "MPI_Comm_get_info lost a hint that was set");
  MPI_Info_get(used, "ferry_unknown_hint", sizeof value - 1, value, &flag);
  CHECK(!flag, "MPI_Comm_set_info kept the unknown key ferry_unknown_hint");
  MPI_Info_free(&used);
  MPI_Comm dup_info;
  MPI_Info_set(info, "mpi_assert_exact_length", "true");
  MPI_Info_delete(info, "mpi_assert_no_any_tag");
  MPI_Comm_dup_with_info(copy, info, &dup_info);
  MPI_Comm_get_info(dup_info, &used);
  MPI_Info_get(used, "mpi_assert_no_any_tag", sizeof value - 1, value, &flag);
  CHECK(!flag || strcmp(value, "false") == 0,
        "MPI_Comm_dup_with_info must take the new info's hints, not the parent's");
  MPI_Info_get(used, "mpi_assert_exact_length", sizeof value - 1, value, &flag);
  CHECK(flag && strcmp(value, "true") == 0, "MPI_Comm_dup_with_info lost the hint it was given");
  MPI_Info_get(used, "ferry_unknown_hint", sizeof value - 1, value, &flag);
  CHECK(!flag, "MPI_Comm_dup_with_info kept the unknown key ferry_unknown_hint");
  MPI_Info_free(&used);
  MPI_Info_free(&info);

  int inter = -1;
  MPI_Comm_test_inter(copy, &inter);
  CHECK(inter == 0, "MPI_Comm_test_inter says %d for an intracommunicator", inter);

  int result;
  MPI_Comm_compare(base, copy, &result);
  CHECK(result == MPI_CONGRUENT, "base vs its dup: %d", result);
  MPI_Comm_compare(copy, copy, &result);
  CHECK(result == MPI_IDENT, "a communicator vs itself: %d", result);
  MPI_Comm_compare(MPI_COMM_WORLD, MPI_COMM_SELF, &result);
  CHECK(result == (size == 1 ? MPI_CONGRUENT : MPI_UNEQUAL), "world vs self: %d", result);

  MPI_Comm_free(&dup_info);
  MPI_Comm_free(&split);
  MPI_Comm_free(&copy);
  MPI_Comm_free(&base);
}

static void bad_arguments(void) {
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  MPI_Group world, g;
  MPI_Comm c;
  MPI_Comm_group(MPI_COMM_WORLD, &world);
  int bad_rank[1] = {size};
  mt_expect_error(MPI_Group_incl(world, 1, bad_rank, &g), MPI_ERR_RANK, "MPI_Group_incl", "rank = size");
  int twice[2] = {0, 0};
  mt_expect_error(MPI_Group_excl(world, 2, twice, &g), MPI_ERR_RANK, "MPI_Group_excl", "a rank twice");
  int zero_stride[1][3] = {{0, 0, 0}};
  mt_expect_error(MPI_Group_range_incl(world, 1, zero_stride, &g), MPI_ERR_ARG, "MPI_Group_range_incl", "stride 0");
  mt_expect_error(MPI_Group_size(MPI_GROUP_NULL, &bad_rank[0]), MPI_ERR_GROUP, "MPI_Group_size", "MPI_GROUP_NULL");
  g = MPI_GROUP_NULL;
  mt_expect_error(MPI_Group_free(&g), MPI_ERR_GROUP, "MPI_Group_free", "freeing MPI_GROUP_NULL");
  c = MPI_COMM_WORLD;
  mt_expect_error(MPI_Comm_free(&c), MPI_ERR_COMM, "MPI_Comm_free", "freeing MPI_COMM_WORLD");
  c = MPI_COMM_NULL;
  mt_expect_error(MPI_Comm_free(&c), MPI_ERR_COMM, "MPI_Comm_free", "freeing MPI_COMM_NULL");
  mt_expect_error(MPI_Comm_dup(MPI_COMM_NULL, &c), MPI_ERR_COMM, "MPI_Comm_dup", "dup of MPI_COMM_NULL");
  mt_expect_error(MPI_Comm_split(MPI_COMM_WORLD, -5, 0, &c), MPI_ERR_ARG, "MPI_Comm_split", "colour -5");
  mt_expect_error(MPI_Comm_create(MPI_COMM_WORLD, MPI_GROUP_NULL, &c), MPI_ERR_GROUP, "MPI_Comm_create",
               "MPI_GROUP_NULL");
  mt_expect_error(MPI_Comm_create_group(MPI_COMM_WORLD, world, -3, &c), MPI_ERR_TAG, "MPI_Comm_create_group",
               "tag -3");
  mt_expect_error(MPI_Comm_set_name(MPI_COMM_WORLD, NULL), MPI_ERR_ARG, "MPI_Comm_set_name", "NULL name");
  /* A group that is not part of the communicator: a half of the world
   * with more than one rank, given to MPI_COMM_SELF (local, so no rank
   * waits for another). */
  if (size >= 2) {
    MPI_Comm half;
    MPI_Group half_group;
    int half_size;
    MPI_Comm_split(MPI_COMM_WORLD, rank % 2, rank, &half);
    MPI_Comm_size(half, &half_size);
    MPI_Comm_group(half, &half_group);
    MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
    if (half_size > 1)
      mt_expect_error(MPI_Comm_create(MPI_COMM_SELF, half_group, &c), MPI_ERR_GROUP, "MPI_Comm_create",
                   "a group that is not a subgroup of the communicator");
    MPI_Group_free(&half_group);
    MPI_Comm_free(&half);
  }
  if (mt_is_ferry() && rank == 0) {
    /* An intercommunicator whose remote leader is the local leader itself:
     * the groups would overlap (MPI-3.1 §6.6.2). */
    MPI_Comm inter;
    char msg[MPI_MAX_ERROR_STRING];
    int len, cls = -1;
    MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
    int rc = MPI_Intercomm_create(MPI_COMM_SELF, 0, MPI_COMM_WORLD, 0, 1, &inter);
    MPI_Error_string(rc, msg, &len);
    MPI_Error_class(rc, &cls);
    CHECK(cls == MPI_ERR_ARG && strstr(msg, "disjoint") != NULL,
          "MPI_Intercomm_create with the remote leader being the local one: class %d, \"%s\"", cls, msg);
  }
  MPI_Group_free(&world);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  CHECK(size <= 64, "this test handles at most 64 ranks");
  group_operations();
  comm_create();
  comm_create_group();
  inheritance_names_info();
  bad_arguments();
  mt_pass();
  MPI_Finalize();
  return 0;
}
