/*
 * MPI_Isendrecv and MPI_Isendrecv_replace (MPI-4.0 §3.10): a ring shift in
 * both directions completes with the receive's status; MPI_PROC_NULL on
 * either side; a wildcard source (the status names the real one); the
 * _replace form leaves the incoming data in the buffer even with a
 * non-contiguous type; the _c forms; errors (bad rank, NULL request).
 */
#define TEST_NAME "p2p_isendrecv"
#include "mpitest.h"

enum { kN = 5000 };

int main(int argc, char **argv) {
  int rank, size;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const int right = (rank + 1) % size, left = (rank - 1 + size) % size;
  int *out = mt_malloc(sizeof(int) * kN), *in = mt_malloc(sizeof(int) * kN);

  /* A ring shift to the right, large enough for a rendezvous. */
  for (int i = 0; i < kN; i++) out[i] = rank * 100000 + i, in[i] = -1;
  MPI_Request r;
  MPI_Status st;
  CHECK_MPI(MPI_Isendrecv(out, kN, MPI_INT, right, 7, in, kN, MPI_INT, left, 7, MPI_COMM_WORLD, &r));
  CHECK_MPI(MPI_Wait(&r, &st));
  CHECK(r == MPI_REQUEST_NULL, "the request was not freed by MPI_Wait");
  CHECK(st.MPI_SOURCE == left && st.MPI_TAG == 7, "status source %d tag %d, want %d 7", st.MPI_SOURCE, st.MPI_TAG, left);
  int count = -1;
  MPI_Get_count(&st, MPI_INT, &count);
  CHECK(count == kN, "count %d, want %d", count, kN);
  for (int i = 0; i < kN; i++) CHECK(in[i] == left * 100000 + i, "in[%d] = %d", i, in[i]);

  /* A wildcard source (only the right neighbour sends tag 8 here): the status says who sent. */
  CHECK_MPI(MPI_Isendrecv(out, 1, MPI_INT, left, 8, in, 1, MPI_INT, MPI_ANY_SOURCE, 8, MPI_COMM_WORLD, &r));
  CHECK_MPI(MPI_Wait(&r, &st));
  CHECK(st.MPI_SOURCE == right && st.MPI_TAG == 8, "wildcard: source %d tag %d, want %d 8", st.MPI_SOURCE,
        st.MPI_TAG, right);
  CHECK(in[0] == right * 100000, "wildcard: in[0] = %d", in[0]);

  /* MPI_PROC_NULL: receive from nobody (status of MPI_PROC_NULL), send to nobody. */
  in[0] = -5;
  CHECK_MPI(MPI_Isendrecv(out, 3, MPI_INT, MPI_PROC_NULL, 1, in, 3, MPI_INT, MPI_PROC_NULL, 1, MPI_COMM_WORLD, &r));
  CHECK_MPI(MPI_Wait(&r, &st));
  CHECK(st.MPI_SOURCE == MPI_PROC_NULL && st.MPI_TAG == MPI_ANY_TAG, "PROC_NULL status: source %d tag %d",
        st.MPI_SOURCE, st.MPI_TAG);
  MPI_Get_count(&st, MPI_INT, &count);
  CHECK(count == 0 && in[0] == -5, "PROC_NULL: count %d, in[0] %d", count, in[0]);
  /* Only one side null: a chain, rank 0 receives nothing, the last sends nothing. */
  int to = rank + 1 < size ? rank + 1 : MPI_PROC_NULL, from = rank > 0 ? rank - 1 : MPI_PROC_NULL;
  in[0] = -5;
  CHECK_MPI(MPI_Isendrecv(out, 1, MPI_INT, to, 2, in, 1, MPI_INT, from, 2, MPI_COMM_WORLD, &r));
  int done = 0;
  while (!done) CHECK_MPI(MPI_Test(&r, &done, &st));
  CHECK(in[0] == (rank > 0 ? (rank - 1) * 100000 : -5), "chain: in[0] = %d", in[0]);

  /* _replace with a strided type: every other int of the buffer travels. */
  MPI_Datatype every_other;
  MPI_Type_vector(kN / 2, 1, 2, MPI_INT, &every_other);
  MPI_Type_commit(&every_other);
  for (int i = 0; i < kN; i++) out[i] = rank * 100000 + i;
  CHECK_MPI(MPI_Isendrecv_replace(out, 1, every_other, right, 3, left, 3, MPI_COMM_WORLD, &r));
  MPI_Type_free(&every_other); /* freeing the type does not disturb the operation */
  CHECK_MPI(MPI_Wait(&r, &st));
  for (int i = 0; i < kN; i++) {
    int want = i % 2 == 0 && i / 2 < kN / 2 ? left * 100000 + i : rank * 100000 + i;
    CHECK(out[i] == want, "replace: out[%d] = %d, want %d", i, out[i], want);
  }

  /* The _c forms. */
  long long big = rank, got = -1;
  CHECK_MPI(MPI_Isendrecv_c(&big, (MPI_Count)1, MPI_LONG_LONG, right, 4, &got, (MPI_Count)1, MPI_LONG_LONG, left, 4,
                            MPI_COMM_WORLD, &r));
  CHECK_MPI(MPI_Wait(&r, MPI_STATUS_IGNORE));
  CHECK(got == left, "Isendrecv_c: %lld", got);
  big = rank;
  CHECK_MPI(MPI_Isendrecv_replace_c(&big, (MPI_Count)1, MPI_LONG_LONG, left, 5, right, 5, MPI_COMM_WORLD, &r));
  CHECK_MPI(MPI_Wait(&r, MPI_STATUS_IGNORE));
  CHECK(big == right, "Isendrecv_replace_c: %lld", big);

  /* Errors, returned. */
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  int cls = -1, err = MPI_Isendrecv(out, 1, MPI_INT, size, 0, in, 1, MPI_INT, left, 0, MPI_COMM_WORLD, &r);
  MPI_Error_class(err, &cls);
  CHECK(cls == MPI_ERR_RANK, "bad destination: class %d, want MPI_ERR_RANK", cls);
  err = MPI_Isendrecv_replace(out, 1, MPI_INT, right, 0, left, 0, MPI_COMM_WORLD, NULL);
  MPI_Error_class(err, &cls);
  CHECK(cls == MPI_ERR_ARG, "NULL request: class %d, want MPI_ERR_ARG", cls);
  err = MPI_Isendrecv_c(out, -1, MPI_INT, right, 0, in, 1, MPI_INT, left, 0, MPI_COMM_WORLD, &r);
  MPI_Error_class(err, &cls);
  CHECK(cls == MPI_ERR_COUNT, "count -1: class %d, want MPI_ERR_COUNT", cls);

  free(out), free(in);
  mt_pass();
  MPI_Finalize();
  return 0;
}
