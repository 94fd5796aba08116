/*
 * User-defined error classes, codes and strings (MPI-3.1 §8.5):
 * MPI_Add_error_class, MPI_Add_error_code (to a new or a predefined class)
 * and MPI_Add_error_string, as MPI_Error_class and MPI_Error_string report
 * them: a new class is its own class and has the empty string until one is
 * added; a code reports its class; a later string replaces an earlier one.
 * MPI_LASTUSEDCODE (an attribute of MPI_COMM_WORLD) is at least
 * MPI_ERR_LASTCODE and at least every class added. A user-defined code
 * goes through error handlers like any other, and the MPI-1 names of the
 * error handler calls (MPI_Errhandler_create/_set/_get, which MPICH still
 * exports) work as their MPI-2 forms.
 *
 * Ferry only (MPICH numbers its classes from 129 and never moves
 * MPI_LASTUSEDCODE): classes and codes lie above MPI_ERR_LASTCODE and
 * MPI_LASTUSEDCODE follows them; errors name the offending argument.
 */
#define TEST_NAME "user_error_codes"
#include "mpitest.h"

static int last_used(void) {
  int *value = NULL, flag = 0;
  CHECK_MPI(MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_LASTUSEDCODE, &value, &flag));
  CHECK(flag && value != NULL, "MPI_LASTUSEDCODE is not set on MPI_COMM_WORLD");
  return *value;
}

static void expect_string(int code, const char *want, const char *what) {
  char text[MPI_MAX_ERROR_STRING];
  int len = -1;
  memset(text, '@', sizeof text);
  CHECK_MPI(MPI_Error_string(code, text, &len));
  CHECK(strcmp(text, want) == 0 && len == (int)strlen(want), "%s: MPI_Error_string gave \"%s\" (%d), expected \"%s\"",
        what, text, len, want);
}

static void expect_class(int code, int want, const char *what) {
  int cls = -1;
  CHECK_MPI(MPI_Error_class(code, &cls));
  CHECK(cls == want, "%s: MPI_Error_class gave %d (0x%x), expected %d (0x%x)", what, cls, (unsigned)cls, want,
        (unsigned)want);
}

static void classes_codes_strings(void) {
  int before = last_used();
  CHECK(before >= MPI_ERR_LASTCODE, "MPI_LASTUSEDCODE %d is below MPI_ERR_LASTCODE %d", before, MPI_ERR_LASTCODE);

  int cls = -1, code = -1;
  CHECK_MPI(MPI_Add_error_class(&cls));
  expect_class(cls, cls, "a new class");
  expect_string(cls, "", "a new class");
  CHECK(last_used() >= cls, "MPI_LASTUSEDCODE %d is below the new class %d", last_used(), cls);
  if (mt_is_ferry()) {
    CHECK(cls > MPI_ERR_LASTCODE, "the new class %d is not above MPI_ERR_LASTCODE", cls);
    CHECK(last_used() == cls, "MPI_LASTUSEDCODE is %d, not the new class %d", last_used(), cls);
  }

  CHECK_MPI(MPI_Add_error_code(cls, &code));
  CHECK(code != cls, "the new code is its class's value %d", code);
  expect_class(code, cls, "a code of the new class");
  expect_string(code, "", "a new code");
  CHECK_MPI(MPI_Add_error_string(code, "disk on fire"));
  expect_string(code, "disk on fire", "a code with a string");
  CHECK_MPI(MPI_Add_error_string(cls, "hardware trouble"));
  expect_string(cls, "hardware trouble", "a class with a string");
  expect_string(code, "disk on fire", "a code after its class got a string");
  CHECK_MPI(MPI_Add_error_string(code, "disk on fire, twice"));
  expect_string(code, "disk on fire, twice", "a code whose string was replaced");

  /* A code of a predefined class reports that class. */
  int arg_code = -1;
  CHECK_MPI(MPI_Add_error_code(MPI_ERR_ARG, &arg_code));
  expect_class(arg_code, MPI_ERR_ARG, "a code added to MPI_ERR_ARG");
  if (mt_is_ferry()) {
    /* MPICH 4.0 shows its own MPI_ERR_ARG text with an error stack instead. */
    CHECK_MPI(MPI_Add_error_string(arg_code, "the widget argument is bent"));
    expect_string(arg_code, "the widget argument is bent", "a code added to MPI_ERR_ARG");
    CHECK(last_used() == arg_code, "MPI_LASTUSEDCODE %d did not follow the code %d", last_used(), arg_code);
  }

  /* Many classes with a few codes each: all distinct, each with its own class and string. */
  enum { NC = 16, NK = 3 };
  int classes[NC], codes[NC][NK];
  char text[64];
  for (int i = 0; i < NC; i++) {
    CHECK_MPI(MPI_Add_error_class(&classes[i]));
    for (int k = 0; k < NK; k++) {
      CHECK_MPI(MPI_Add_error_code(classes[i], &codes[i][k]));
      snprintf(text, sizeof text, "class %d code %d\n", i, k);
      CHECK_MPI(MPI_Add_error_string(codes[i][k], text));
    }
  }
  for (int i = 0; i < NC; i++) {
    CHECK(classes[i] != cls && classes[i] != code, "class %d repeats an earlier value", i);
    for (int j = 0; j < i; j++) CHECK(classes[i] != classes[j], "classes %d and %d are both %d", i, j, classes[i]);
    CHECK(last_used() >= classes[i], "MPI_LASTUSEDCODE %d is below class %d (%d)", last_used(), i, classes[i]);
    expect_class(classes[i], classes[i], "one of many classes");
    for (int k = 0; k < NK; k++) {
      expect_class(codes[i][k], classes[i], "one of many codes");
      snprintf(text, sizeof text, "class %d code %d\n", i, k);
      expect_string(codes[i][k], text, "one of many codes");
    }
  }
}

