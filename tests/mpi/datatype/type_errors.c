/*
 * Erroneous datatype calls under MPI_ERRORS_RETURN return the right error
 * class (MPI_ERR_COUNT for negative counts and block lengths, MPI_ERR_TYPE
 * for bad or uncommitted types and for freeing a predefined one,
 * MPI_ERR_ARG for bad arguments), with a message that names the call
 * (FERRY_CHECK_ERROR_STRINGS). Checks that MPICH, the reference, does not
 * make are Ferry-only. Then freeing types that pending operations use
 * (MPI-3.1 §4.1.9): nonblocking and persistent, send and receive side.
 */
#define TEST_NAME "type_errors"
#include "mpitest.h"

/* Ferry's messages also name the offending argument. */
static void expect_words(int rc, const char *words, const char *what) {
  char msg[MPI_MAX_ERROR_STRING];
  int len;
  if (!mt_is_ferry()) return;
  MPI_Error_string(rc, msg, &len);
  CHECK(strstr(msg, words) != NULL, "%s: the message \"%s\" does not say \"%s\"", what, msg, words);
}

static void bad_constructors(void) {
  MPI_Datatype t = MPI_DATATYPE_NULL;
  int rc;
  mt_expect_error(MPI_Type_contiguous(-1, MPI_INT, &t), MPI_ERR_COUNT, "MPI_Type_contiguous", "count -1");
  mt_expect_error(MPI_Type_vector(-2, 1, 1, MPI_INT, &t), MPI_ERR_COUNT, "MPI_Type_vector", "count -2");
  mt_expect_error(MPI_Type_vector(2, -1, 1, MPI_INT, &t), MPI_ERR_COUNT, "MPI_Type_vector", "blocklength -1");
  rc = MPI_Type_vector(2, 1, 1, MPI_DATATYPE_NULL, &t);
  mt_expect_error(rc, MPI_ERR_TYPE, "MPI_Type_vector", "oldtype MPI_DATATYPE_NULL");
  expect_words(rc, "oldtype", "oldtype MPI_DATATYPE_NULL");
  rc = MPI_Type_indexed(2, (int[]){1, -1}, (int[]){0, 4}, MPI_INT, &t);
  mt_expect_error(rc, MPI_ERR_COUNT, "MPI_Type_indexed", "a negative block length");
  expect_words(rc, "array_of_blocklengths[1]", "a negative block length");
  mt_expect_error(MPI_Type_create_hindexed(1, (int[]){-4}, (MPI_Aint[]){0}, MPI_INT, &t), MPI_ERR_COUNT,
               "MPI_Type_create_hindexed", "a negative block length");
  mt_expect_error(MPI_Type_create_indexed_block(2, -1, (int[]){0, 4}, MPI_INT, &t), MPI_ERR_COUNT,
               "MPI_Type_create_indexed_block", "blocklength -1");
  rc = MPI_Type_create_struct(2, (int[]){1, 1}, (MPI_Aint[]){0, 4}, (MPI_Datatype[]){MPI_INT, MPI_DATATYPE_NULL}, &t);
  mt_expect_error(rc, MPI_ERR_TYPE, "MPI_Type_create_struct", "a null member type");
  expect_words(rc, "array_of_types[1]", "a null member type");
  mt_expect_error(MPI_Type_create_struct(1, (int[]){-1}, (MPI_Aint[]){0}, (MPI_Datatype[]){MPI_INT}, &t), MPI_ERR_COUNT,
               "MPI_Type_create_struct", "a negative block length");
  mt_expect_error(MPI_Type_create_subarray(2, (int[]){4, 4}, (int[]){2, 2}, (int[]){0, 0}, 99, MPI_INT, &t), MPI_ERR_ARG,
               "MPI_Type_create_subarray", "order 99");
  mt_expect_error(MPI_Type_create_resized(MPI_DATATYPE_NULL, 0, 8, &t), MPI_ERR_TYPE, "MPI_Type_create_resized",
               "oldtype MPI_DATATYPE_NULL");
  mt_expect_error(MPI_Type_dup(MPI_DATATYPE_NULL, &t), MPI_ERR_TYPE, "MPI_Type_dup", "MPI_DATATYPE_NULL");
  CHECK(t == MPI_DATATYPE_NULL, "a failed constructor wrote newtype");

  if (mt_is_ferry()) {
    /* MPICH 4.0 does not check these (or crashes). */
    rc = MPI_Type_create_subarray(2, (int[]){4, 4}, (int[]){2, 2}, (int[]){3, 0}, MPI_ORDER_C, MPI_INT, &t);
    mt_expect_error(rc, MPI_ERR_ARG, "MPI_Type_create_subarray", "a start past the array");
    expect_words(rc, "array_of_starts[0]", "a start past the array");
    rc = MPI_Type_create_darray(4, 0, 2, (int[]){8, 8}, (int[]){MPI_DISTRIBUTE_BLOCK, MPI_DISTRIBUTE_BLOCK},
                                (int[]){MPI_DISTRIBUTE_DFLT_DARG, MPI_DISTRIBUTE_DFLT_DARG}, (int[]){2, 3},
                                MPI_ORDER_C, MPI_INT, &t);
    mt_expect_error(rc, MPI_ERR_ARG, "MPI_Type_create_darray", "a process grid of 6 for 4 processes");
    rc = MPI_Type_create_darray(2, 0, 1, (int[]){8}, (int[]){MPI_DISTRIBUTE_BLOCK}, (int[]){2}, (int[]){2},
                                MPI_ORDER_C, MPI_INT, &t);
    mt_expect_error(rc, MPI_ERR_ARG, "MPI_Type_create_darray", "blocks too small for the array");
    expect_words(rc, "array_of_dargs[0]", "blocks too small for the array");
    mt_expect_error(MPI_Type_vector(1, 1, 1, MPI_INT, NULL), MPI_ERR_ARG, "MPI_Type_vector", "newtype NULL");
    mt_expect_error(MPI_Type_commit(NULL), MPI_ERR_ARG, "MPI_Type_commit", "NULL");
  }
}

