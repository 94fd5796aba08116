/* Attributes on datatypes: MPI_Type_dup copies them through the copy
 * callback, MPI_Type_free runs the delete callback (MPI-3.1 §6.7.4). */
#include <mpi.h>
#include <stdio.h>

static int deletes = 0;
static int delete_fn(MPI_Datatype type, int keyval, void* value, void* extra) {
  deletes++;
  return MPI_SUCCESS;
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int failures = 0, keyval, flag = 0;
  static int payload = 17;
  MPI_Datatype vec, copy;
  MPI_Type_vector(3, 1, 2, MPI_INT, &vec);
  MPI_Type_create_keyval(MPI_TYPE_DUP_FN, delete_fn, &keyval, NULL);
  MPI_Type_set_attr(vec, keyval, &payload);
  MPI_Type_dup(vec, &copy);
  void* value = NULL;
  MPI_Type_get_attr(copy, keyval, &value, &flag);
  if (!flag || value != &payload) {
    fprintf(stderr, "type_attributes: FAILED: the duplicate lacks the attribute (flag %d)\n", flag);
    failures++;
  }
  MPI_Type_free(&copy);
  MPI_Type_free(&vec);
  if (deletes != 2) {
    fprintf(stderr, "type_attributes: FAILED: %d delete callbacks, expected 2\n", deletes);
    failures++;
  }
  MPI_Type_free_keyval(&keyval);
  if (failures == 0) printf("type_attributes: OK\n");
  MPI_Finalize();
  return failures != 0;
}
