/*
 * MPI-4.0's info additions: info calls before MPI_Init, MPI_Info_get_string
 * (buflen counts the terminator; a short buffer truncates; a missing key
 * leaves value alone) and MPI_Info_create_env (the same before and after
 * MPI_Init).
 */
#define TEST_NAME "info_mpi4"
#include "mpitest.h"

static void check_same(MPI_Info a, MPI_Info b) {
  const char *keys[] = {"command", "argv", "maxprocs", "soft", "host", "arch", "wdir", "file", "thread_level"};
  for (size_t i = 0; i < sizeof keys / sizeof keys[0]; ++i) {
    char va[MPI_MAX_INFO_VAL + 1], vb[MPI_MAX_INFO_VAL + 1];
    int la = sizeof va, lb = sizeof vb, fa = 0, fb = 0;
    MPI_Info_get_string(a, keys[i], &la, va, &fa);
    MPI_Info_get_string(b, keys[i], &lb, vb, &fb);
    CHECK(fa == fb && (!fa || strcmp(va, vb) == 0), "create_env key %s differs: \"%s\" vs \"%s\"", keys[i],
          fa ? va : "(none)", fb ? vb : "(none)");
  }
}

int main(int argc, char **argv) {
  MPI_Info info, env_before, env_after;
  char value[16];
  int buflen, flag;

  /* Before MPI_Init (MPI-4.0 §10). */
  CHECK_MPI(MPI_Info_create(&info));
  CHECK_MPI(MPI_Info_set(info, "key", "0123456789"));
  CHECK_MPI(MPI_Info_create_env(argc, argv, &env_before));

  /* buflen 0: only the length, terminator included; value untouched. */
  buflen = 0;
  value[0] = 'X';
  CHECK_MPI(MPI_Info_get_string(info, "key", &buflen, value, &flag));
  CHECK(flag && buflen == 11 && value[0] == 'X', "buflen 0: flag %d buflen %d value[0] %c", flag, buflen, value[0]);
  /* Truncation: 4 bytes hold 3 characters and the terminator. */
  buflen = 4;
  CHECK_MPI(MPI_Info_get_string(info, "key", &buflen, value, &flag));
  CHECK(flag && buflen == 11 && strcmp(value, "012") == 0, "buflen 4: flag %d buflen %d value \"%s\"", flag, buflen,
        value);
  buflen = sizeof value;
  CHECK_MPI(MPI_Info_get_string(info, "key", &buflen, value, &flag));
  CHECK(flag && buflen == 11 && strcmp(value, "0123456789") == 0, "full: buflen %d value \"%s\"", buflen, value);
  /* A missing key: flag 0, value and buflen as they were. */
  buflen = 5;
  strcpy(value, "keep");
  CHECK_MPI(MPI_Info_get_string(info, "missing", &buflen, value, &flag));
  CHECK(!flag && buflen == 5 && strcmp(value, "keep") == 0, "missing key: flag %d buflen %d value \"%s\"", flag,
        buflen, value);

  /* create_env: command is argv[0]. */
  char command[MPI_MAX_INFO_VAL + 1];
  buflen = sizeof command;
  CHECK_MPI(MPI_Info_get_string(env_before, "command", &buflen, command, &flag));
  CHECK(flag && strcmp(command, argv[0]) == 0, "command is \"%s\", argv[0] \"%s\"", flag ? command : "", argv[0]);

  MPI_Init(&argc, &argv);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  CHECK_MPI(MPI_Info_create_env(argc, argv, &env_after));
  check_same(env_before, env_after);
  /* Bad arguments. */
  int cls = 0;
  buflen = -1;
  int rc = MPI_Info_get_string(info, "key", &buflen, value, &flag);
  MPI_Error_class(rc, &cls);
  CHECK(cls == MPI_ERR_ARG, "buflen -1: class %d", cls);
  rc = MPI_Info_get_string(MPI_INFO_NULL, "key", &buflen, value, &flag);
  MPI_Error_class(rc, &cls);
  CHECK(cls == MPI_ERR_INFO, "MPI_INFO_NULL: class %d", cls);
  mt_pass();
  MPI_Finalize();

  /* And after MPI_Finalize. */
  MPI_Info after_finalize;
  CHECK_MPI(MPI_Info_create_env(argc, argv, &after_finalize));
  check_same(env_before, after_finalize);
  MPI_Info_free(&after_finalize);
  MPI_Info_free(&env_before);
  MPI_Info_free(&env_after);
  MPI_Info_free(&info);
  return 0;
}
