/*
 * Fortran bindings written by hand because Fortran's argument list is not C's: start-up without
 * argc/argv, MPI_Pcontrol without varargs, MPI_Buffer_detach, and the MPI-4.0 calls
 * whose length argument counts a Fortran string's characters (MPI_Info_get_string,
 * MPI_Session_get_nth_pset). src/api/mpi_api.txt marks each fortran=manual.
 */
#include <stdlib.h>

#include "fortran_binding.h"

void pmpi_init_(MPI_Fint *ierr) { *ierr = MPI_Init(NULL, NULL); }
FERRY_FORTRAN_ALIASES(init, INIT)

void pmpi_init_thread_(MPI_Fint *required, MPI_Fint *provided, MPI_Fint *ierr) {
  *ierr = MPI_Init_thread(NULL, NULL, *required, provided);
}
FERRY_FORTRAN_ALIASES(init_thread, INIT_THREAD)

void pmpi_pcontrol_(MPI_Fint *level) { MPI_Pcontrol(*level); }
FERRY_FORTRAN_ALIASES(pcontrol, PCONTROL)

/* From Fortran, the environment is the process's own (there is no argv to pass). */
void pmpi_info_create_env_(MPI_Fint *info, MPI_Fint *ierr) { *ierr = MPI_Info_create_env(0, NULL, info); }
FERRY_FORTRAN_ALIASES(info_create_env, INFO_CREATE_ENV)

/* In Fortran buffer_addr is a choice argument, which may be as small as one INTEGER: the C address
 * of the detached buffer is not written into it (as in MPICH). */
void pmpi_buffer_detach_(void *buffer_addr, MPI_Fint *size, MPI_Fint *ierr) {
  void *address;
  (void)buffer_addr;
  *ierr = MPI_Buffer_detach(&address, size);
}
FERRY_FORTRAN_ALIASES(buffer_detach, BUFFER_DETACH)

/* A string whose C call takes an in/out length counting the NUL (MPI-4.0 §10: MPI_Info_get_string):
 * in Fortran the length counts characters only, and the value may not exceed the CHARACTER
 * variable. On entry *length is how many characters the caller takes (0: none, just the length);
 * on return, the value's length. */
typedef int StringQuery(void *context, int *length, char *value, int *flag);

static void get_counted_string(StringQuery *query, void *context, MPI_Fint *length, char *value,
                               ferry_fortran_length value_len, int *flag, MPI_Fint *ierr) {
  size_t room = *length <= 0 ? 0 : (size_t)*length < value_len ? (size_t)*length : value_len;
  char *buffer = calloc(room + 1, 1);
  if (buffer == NULL) {
    *ierr = MPI_ERR_NO_MEM;
    return;
  }
  int c_length = room == 0 ? 0 : (int)room + 1;
  *ierr = query(context, &c_length, buffer, flag);
  if (*ierr == MPI_SUCCESS && *flag) {
    /* The value, truncated to what the caller takes, then blanks to the variable's end. */
    if (room > 0) ferry_fortran_string_out(buffer, value, value_len);
    *length = c_length > 0 ? c_length - 1 : 0;
  }
  free(buffer);
}

struct InfoQuery {
  MPI_Info info;
  const char *key;
};

static int info_query(void *context, int *length, char *value, int *flag) {
  struct InfoQuery *q = context;
  return MPI_Info_get_string(q->info, q->key, length, value, flag);
}

void pmpi_info_get_string_(MPI_Fint *info, const char *key, MPI_Fint *buflen, char *value, MPI_Fint *flag,
                           MPI_Fint *ierr, ferry_fortran_length key_len, ferry_fortran_length value_len) {
  char *c_key = ferry_fortran_string_in_stripped(key, key_len);
  if (c_key == NULL) {
    *ierr = MPI_ERR_NO_MEM;
    return;
  }
  struct InfoQuery q = {(MPI_Info)*info, c_key};
  int c_flag = 0;
  get_counted_string(info_query, &q, buflen, value, value_len, &c_flag, ierr);
  *flag = c_flag ? FERRY_FORTRAN_TRUE : FERRY_FORTRAN_FALSE;
  free(c_key);
}
FERRY_FORTRAN_ALIASES(info_get_string, INFO_GET_STRING)

struct PsetQuery {
  MPI_Session session;
  MPI_Info info;
  int n;
};

static int pset_query(void *context, int *length, char *value, int *flag) {
  struct PsetQuery *q = context;
  *flag = 1;
  return MPI_Session_get_nth_pset(q->session, q->info, q->n, length, value);
}

void pmpi_session_get_nth_pset_(MPI_Fint *session, MPI_Fint *info, MPI_Fint *n, MPI_Fint *pset_len, char *pset_name,
                                MPI_Fint *ierr, ferry_fortran_length pset_name_len) {
  struct PsetQuery q = {(MPI_Session)*session, (MPI_Info)*info, *n};
  int flag;
  get_counted_string(pset_query, &q, pset_len, pset_name, pset_name_len, &flag, ierr);
}
FERRY_FORTRAN_ALIASES(session_get_nth_pset, SESSION_GET_NTH_PSET)

/* MPI-4.0 §19.1: MPI_F_SYNC_REG does nothing but make the compiler assume its argument changed. */
void pmpi_f_sync_reg_(void *buf) { (void)buf; }
FERRY_FORTRAN_ALIASES(f_sync_reg, F_SYNC_REG)
