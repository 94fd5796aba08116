/*
 * MPI_Comm_split (MPI-3.1 §6.4.2) with random colours and keys: every rank
 * computes, from the same pseudo-random choices, which communicator each
 * rank must land in and at which rank (ordered by key, ties by old rank),
 * and checks what MPI built: size, rank, group (through
 * MPI_Group_translate_ranks), and that messages on the new communicator
 * reach the rank the expectation says. Colours include MPI_UNDEFINED (the
 * rank gets MPI_COMM_NULL), keys repeat (ties), and some splits are of
 * splits.
 */
#define TEST_NAME "comm_split"
#include "mpitest.h"

#define ROUNDS 40

static uint32_t lcg(uint32_t *state) {
  *state = *state * 1664525u + 1013904223u;
  return *state >> 8;
}

/* The expected new rank and size of world rank `me`, given everybody's colour and key. */
static void expect(int n, const int *color, const int *key, int me, int *rank, int *size) {
  *rank = 0;
  *size = 0;
  if (color[me] == MPI_UNDEFINED) return;
  for (int r = 0; r < n; r++) {
    if (color[r] != color[me]) continue;
    (*size)++;
    if (key[r] < key[me] || (key[r] == key[me] && r < me)) (*rank)++;
  }
}

/* Checks `comm` (the result of a split of `parent` whose ranks' world
 * ranks are parent_world[]) against the expectation for parent rank `me`. */