static int handled_code = -1, handled_class = -1;
static char handled_text[MPI_MAX_ERROR_STRING];

static void record_error(MPI_Comm *comm, int *code, ...) {
  int len;
  handled_code = *code;
  MPI_Error_class(*code, &handled_class);
  MPI_Error_string(*code, handled_text, &len);
}

/* A user-defined code reaches a communicator's handler as it is; the MPI-1
 * names install and fetch the handler. */
static void through_error_handlers(void) {
  int cls, code;
  CHECK_MPI(MPI_Add_error_class(&cls));
  CHECK_MPI(MPI_Add_error_code(cls, &code));
  CHECK_MPI(MPI_Add_error_string(code, "quota of widgets exceeded"));

  MPI_Comm comm;
  MPI_Errhandler eh, got = MPI_ERRHANDLER_NULL;
  CHECK_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &comm));
  CHECK_MPI(MPI_Errhandler_create(record_error, &eh));
  CHECK_MPI(MPI_Errhandler_set(comm, eh));
  CHECK_MPI(MPI_Errhandler_get(comm, &got));
  CHECK(got == eh, "MPI_Errhandler_get gave 0x%x, not the handler set (0x%x)", (unsigned)got, (unsigned)eh);
  CHECK_MPI(MPI_Errhandler_free(&got));

  CHECK_MPI(MPI_Comm_call_errhandler(comm, code));
  CHECK(handled_code == code && handled_class == cls, "the handler saw code %d of class %d, expected %d of %d",
        handled_code, handled_class, code, cls);
  CHECK(strstr(handled_text, "quota of widgets exceeded") != NULL, "the handler's text is \"%s\"", handled_text);

  /* A real error goes to the handler installed with MPI_Errhandler_set. */
  int size, buf = 0;
  MPI_Comm_size(comm, &size);
  handled_code = -1;
  int rc = MPI_Send(&buf, 1, MPI_INT, size, 0, comm);
  CHECK(rc != MPI_SUCCESS && handled_code == rc && handled_class == MPI_ERR_RANK,
        "MPI_Send to rank %d: returned %d, the handler saw %d of class %d", size, rc, handled_code, handled_class);

  CHECK_MPI(MPI_Errhandler_free(&eh));
  CHECK_MPI(MPI_Comm_free(&comm));
}

static int delete_fails_with;
static int failing_delete(MPI_Comm comm, int keyval, void *value, void *extra) { return delete_fails_with; }

static void errors(void) {
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  /* MPICH 4.0 checks none of these. */
  if (mt_is_ferry()) {
    /* A predefined code's string cannot be changed (MPI-3.1 §8.5: erroneous). */
    mt_expect_error_saying(MPI_Add_error_string(MPI_ERR_ARG, "mine now"), MPI_ERR_ARG, "MPI_Add_error_string", "errorcode",
                 "the string of MPI_ERR_ARG");
    int cls, code, out = -1;
    CHECK_MPI(MPI_Add_error_class(&cls));
    CHECK_MPI(MPI_Add_error_code(cls, &code));
    mt_expect_error_saying(MPI_Add_error_code(code, &out), MPI_ERR_ARG, "MPI_Add_error_code", "errorclass",
                 "a code given as the class");
    mt_expect_error_saying(MPI_Add_error_code(MPI_ERR_LASTCODE, &out), MPI_ERR_ARG, "MPI_Add_error_code", "errorclass",
                 "MPI_ERR_LASTCODE as the class");
    CHECK(out == -1, "a failed MPI_Add_error_code wrote %d", out);
    mt_expect_error_saying(MPI_Add_error_class(NULL), MPI_ERR_ARG, "MPI_Add_error_class", "errorclass", "NULL errorclass");
    char long_text[MPI_MAX_ERROR_STRING + 8];
    memset(long_text, 'x', sizeof long_text - 1);
    long_text[sizeof long_text - 1] = '\0';
    mt_expect_error_saying(MPI_Add_error_string(code, long_text), MPI_ERR_ARG, "MPI_Add_error_string", "MPI_MAX_ERROR_STRING",
                 "a string longer than MPI_MAX_ERROR_STRING");
    mt_expect_error_saying(MPI_Add_error_string(code, NULL), MPI_ERR_ARG, "MPI_Add_error_string", "string", "NULL string");

    /* A callback's user-defined code fails the call with its class. */
    int keyval;
    MPI_Comm comm;
    CHECK_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &comm));
    CHECK_MPI(MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, failing_delete, &keyval, NULL));
    CHECK_MPI(MPI_Comm_set_attr(comm, keyval, NULL));
    delete_fails_with = code;
    int rc = MPI_Comm_delete_attr(comm, keyval);
    int rc_class = -1;
    MPI_Error_class(rc, &rc_class);
    CHECK(rc != MPI_SUCCESS && rc_class == cls, "a delete callback returning a code of class %d: the call "
          "returned class %d", cls, rc_class);
    delete_fails_with = MPI_SUCCESS;
    CHECK_MPI(MPI_Comm_delete_attr(comm, keyval));
    CHECK_MPI(MPI_Comm_free_keyval(&keyval));
    CHECK_MPI(MPI_Comm_free(&comm));
  }
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  classes_codes_strings();
  through_error_handlers();
  errors();
  mt_pass();
  MPI_Finalize();
  return 0;
}
