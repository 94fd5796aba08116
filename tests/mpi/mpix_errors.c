/*
 * MPICH's MPIX_Delete_error_class/_code/_string undo MPI_Add_error_class/
 * _code/_string: a deleted code or class is no longer valid
 * (MPI_Error_class refuses it) and is never handed out again, a class with
 * codes cannot be deleted, a deleted string reads empty, and predefined
 * classes and codes cannot be deleted (MPI_ERR_ARG, with a message naming
 * the call). Also: MPIX_Query_hip_support and MPIX_Query_ze_support say 0.
 */
#define TEST_NAME "mpix_errors"
#include "mpitest.h"

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  CHECK(MPIX_Query_hip_support() == 0 && MPIX_Query_ze_support() == 0, "HIP or ZE support claimed");

  int cls, code, out, len;
  char text[MPI_MAX_ERROR_STRING];
  CHECK(MPI_Add_error_class(&cls) == MPI_SUCCESS, "add class");
  CHECK(MPI_Add_error_code(cls, &code) == MPI_SUCCESS, "add code");
  CHECK(MPI_Add_error_string(code, "a user error") == MPI_SUCCESS, "add string");
  CHECK(MPI_Error_string(code, text, &len) == MPI_SUCCESS && strcmp(text, "a user error") == 0, "string '%s'", text);

  /* The string goes, the code stays. */
  CHECK(MPIX_Delete_error_string(code) == MPI_SUCCESS, "delete string");
  CHECK(MPI_Error_string(code, text, &len) == MPI_SUCCESS && len == 0, "string after delete: '%s'", text);

  /* A class with a code cannot go. */
  int err = MPIX_Delete_error_class(cls);
  CHECK(err != MPI_SUCCESS, "a class with codes was deleted");
  MPI_Error_class(err, &out);
  CHECK(out == MPI_ERR_ARG, "class with codes: error class %d", out);
  MPI_Error_string(err, text, &len);
  CHECK(strstr(text, "MPIX_Delete_error_class") != NULL, "message '%s' does not name the call", text);

  /* The code goes; then the class. */
  CHECK(MPIX_Delete_error_code(code) == MPI_SUCCESS, "delete code");
  CHECK(MPI_Error_class(code, &out) != MPI_SUCCESS, "a deleted code still has a class");
  CHECK(MPIX_Delete_error_code(code) != MPI_SUCCESS, "a code deleted twice");
  CHECK(MPIX_Delete_error_code(cls) != MPI_SUCCESS, "a class deleted as a code");
  CHECK(MPIX_Delete_error_class(cls) == MPI_SUCCESS, "delete class");
  CHECK(MPI_Add_error_code(cls, &out) != MPI_SUCCESS, "a code added to a deleted class");
  CHECK(MPIX_Delete_error_string(cls) != MPI_SUCCESS, "the string of a deleted class");

  /* Never handed out again. */
  int again;
  CHECK(MPI_Add_error_class(&again) == MPI_SUCCESS && again != cls && again != code, "a deleted value came back");

  /* Predefined ones stay. */
  err = MPIX_Delete_error_class(MPI_ERR_COMM);
  MPI_Error_class(err, &out);
  CHECK(out == MPI_ERR_ARG, "deleting MPI_ERR_COMM: class %d", out);
  CHECK(MPIX_Delete_error_code(MPI_ERR_TYPE) != MPI_SUCCESS, "deleted predefined code MPI_ERR_TYPE");
  CHECK(MPIX_Delete_error_string(MPI_ERR_TYPE) != MPI_SUCCESS, "deleted predefined string");

  /* ULFM's classes exist at MPICH's values. */
  CHECK(MPIX_ERR_REVOKED == 103 && MPI_Error_class(MPIX_ERR_REVOKED, &out) == MPI_SUCCESS && out == MPIX_ERR_REVOKED,
        "MPIX_ERR_REVOKED is no class");
  mt_pass();
  MPI_Finalize();
  return 0;
}