static void bad_uses(int right, int left) {
  MPI_Datatype t, null = MPI_DATATYPE_NULL, predefined = MPI_INT;
  int buf[8] = {0}, rc, position = 0;
  char packed[64];
  MPI_Status st;

  mt_expect_error(MPI_Type_commit(&null), MPI_ERR_TYPE, "MPI_Type_commit", "MPI_DATATYPE_NULL");
  mt_expect_error(MPI_Type_free(&null), MPI_ERR_TYPE, "MPI_Type_free", "MPI_DATATYPE_NULL");
  rc = MPI_Type_free(&predefined);
  mt_expect_error(rc, MPI_ERR_TYPE, "MPI_Type_free", "MPI_INT");
  CHECK(predefined == MPI_INT, "MPI_Type_free of MPI_INT changed the handle");
  MPI_Aint addresses[1];
  mt_expect_error(MPI_Type_get_contents(MPI_INT, 1, 1, 1, buf, addresses, &t), MPI_ERR_TYPE, "MPI_Type_get_contents",
               "a predefined type");

  /* Uncommitted types cannot be communicated or packed. */
  MPI_Type_vector(2, 1, 2, MPI_INT, &t);
  rc = MPI_Send(buf, 1, t, right, 0, MPI_COMM_WORLD);
  mt_expect_error(rc, MPI_ERR_TYPE, "MPI_Send", "an uncommitted type");
  expect_words(rc, "not committed", "an uncommitted type");
  mt_expect_error(MPI_Recv(buf, 1, t, left, 0, MPI_COMM_WORLD, &st), MPI_ERR_TYPE, "MPI_Recv", "an uncommitted type");
  mt_expect_error(MPI_Pack(buf, 1, t, packed, sizeof packed, &position, MPI_COMM_WORLD), MPI_ERR_TYPE, "MPI_Pack",
               "an uncommitted type");
  MPI_Type_commit(&t);
  if (mt_is_ferry()) {
    /* MPICH 4.0 packs what fits and returns MPI_SUCCESS here. */
    position = 60;
    mt_expect_error(MPI_Pack(buf, 1, t, packed, sizeof packed, &position, MPI_COMM_WORLD), MPI_ERR_TRUNCATE, "MPI_Pack",
                 "8 bytes into the last 4");
    CHECK(position == 60, "a failed MPI_Pack moved the position to %d", position);
    position = 0;
    mt_expect_error(MPI_Unpack(packed, 4, &position, buf, 1, t, MPI_COMM_WORLD), MPI_ERR_TRUNCATE, "MPI_Unpack",
                 "8 bytes out of 4");
    int ints[1];
    MPI_Datatype types[1];
    rc = MPI_Type_get_contents(t, 1, 0, 1, ints, NULL, types);
    mt_expect_error(rc, MPI_ERR_ARG, "MPI_Type_get_contents", "max_integers too small");
    expect_words(rc, "max_integers", "max_integers too small");
  }
  MPI_Type_free(&t);
  CHECK(t == MPI_DATATYPE_NULL, "MPI_Type_free did not reset the handle");
}