static void check_split(MPI_Comm comm, int n, const int *parent_world, const int *color, const int *key, int me,
                        const char *what) {
  int want_rank, want_size;
  expect(n, color, key, me, &want_rank, &want_size);
  if (color[me] == MPI_UNDEFINED) {
    CHECK(comm == MPI_COMM_NULL, "%s: colour MPI_UNDEFINED must give MPI_COMM_NULL", what);
    return;
  }
  CHECK(comm != MPI_COMM_NULL, "%s: got MPI_COMM_NULL for colour %d", what, color[me]);
  int rank, size;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  CHECK(rank == want_rank && size == want_size, "%s: rank %d of %d, expected %d of %d (colour %d key %d)", what,
        rank, size, want_rank, want_size, color[me], key[me]);

  /* The group, in new-rank order, must be the expected world ranks. */
  int *expected_world = mt_malloc(sizeof(int) * (size_t)size);
  for (int r = 0; r < n; r++) {
    if (color[r] != color[me]) continue;
    int rr, ss;
    expect(n, color, key, r, &rr, &ss);
    expected_world[rr] = parent_world[r];
  }
  MPI_Group group, world_group;
  MPI_Comm_group(comm, &group);
  MPI_Comm_group(MPI_COMM_WORLD, &world_group);
  int *ranks = mt_malloc(sizeof(int) * (size_t)size);
  int *world = mt_malloc(sizeof(int) * (size_t)size);
  for (int i = 0; i < size; i++) ranks[i] = i;
  MPI_Group_translate_ranks(group, size, ranks, world_group, world);
  for (int i = 0; i < size; i++)
    CHECK(world[i] == expected_world[i], "%s: new rank %d is world rank %d, expected %d", what, i, world[i],
          expected_world[i]);

  /* Traffic: a ring on the new communicator carries world ranks. */
  int right = (rank + 1) % size, left = (rank + size - 1) % size;
  int got = -1, mine = parent_world[me];
  MPI_Sendrecv(&mine, 1, MPI_INT, right, 5, &got, 1, MPI_INT, left, 5, comm, MPI_STATUS_IGNORE);
  CHECK(got == expected_world[left], "%s: ring message from new rank %d says world rank %d, expected %d", what,
        left, got, expected_world[left]);
  /* A collective on it too: the sum of its world ranks. */
  int sum = 0, want_sum = 0;
  for (int i = 0; i < size; i++) want_sum += expected_world[i];
  MPI_Allreduce(&mine, &sum, 1, MPI_INT, MPI_SUM, comm);
  CHECK(sum == want_sum, "%s: allreduce gives %d, expected %d", what, sum, want_sum);

  MPI_Group_free(&group);
  MPI_Group_free(&world_group);
  free(ranks);
  free(world);
  free(expected_world);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int me, n;
  MPI_Comm_rank(MPI_COMM_WORLD, &me);
  MPI_Comm_size(MPI_COMM_WORLD, &n);

  /* Everybody draws the same sequence from rank 0's seed. */
  uint32_t seed = (uint32_t)time(NULL);
  MPI_Bcast(&seed, 1, MPI_UINT32_T, 0, MPI_COMM_WORLD);
  uint32_t state = seed;
  int *color = mt_malloc(sizeof(int) * (size_t)n), *key = mt_malloc(sizeof(int) * (size_t)n);
  int *world = mt_malloc(sizeof(int) * (size_t)n);
  for (int r = 0; r < n; r++) world[r] = r;

  for (int round = 0; round < ROUNDS; round++) {
    int colors = 1 + (int)(lcg(&state) % (uint32_t)(n + 1));
    for (int r = 0; r < n; r++) {
      uint32_t x = lcg(&state);
      color[r] = x % 7 == 0 ? MPI_UNDEFINED : (int)(x % (uint32_t)colors) * 3;
      key[r] = (int)(lcg(&state) % 4) - 1; /* small range: many ties, negatives too */
    }
    char what[96];
    snprintf(what, sizeof what, "round %d (seed %u)", round, seed);
    MPI_Comm comm;
    MPI_Comm_split(MPI_COMM_WORLD, color[me], key[me], &comm);
    check_split(comm, n, world, color, key, me, what);

    /* Split the split once more, with fresh choices per member. */
    if (comm != MPI_COMM_NULL) {
      int sub_rank, sub_size;
      MPI_Comm_rank(comm, &sub_rank);
      MPI_Comm_size(comm, &sub_size);
      /* Draw for all parent ranks in world order so every rank draws alike,
       * then map to the sub-communicator's ranks. */
      int *sub_color = mt_malloc(sizeof(int) * (size_t)sub_size), *sub_key = mt_malloc(sizeof(int) * (size_t)sub_size);
      int *sub_world = mt_malloc(sizeof(int) * (size_t)sub_size);
      uint32_t sub_state = seed ^ (uint32_t)(round * 7919 + color[me]);
      MPI_Allgather(&me, 1, MPI_INT, sub_world, 1, MPI_INT, comm);
      for (int r = 0; r < sub_size; r++) {
        sub_color[r] = (int)(lcg(&sub_state) % 2);
        sub_key[r] = -(int)(lcg(&sub_state) % 3);
      }
      MPI_Comm sub;
      MPI_Comm_split(comm, sub_color[sub_rank], sub_key[sub_rank], &sub);
      snprintf(what, sizeof what, "round %d, split of the split (seed %u)", round, seed);
      check_split(sub, sub_size, sub_world, sub_color, sub_key, sub_rank, what);
      MPI_Comm_free(&sub);
      CHECK(sub == MPI_COMM_NULL, "MPI_Comm_free must set the handle to MPI_COMM_NULL");
      free(sub_color);
      free(sub_key);
      free(sub_world);
      MPI_Comm_free(&comm);
    }
  }

  /* Same colour everywhere and key = -rank: the order reverses. */
  MPI_Comm reversed;
  MPI_Comm_split(MPI_COMM_WORLD, 0, -me, &reversed);
  int rank;
  MPI_Comm_rank(reversed, &rank);
  CHECK(rank == n - 1 - me, "key -rank: new rank %d, expected %d", rank, n - 1 - me);
  int result;
  MPI_Comm_compare(MPI_COMM_WORLD, reversed, &result);
  CHECK(result == (n == 1 ? MPI_CONGRUENT : MPI_SIMILAR), "compare with the reversed world: %d", result);
  MPI_Comm_free(&reversed);

  free(color);
  free(key);
  free(world);
  mt_pass();
  MPI_Finalize();
  return 0;
}
