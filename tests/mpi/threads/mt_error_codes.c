/*
 * User-defined error classes, codes and strings (MPI-3.1 §8.5) made from
 * several threads at once, while other threads raise ordinary errors (each
 * of which remembers its message) and read MPI_LASTUSEDCODE: every class
 * and code is distinct, reports its own class and keeps its own string,
 * whichever thread asks. Under ThreadSanitizer (label "threads") nothing
 * may be reported.
 */
#define TEST_NAME "mt_error_codes"
#include "mpitest.h"
#include "mt_threads.h"

enum { THREADS = 4, CLASSES = 8, CODES = 3 };

static int reps;
static int classes[THREADS][CLASSES];
static int codes[THREADS][CLASSES][CODES];

static void text_of(char *out, size_t n, int t, int c, int k) {
  snprintf(out, n, "thread %d class %d code %d", t, c, k);
}

static void *add_codes(void *arg) {
  int t = mtt_thread(arg);
  char text[64], got[MPI_MAX_ERROR_STRING];
  int len, cls;
  for (int c = 0; c < CLASSES; c++) {
    CHECK_MPI(MPI_Add_error_class(&classes[t][c]));
    for (int k = 0; k < CODES; k++) {
      CHECK_MPI(MPI_Add_error_code(classes[t][c], &codes[t][c][k]));
      text_of(text, sizeof text, t, c, k);
      CHECK_MPI(MPI_Add_error_string(codes[t][c][k], text));
      CHECK_MPI(MPI_Error_class(codes[t][c][k], &cls));
      CHECK(cls == classes[t][c], "thread %d: code %d reports class %d, expected %d", t, codes[t][c][k], cls,
            classes[t][c]);
      CHECK_MPI(MPI_Error_string(codes[t][c][k], got, &len));
      CHECK(strcmp(got, text) == 0, "thread %d: code %d says \"%s\", expected \"%s\"", t, codes[t][c][k], got, text);
    }
  }
  return NULL;
}

/* Ordinary errors, each remembering its message, and MPI_LASTUSEDCODE reads. */
static void *raise_errors(void *arg) {
  (void)arg;
  int size, buf = 0, *value, flag, cls;
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  for (int i = 0; i < 50; i++) {
    int rc = MPI_Send(&buf, 1, MPI_INT, size + i, 0, MPI_COMM_WORLD);
    CHECK_MPI(MPI_Error_class(rc, &cls));
    CHECK(cls == MPI_ERR_RANK, "MPI_Send to rank %d gave class %d", size + i, cls);
    CHECK_MPI(MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_LASTUSEDCODE, &value, &flag));
    CHECK(flag && value != NULL, "MPI_LASTUSEDCODE is not set");
  }
  return NULL;
}

static void *worker(void *arg) {
  int t = mtt_thread(arg);
  return t < THREADS ? add_codes(arg) : raise_errors(arg);
}

int main(int argc, char **argv) {
  /* MPICH allows 128 user-defined classes in all: 3 x 32 stay below. */
  reps = mtt_init(&argc, &argv, 3);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  for (int r = 0; r < reps; r++) {
    mtt_run(THREADS + 2, worker);
    /* Every value distinct; each code's class and string, read by this thread. */
    int *value, flag;
    CHECK_MPI(MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_LASTUSEDCODE, &value, &flag));
    int n = 0, all[THREADS * CLASSES * (CODES + 1)];
    for (int t = 0; t < THREADS; t++)
      for (int c = 0; c < CLASSES; c++) {
        all[n++] = classes[t][c];
        CHECK(*value >= classes[t][c], "MPI_LASTUSEDCODE %d is below class %d", *value, classes[t][c]);
        for (int k = 0; k < CODES; k++) {
          char text[64], got[MPI_MAX_ERROR_STRING];
          int len, cls;
          all[n++] = codes[t][c][k];
          CHECK_MPI(MPI_Error_class(codes[t][c][k], &cls));
          CHECK(cls == classes[t][c], "code %d reports class %d, expected %d", codes[t][c][k], cls, classes[t][c]);
          text_of(text, sizeof text, t, c, k);
          CHECK_MPI(MPI_Error_string(codes[t][c][k], got, &len));
          CHECK(strcmp(got, text) == 0, "code %d says \"%s\", expected \"%s\"", codes[t][c][k], got, text);
        }
      }
    for (int i = 0; i < n; i++)
      for (int j = 0; j < i; j++) CHECK(all[i] != all[j], "the value %d was handed out twice", all[i]);
  }
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
  mt_pass();
  MPI_Finalize();
  return 0;
}