/* Freeing a type while operations use it (MPI-3.1 §4.1.9): they go on. */
static void free_while_pending(int rank, int size) {
  int right = (rank + 1) % size, left = (rank + size - 1) % size;
  const int n = 100000; /* rendezvous: the send waits for the receive */
  double *out = mt_malloc(2 * (size_t)n * sizeof(double)), *in = mt_malloc(2 * (size_t)n * sizeof(double));
  MPI_Datatype send_type, recv_type;
  MPI_Request req[2];
  for (int round = 0; round < 3; round++) {
    MPI_Type_vector(n, 1, 2, MPI_DOUBLE, &send_type);
    MPI_Type_create_hvector(n, 1, 2 * sizeof(double), MPI_DOUBLE, &recv_type);
    MPI_Type_commit(&send_type);
    MPI_Type_commit(&recv_type);
    for (int k = 0; k < 2 * n; k++) out[k] = rank * 1e7 + round * 1e6 + k, in[k] = -1;
    if (round < 2) {
      MPI_Irecv(in + 1, 1, recv_type, left, round, MPI_COMM_WORLD, &req[0]);
      MPI_Isend(out, 1, send_type, right, round, MPI_COMM_WORLD, &req[1]);
      MPI_Type_free(&send_type);
      MPI_Type_free(&recv_type);
      if (round == 1) MPI_Barrier(MPI_COMM_WORLD); /* everything posted before anything moves on */
      MPI_Waitall(2, req, MPI_STATUSES_IGNORE);
    } else {
      /* Persistent requests keep their types across starts. */
      MPI_Recv_init(in + 1, 1, recv_type, left, round, MPI_COMM_WORLD, &req[0]);
      MPI_Send_init(out, 1, send_type, right, round, MPI_COMM_WORLD, &req[1]);
      MPI_Type_free(&send_type);
      MPI_Type_free(&recv_type);
      for (int start = 0; start < 2; start++) {
        MPI_Startall(2, req);
        MPI_Waitall(2, req, MPI_STATUSES_IGNORE);
      }
      MPI_Request_free(&req[0]);
      MPI_Request_free(&req[1]);
    }
    for (int k = 0; k < n; k++) {
      double want = left * 1e7 + round * 1e6 + 2 * k;
      CHECK(in[2 * k + 1] == want, "round %d: element %d is %.0f, expected %.0f", round, k, in[2 * k + 1], want);
      CHECK(in[2 * k] == -1, "round %d: gap %d was written", round, k);
    }
  }
  free(out), free(in);
}

int main(int argc, char **argv) {
  int rank, size;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  bad_constructors();
  bad_uses((rank + 1) % size, (rank + size - 1) % size);
  free_while_pending(rank, size);
  mt_pass();
  MPI_Finalize();
  return 0;
}
